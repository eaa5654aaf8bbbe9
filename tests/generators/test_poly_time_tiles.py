"""Time tiles (timetiles.py, `launches.time_tiles`): a host loop of 1-d or 2-d stencil launches
runs several iterations per launch, each block on a window of the written arrays in shared
memory with a halo as wide as the iterations' reads reach.  The plan's records on both C
corpora and specs; the loops it refuses and why; the candidates on the emu with windows small
enough that many blocks and a short last launch meet, and a halo one cell short rejected there."""
import re

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.mapping import HostLoop
from t2c.generators.poly.options import DEFAULT
from t2c.verify.ladder import ladder

#: windows of 16 cells: at MINI sizes (n about 30) several blocks, and up to 3 iterations a launch
SMALL = DEFAULT.replace({"launches.time_tiles.window": 16, "launches.time_tiles.threads": 32,
                         "launches.time_tiles.steps": 3})
#: 2-d windows of 16 x 16 cells: several blocks on each axis at MINI sizes
SMALL_2D = DEFAULT.replace({"launches.time_tiles.plane": (16, 16), "launches.time_tiles.threads": 64,
                            "launches.time_tiles.steps": 3})
JACOBI_1D = "corpora/polybench/stencils/jacobi-1d/jacobi-1d.c"
JACOBI_2D = "corpora/polybench/stencils/jacobi-2d/jacobi-2d.c"
HOTSPOT = "corpora/loops/rodinia/hotspot.c"
JACOBI_2D_SPEC = "corpora/text2cuda/jacobi2d.md"
LIFE = "corpora/text2cuda/life.md"
PATHFINDER = "corpora/loops/rodinia/pathfinder.c"
HEAT_1D = "corpora/text2cuda/heat1d.md"


def _loops(k, options=DEFAULT) -> dict[str, HostLoop]:
    _, plan = final_plan(analyze(k), options)
    return {it.loop.var: it for it in plan.items if isinstance(it, HostLoop)}


@pytest.mark.parametrize("path, var, arrays, reach, own", [
    # B from A, then A from B: each reads one cell either side of the one it writes
    (JACOBI_1D, "t", ("A", "B"), (1, 1), 256 - 2 * 32 * 2),
    # cost from the three cells of prev around it, then prev from cost in place
    (PATHFINDER, "i", ("cost", "prev"), (1, 0), 256 - 2 * 32),
    (HEAT_1D, "t", ("u", "v"), (1, 0), 256 - 2 * 32),
])
def test_a_time_loop_of_1d_stencils_runs_in_time_tiles(path, var, arrays, reach, own):
    k = read_kernel(ROOT / path)
    h = _loops(k)[var]
    tt = h.time_tile
    assert tt is not None and h.not_time_tile is None and not h.one_block
    assert tt.arrays == arrays and tuple(s.reach for s in tt.launches) == tuple((r,) for r in reach)
    assert (tt.steps, tt.window, tt.threads, tt.own) == (32, (256,), 256, (own,))
    assert all(l.in_block for l in h.items)          # their bodies as NAME_at, as the tile calls them
    text = generate(k)
    assert re.search(rf"cudaLaunchKernelEx\(poly_after\(poly_blocks_time, 256, 0\)\.at\(\), \w+_time_{var}, ", text)   # begins early
    assert "cudaMallocAsync((void **)&poly_other" in text and "cudaFreeAsync(poly_other, 0);" in text


def test_off_the_loop_keeps_its_one_block_form():
    k = read_kernel(ROOT / JACOBI_1D)
    (h,) = _loops(k, DEFAULT.replace({"launches.time_tiles": None})).values()
    assert h.time_tile is None and h.not_time_tile is None and h.one_block
    assert "_time_" not in generate(k, DEFAULT.replace({"launches.time_tiles": None}))


def test_the_halo_stays_within_a_quarter_of_the_window():
    """Fewer iterations a launch where the asked-for ones would make the halo wider."""
    k = read_kernel(ROOT / JACOBI_1D)
    (h,) = _loops(k, SMALL).values()
    assert (h.time_tile.steps, h.time_tile.halo, h.time_tile.own) == (2, (4,), (8,))


@pytest.mark.parametrize("source, reason", [
    # the reach grows with the host loop: no halo fits every iteration
    ("corpora/loops/idioms/tree_halving.c", "tree_halving_update_x: x[(i + s)] is not at a constant offset from i"),
    ("""
void k(int ts, int n, double A[ts][n]) {
  for (int t = 1; t < ts; t++)
    for (int i = 1; i < n - 1; i++)
      A[t][i] = A[t - 1][i - 1] + A[t - 1][i + 1];
}""", "the arrays it writes (A) are not of one shape, of its launches' rank"),
    # a transposing update: the write follows (i, j), the read (j, i)
    ("""
void k(int ts, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < ts; t++) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        B[i][j] = A[j][i] * 0.5;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        A[i][j] = B[i][j];
  }
}""", "k_update_B: its reads and its write follow its grid indices in different orders"),
    ("""
void k(int ts, int n, double x[n], double y[n]) {
  for (int t = 0; t < ts; t++) {
    for (int i = 0; i < n - 1; i++)
      y[i] = x[i] + x[i + 1];
    for (int i = 0; i < n - 1; i++)
      x[i + 1] = y[i];
  }
}""", ""),
])
def test_loops_it_cannot_tile_keep_their_form_and_say_why(tmp_path, source, reason):
    k = read_kernel(ROOT / source) if source.endswith(".c") else c_kernel(tmp_path, source)
    (h,) = _loops(k).values()
    if not reason:       # a copy that writes one cell past its index: a reach of 1, still tiled
        assert h.time_tile and [s.reach for s in h.time_tile.launches] == [(1,), (1,)]
        return
    assert h.time_tile is None and str(h.not_time_tile) == reason
    assert f"keeps a launch per iteration (no time tiles): {reason}." in generate(k)


