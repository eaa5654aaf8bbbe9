"""In-place sweeps inside a time loop (Gauss-Seidel, SOR) in skewed tiles (poly/wavetiles.py,
`wavefront.skewed`).

seidel-2d ran as a host loop with one launch per diagonal 4t + 2i + j of cells (about 8000 launches
at LARGE). Where a band of 2 or 3 loops fills a box and its dependences point forward in every
coordinate once the loops are skewed (`Model.tile_skew`), it runs in tiles of the skewed
coordinates, a launch per diagonal of tiles; a tile's lanes walk it one step apart. The skews
found on PolyBench, the loops corpus and a spec; what stays as it was; the candidates on the emu
with several tiles along every coordinate; and the emu catching a walk out of order."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel, mutant_rejected_on_emu
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.wavetiles import SkewWave
from t2c.verify.ladder import ladder

SEIDEL = "corpora/polybench/stencils/seidel-2d/seidel-2d.c"
SOR = "corpora/loops/solvers/sor_2d.c"
GS1 = "corpora/loops/solvers/gauss_seidel_1d.c"
GS2 = "corpora/text2cuda/gauss_seidel2d.md"
#: tiles small enough for several along every coordinate at MINI, lane l - 1's cell by a shuffle
SMALL = DEFAULT.replace({"wavefront.skewed.outer": 2, "wavefront.skewed.walk": 8, "wavefront.skewed.shuffle": True})
SHUFFLE = DEFAULT.replace({"wavefront.skewed.shuffle": True})


def _skewed(k, options=DEFAULT) -> list:
    _, plan = final_plan(analyze(k), options)
    return [l.tiles for l in plan.launches if isinstance(l.tiles, SkewWave)]


@pytest.mark.parametrize("path, loops, skew, sizes", [
    # t, t + i, 2t + i + j: the 9-point update reads (t, i-1, j+1) of this sweep, (t-1, i+1, j-1) of the last
    (SEIDEL, ("t", "i", "j"), ((1, 0, 0), (1, 1, 0), (2, 1, 1)), (2, 32, 64)),
    # the 5-point update: no diagonal neighbours, so j needs no i in its coordinate
    (SOR, ("it", "i", "j"), ((1, 0, 0), (1, 1, 0), (1, 0, 1)), (2, 32, 64)),
    (GS2, ("s", "i", "j"), ((1, 0, 0), (1, 1, 0), (1, 0, 1)), (2, 32, 64)),
    # 2 loops: the lanes take the sweeps, each walking i
    (GS1, ("s", "i"), ((1, 0), (1, 1)), (32, 64)),
])
def test_skews(path, loops, skew, sizes):
    sw, = _skewed(read_kernel(ROOT / path))
    assert tuple(v for v, _, _ in sw.loops) == loops and sw.skew == skew and sw.sizes == sizes


def _windows(k) -> list:
    """Each window as (array, subscripts before the last, first, last, written, from lane l - 1)."""
    sw, = _skewed(k, SHUFFLE)
    return [(w.array, w.rest, w.first, w.last, w.written, w.lane) for w in sw.windows]


def test_windows():
    # three rows of three cells: a step loads the column j + 1 of each, the middle row's j - 1
    # takes the value just written; lane l - 1 (row i - 1) wrote A[i - 1][j + 1] the step before
    assert _windows(read_kernel(ROOT / SEIDEL)) == [
        ("A", ("i - 1",), -1, 1, None, True), ("A", ("i",), -1, 1, 0, False), ("A", ("i + 1",), -1, 1, None, False)]
    # `u[i][j] += ...` reads u[i][j] too; the rows i - 1, i + 1 and f one cell each; the skew
    # (it, it + i, it + j) puts lane l - 1's cell at u[i - 1][j]
    assert _windows(read_kernel(ROOT / SOR)) == [("u", ("i",), -1, 1, 0, False), ("u", ("i - 1",), 0, 0, None, True),
                                                 ("u", ("i + 1",), 0, 0, None, False), ("f", ("i",), 0, 0, None, False)]
    # x[i - 1] and x[i + 1] around the written x[i]; lane l - 1, a sweep behind, wrote x[i + 1]
    assert ("x", (), -1, 1, 0, True) in _windows(read_kernel(ROOT / GS1))


def test_rows_named_another_way_stay_in_memory(tmp_path):
    k = c_kernel(tmp_path, """
