"""Persistent loops (persistent.py, `launches.persistent`): a top-level host loop of plain grid
launches also runs as one cooperative launch, grid.sync() after each group of independent
launches, the launches where the device has none.  The plan's records on both C corpora and a
spec; the loops it refuses keep their launches and say why; the candidates on the emu (which
runs every block at once and orders them at grid.sync()) and through nvcc."""
import re
import shutil
import subprocess

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.mapping import HostLoop
from t2c.generators.poly.options import DEFAULT
from t2c.verify.ladder import ladder

ON = DEFAULT.replace({"launches.persistent": True})
#: the stencils here take time tiles by default (timetiles.py), lu blocks of pivots (pivotblocks.py),
#: which the persistent form refuses
PLAIN = DEFAULT.replace({"launches.time_tiles": None, "launches.pivot_blocks": None})
ON_PLAIN = ON.replace({"launches.time_tiles": None, "launches.pivot_blocks": None})
STENCILS = "corpora/polybench/stencils"


def _loops(k, options=ON) -> dict[str, HostLoop]:
    _, plan = final_plan(analyze(k), options)
    return {it.loop.var: it for it in plan.items if isinstance(it, HostLoop)}


def _groups(h: HostLoop) -> list[list[str]]:
    return [[l.name for l in g] for g in h.persistent.groups]


@pytest.mark.parametrize("path, groups", [
    (f"{STENCILS}/jacobi-2d/jacobi-2d.c", [["jacobi_2d_update_B"], ["jacobi_2d_update_A"]]),
    (f"{STENCILS}/heat-3d/heat-3d.c", [["heat_3d_update_B"], ["heat_3d_update_A"]]),
    # ey's first row, ey's other rows and ex touch no cell another writes in a step: one group
    (f"{STENCILS}/fdtd-2d/fdtd-2d.c", [["fdtd_2d_update_ey_1", "fdtd_2d_update_ey_2", "fdtd_2d_update_ex"],
                                       ["fdtd_2d_update_hz"]]),
    ("corpora/loops/rodinia/hotspot.c", [["hotspot_update_next"], ["hotspot_update_temp"]]),
    ("corpora/text2cuda/jacobi2d.md", [["jacobi2d_update_B"], ["jacobi2d_update_A"]]),
    # a pivot loop whose extents shrink with k: the pivot column, then the independent updates
    ("corpora/polybench/linear-algebra/solvers/lu/lu.c", [["lu_update_A_1"], ["lu_update_A_2", "lu_update_A_3"]]),
])
def test_a_time_loop_of_grid_launches_becomes_one_cooperative_launch(path, groups):
    k = read_kernel(ROOT / path)
    (h,) = [h for h in _loops(k, ON_PLAIN).values()]
    assert h.persistent is not None and h.not_persistent == ""
    assert _groups(h) == groups and h.persistent.threads == DEFAULT.grid.block_1d[0]
    (off,) = _loops(k, PLAIN).values()              # off by default: nothing recorded
    assert off.persistent is None and off.not_persistent == ""


@pytest.mark.parametrize("path, var, reason", [
    (f"{STENCILS}/jacobi-1d/jacobi-1d.c", "t", "it runs in time tiles (timetiles.py)"),
    (f"{STENCILS}/seidel-2d/seidel-2d.c", "tile_wave", "a wavefront: many short diagonals, a barrier of the whole grid each"),
    ("corpora/polybench/linear-algebra/solvers/gramschmidt/gramschmidt.c", "k", "gramschmidt_reduce_R: a reduction"),
    ("corpora/polybench/linear-algebra/solvers/cholesky/cholesky.c", "k", "it runs in blocks of pivots (pivotblocks.py)"),
])
def test_refused_loops_keep_their_launches_and_say_why(path, var, reason):
    """The loop keeps its plan; the candidate is the one without the option but for the
    header's line with the reason."""
    k = read_kernel(ROOT / path)
    h = _loops(k)[var]
    assert h.persistent is None and h.not_persistent == reason
    on, off = generate(k, ON), generate(k, DEFAULT)
    line = f"//   ... host loop {var} keeps a launch per iteration (no persistent launch): {reason}.\n"
    assert line in on and on.replace(line, "") == off and "cooperative" not in on