@pytest.mark.parametrize("path", [JACOBI_1D, PATHFINDER, HEAT_1D])
@pytest.mark.parametrize("options", [DEFAULT, SMALL, SMALL.replace(pool=False)],
                         ids=["default", "small windows", "small windows, scratch by cudaMalloc"])
def test_time_tiles_are_accepted_on_the_emu(path, options):
    k = read_kernel(ROOT / path)
    accepted_on_emu(k, generate(k, options))


@pytest.mark.parametrize("path, options, x", [(JACOBI_1D, SMALL, ""), (PATHFINDER, SMALL, ""),
                                           (JACOBI_2D, SMALL_2D, "1"), (HOTSPOT, SMALL_2D, "1"), (LIFE, SMALL_2D, "1")])
def test_a_halo_one_cell_short_is_rejected(path, options, x):
    """The verifier sees what a halo too narrow computes: the tiles' own cells from stale ones
    (2-d: a halo one column short, `x` the suffix of the columns' names)."""
    k = read_kernel(ROOT / path)
    text = generate(k, options)
    h = int(re.search(rf"poly_own{x} > (\d+) \? poly_own{x} - \1", text).group(1))
    short = text.replace(f"poly_own{x} > {h} ? poly_own{x} - {h}", f"poly_own{x} > {h - 1} ? poly_own{x} - {h - 1}") \
        .replace(f"poly_end{x} + {h} < poly_count{x} ? poly_end{x} + {h}",
                 f"poly_end{x} + {h - 1} < poly_count{x} ? poly_end{x} + {h - 1}")
    assert short != text
    card = ladder(k, short, backend="emu", dataset="MINI", seed=3)
    assert not card.accepted and "output mismatch" in card.summary()


def test_a_descending_time_loop_with_reaches_of_two_and_one(tmp_path):
    """The host walks the loop's own header (`t--`), the kernel too; the reaches add (2 + 1 a
    step), and a window of 16 cells takes one iteration a launch."""
    k = c_kernel(tmp_path, """
void k(int n, float x[n], float y[n]) {
  for (int t = n - 1; t >= 0; t--) {
    for (int i = 2; i < n - 1; i++)
      y[i] = x[i - 2] * 0.25f + x[i + 1] * 0.5f + (float)t;
    for (int i = 1; i < n - 1; i++)
      x[i] = y[i] - 0.5f * y[i + 1];
  }
}""")
    (h,) = _loops(k).values()
    assert [s.reach for s in h.time_tile.launches] == [(2,), (1,)] and h.time_tile.steps == 256 // 12
    assert _loops(k, SMALL)["t"].time_tile.steps == 1
    for options in (DEFAULT, SMALL):
        accepted_on_emu(k, generate(k, options))