void edge(int tsteps, int n, double u[n][n])
{
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = 0.25 * (u[i - 1][j] + u[i][j - 1] + u[i][j + 1] + u[0][j]);
}""")
    assert _windows(k) == [("u", ("i - 1",), 0, 0, None, True), ("u", ("i",), -1, 1, 0, False)]
    text = generate(k, SMALL)
    assert "u[(0 * n) + j]" in text
    accepted_on_emu(k, text)


def test_the_candidate_and_its_options():
    k = read_kernel(ROOT / SEIDEL)
    text = generate(k)
    assert "Skewed tiles: the dependences of the (t, i, j) band point forward in every coordinate of " \
           "(t, t + i, 2 * t + i + j)" in text
    device = text.split("_device(")[1]
    assert "for (tile_wave = 0; tile_wave <= " in device and "for (wave" not in device
    assert "__launch_bounds__(32)" in text and "__syncwarp();" in text
    sw, = _skewed(k, DEFAULT.replace({"wavefront.skewed.lanes": 64}))
    assert sw.sizes == (2, 64, 64)
    assert "__syncthreads();" in generate(k, DEFAULT.replace({"wavefront.skewed.lanes": 64}))
    assert "fill the windows" in text and "fill the windows" not in generate(k, DEFAULT.replace({"wavefront.skewed.window": False}))
    assert "__shfl_up_sync" not in text and "__shfl_up_sync" in generate(k, SHUFFLE)
    plain = generate(k, DEFAULT.replace({"wavefront.skewed": None}))
    assert "tile_wave" not in plain and "host loop wave: a wavefront" in plain


def test_what_stays(tmp_path):
    # a 2-d dynamic program needs no skew: T x T tiles as before (TileWave)
    assert not _skewed(read_kernel(ROOT / "corpora/loops/rodinia/needleman_wunsch.c"))
    # nussinov's wavefront: its statements lie in loops of different depths; the plan says so
    k = read_kernel(ROOT / "corpora/polybench/medley/nussinov/nussinov.c")
    assert not _skewed(k)
    assert "Skewed tiles: the wavefront's band keeps a launch per diagonal of cells: its statements lie " \
           "in different loops." in generate(k)
    # Jacobi steps (a statement per array, no band of one box): time tiles, not skewed tiles
    assert not _skewed(read_kernel(ROOT / "corpora/polybench/stencils/jacobi-1d/jacobi-1d.c"))
    # a sweep over a triangle: its rows move with i, no box
    k = c_kernel(tmp_path, """
void tri(int tsteps, int n, double u[n][n])
{
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < i; j++)
        u[i][j] = 0.5 * (u[i - 1][j] + u[i][j - 1]) + 0.1 * u[i + 1][j + 1];
}""")
    assert not _skewed(k)


@pytest.mark.parametrize("path", [SEIDEL, SOR, GS1, GS2])
def test_candidates_on_the_emu(path):
    k = read_kernel(ROOT / path)
    text = generate(k, SMALL)
    assert "Skewed tiles" in text
    accepted_on_emu(k, text)


def test_64_lanes_on_the_emu():
    k = read_kernel(ROOT / GS1)
    card = ladder(k, generate(k, DEFAULT.replace({"wavefront.skewed.lanes": 64, "wavefront.skewed.walk": 16})),
                  backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


#: without the shuffle: the emu takes a warp's shuffle for a barrier of the warp (CUDA promises
#: no memory order there), so the missing barrier shows only where lanes meet through memory alone
APART = SMALL.replace({"wavefront.skewed.shuffle": False})
MUTANTS = {   # each breaks one ordering the walk needs: (old, new, options)
    "the barrier between two steps": ("    __syncwarp();\n", "", APART),
    "the lanes one step apart": ("const int poly_r = poly_step - (int)threadIdx.x;", "const int poly_r = poly_step;", SMALL),
    "the written value forwarded": ("poly_w1_m1 = poly_v;", "poly_w1_m1 = poly_w1_p0;", SMALL),
    "the windows filled on a new row": ("if (!(poly_r % 8 > 0 && j - 1 >= 1))", "if (poly_r == 0)", SMALL),
    "the value of another lane": ("__shfl_up_sync(0xffffffffu, poly_v, 1)", "__shfl_up_sync(0xffffffffu, poly_v, 2)", SMALL),
    "a warp's first lane shuffled": (" && (threadIdx.x & 31) != 0;", ";", SMALL),
}


@pytest.mark.parametrize("mutant", MUTANTS)
def test_the_emu_catches_a_walk_out_of_order(mutant):
    k = read_kernel(ROOT / SEIDEL)
    old, new, options = MUTANTS[mutant]
    mutant_rejected_on_emu(k, generate(k, options), (old, new), "MINI", r"race|mismatch|bad element")