def test_host_loops_inside_the_loop_are_refused(tmp_path):
    k = c_kernel(tmp_path, """
void k(int ts, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < ts; t++)
    for (int s = 0; s < ts; s++) {
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
          B[i][j] = A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1];
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
          A[i][j] = B[i][j];
    }
}
""")
    h = _loops(k)["t"]
    assert h.persistent is None and h.not_persistent == "host loop s inside it"


def test_the_option_is_off_by_default_and_a_launch_move():
    from t2c.generators.evolve.moves import space
    assert DEFAULT.launches.persistent is False
    moves = {name: (kind, new) for kind, name, new in space(DEFAULT)}
    assert moves["launches.persistent on"] == ("launch", ON)


def test_the_kernel_runs_the_loop_with_a_grid_barrier_per_group_and_sizes_its_grid_from_the_device():
    text = generate(read_kernel(ROOT / f"{STENCILS}/fdtd-2d/fdtd-2d.c"), ON)
    kernel = text[text.index("__global__ void __launch_bounds__(256) fdtd_2d_persistent_t("):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert kernel.count("poly_grid.sync();") == 2             # two groups a step
    for part in ("ey_1", "ey_2", "ex", "hz"):
        assert kernel.count(f"fdtd_2d_update_{part}_at(") == 1
    host = text[text.index('extern "C" void kernel_fdtd_2d_device'):]
    for call in ("cudaDevAttrCooperativeLaunch", "cudaDevAttrMultiProcessorCount",
                 "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&poly_per_sm, fdtd_2d_persistent_t, 256, 0)",
                 "cudaLaunchCooperativeKernel((void *)fdtd_2d_persistent_t, dim3(poly_grid_blocks), dim3(256)"):
        assert call in host
    # the launches as before where the device has no cooperative launch
    fallback = host[host.index("} else {"):]
    assert "fdtd_2d_update_ey_1_merged" in fallback and "fdtd_2d_update_hz," in fallback


@pytest.mark.parametrize("path, changes", [
    (f"{STENCILS}/jacobi-1d/jacobi-1d.c", {"one_block": None, "launches.time_tiles": None}),   # not in one block
    (f"{STENCILS}/jacobi-2d/jacobi-2d.c", {"launches.time_tiles": None}),
    (f"{STENCILS}/heat-3d/heat-3d.c", {}),
    (f"{STENCILS}/fdtd-2d/fdtd-2d.c", {}),
])
def test_persistent_candidates_are_accepted_on_the_emu(path, changes):
    k = read_kernel(ROOT / path)
    text = generate(k, ON.replace(changes))
    assert "cudaLaunchCooperativeKernel" in text
    accepted_on_emu(k, text)


def test_the_emu_runs_the_cooperative_path_where_a_missing_barrier_is_caught():
    """Without the grid.sync() between B's update and A's, blocks read cells others are writing:
    the ladder rejects the candidate, so the accepted one ran the persistent kernel."""
    k = read_kernel(ROOT / f"{STENCILS}/jacobi-2d/jacobi-2d.c")
    text = generate(k, ON_PLAIN)
    first = text.index("    poly_grid.sync();")
    broken = text[:first] + text[text.index("\n", first) + 1:]
    assert not ladder(k, broken, backend="emu", dataset="MINI", seed=3).accepted


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("path", [f"{STENCILS}/jacobi-2d/jacobi-2d.c", f"{STENCILS}/fdtd-2d/fdtd-2d.c",
                                  *(pytest.param(p, marks=pytest.mark.full) for p in (
                                      f"{STENCILS}/heat-3d/heat-3d.c", "corpora/loops/rodinia/hotspot.c",
                                      "corpora/polybench/medley/floyd-warshall/floyd-warshall.c"))])
def test_nvcc_builds_the_persistent_candidates(tmp_path, path):
    text = generate(read_kernel(ROOT / path), ON_PLAIN)
    assert re.search(r"__global__ void __launch_bounds__\(256\) \w+_persistent_\w+\(", text), path
    src = tmp_path / "c.cu"
    src.write_text(text)
    proc = subprocess.run([shutil.which("nvcc"), "-arch=sm_90", "-c", str(src), "-o", str(tmp_path / "c.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, (path, proc.stderr[-2000:])