@pytest.mark.parametrize("path, arrays, reach, steps", [
    # B from A's five points, then A from B's: one cell each way on both axes, twice an iteration
    (JACOBI_2D, ("A", "B"), ((1, 1), (1, 1)), 32 // (4 * 2)),
    (JACOBI_2D_SPEC, ("A", "B"), ((1, 1), (1, 1)), 32 // (4 * 2)),
    # next from temp's neighbours (the edges' reads of the cell itself are guarded statements), then the copy back
    (HOTSPOT, ("next", "temp"), ((1, 1), (0, 0)), 32 // 4),
    # int cells from their eight neighbours (diagonals too: a reach of one on both axes), then the copy back
    (LIFE, ("cur", "nxt"), ((1, 1), (0, 0)), 32 // 4),
])
def test_a_time_loop_of_2d_stencils_runs_in_time_tiles(path, arrays, reach, steps):
    """A 2-d window of 32 x 64 cells; the steps cut so that each halo stays within a quarter of
    the window's rows; the launches keep their own kernels for the fallback and run in the tile
    as NAME_tile, their subscripts flattened with the window's pitch."""
    k = read_kernel(ROOT / path)
    (h,) = [h for h in _loops(k).values() if h.time_tile]
    tt = h.time_tile
    assert tt.arrays == arrays and tuple(s.reach for s in tt.launches) == reach
    assert (tt.rank, tt.window, tt.steps, tt.block) == (2, (32, 64), steps, (32, 8))
    assert tt.own == (32 - 2 * tt.halo[0], 64 - 2 * tt.halo[1]) and all(s.axes == ("y", "x") for s in tt.launches)
    assert not any(l.in_block for l in h.items)
    text = generate(k)
    name = h.items[0].name
    assert f"static __device__ void {name}_tile(" in text and f"__global__ void {name}(" in text
    assert re.search(r"\[\(\w+ \* 64\) \+ \w+\]", text[text.index(f"{name}_tile("):])   # the window's pitch


def test_3d_stencils_and_mixed_ranks_are_not_candidates():
    """heat-3d's launches are 3-d (a window of 3-d cells fits no useful halo in a block's shared
    memory); fdtd-2d's loop mixes a 1-d launch (row 0) with 2-d ones."""
    for path in ("corpora/polybench/stencils/heat-3d/heat-3d.c", "corpora/polybench/stencils/fdtd-2d/fdtd-2d.c"):
        (h,) = _loops(read_kernel(ROOT / path)).values()
        assert h.time_tile is None and h.not_time_tile is None


@pytest.mark.parametrize("path", [JACOBI_2D, HOTSPOT, JACOBI_2D_SPEC, LIFE])
@pytest.mark.parametrize("options", [DEFAULT, SMALL_2D, SMALL_2D.replace(pool=False)],
                         ids=["default", "small windows", "small windows, scratch by cudaMalloc"])
def test_2d_time_tiles_are_accepted_on_the_emu(path, options):
    k = read_kernel(ROOT / path)
    text = generate(k, options)
    assert re.search(r"\.at\(\), \w+_time_t, ", text) and "poly_wait();" in text[text.index("_time_t("):]
    accepted_on_emu(k, text)


#: each thread a fixed count of cells, unrolled (the default in 1-d), 2-d too; one warp a block, __syncwarp between launches
UNROLLED = SMALL.replace({"launches.time_tiles.unrolled": True, "launches.time_tiles.threads": 8})
UNROLLED_WARP = DEFAULT.replace({"launches.time_tiles.unrolled_plane": True, "launches.time_tiles.threads": 32})
UNROLLED_2D = SMALL_2D.replace({"launches.time_tiles.unrolled_plane": True, "launches.time_tiles.threads": 32})


@pytest.mark.parametrize("path, split", [
    (JACOBI_1D, ("double", "double")),
    (PATHFINDER, (None, "int")),           # a min of three cells in a scalar first, then the copy back
    (HEAT_1D, ("float", "float")),
    (HOTSPOT, (None, "double")),           # its edges: guarded statements, each cell run whole
    (LIFE, ("int", "int")),                # one expression of the eight neighbours, then the copy back
])
def test_one_store_launches_take_their_values_first(path, split):
    """A launch whose body is one store of a cell (no scalar of its own) is split into its value
    and its store: each thread takes all its cells' values, then stores them."""
    k = read_kernel(ROOT / path)
    (h,) = [h for h in _loops(k, UNROLLED_WARP).values() if h.time_tile]
    assert tuple(s.split for s in h.time_tile.launches) == split and h.time_tile.unrolled
    text = generate(k, UNROLLED_WARP)
    kernel = text[text.index("__global__ void __launch_bounds__(32) "):]
    for l, s in zip(h.items, split):
        entry = f"{l.name}_at" if h.time_tile.rank == 1 else f"{l.name}_tile"
        assert (f"{entry}_value(" in kernel and f"{entry}_store(" in kernel) == bool(s)
    per = 256 // 32 if h.time_tile.rank == 1 else 64 // 32
    assert f"poly_m < {per}; poly_m++" in kernel or f"poly_m1 < {per}; poly_m1++" in kernel
    assert "__syncwarp();" in kernel and "__syncthreads();" in kernel    # a barrier after the copies in only
    assert kernel.count("__syncthreads();") == 1
    assert "__syncwarp" not in generate(k, DEFAULT)


@pytest.mark.parametrize("path", [JACOBI_1D, PATHFINDER, HEAT_1D, JACOBI_2D, HOTSPOT, JACOBI_2D_SPEC, LIFE])
def test_unrolled_time_tiles_are_accepted_on_the_emu(path):
    k = read_kernel(ROOT / path)
    for options in ((UNROLLED, UNROLLED_WARP) if path in (JACOBI_1D, PATHFINDER, HEAT_1D) else (UNROLLED_2D,)):
        accepted_on_emu(k, generate(k, options))


@pytest.mark.parametrize("path", [JACOBI_1D, JACOBI_2D])
def test_unrolled_cells_past_the_still_valid_ones_are_rejected(path):
    """The verifier sees a tile that runs stale cells too: the tiles' own cells computed from
    cells of the halo no iteration kept valid."""
    k = read_kernel(ROOT / path)
    text = generate(k, UNROLLED if path == JACOBI_1D else UNROLLED_2D)
    stale = re.sub(r"poly_from(\d?) = \(poly_lo\1 > 0 \? poly_lo\1 \+ poly_stale\1 : 0\)", r"poly_from\1 = poly_lo\1", text)
    assert stale != text
    card = ladder(k, stale, backend="emu", dataset="MINI", seed=3)
    assert not card.accepted and ("output mismatch" in card.summary() or "out-of-bounds" in card.summary())
