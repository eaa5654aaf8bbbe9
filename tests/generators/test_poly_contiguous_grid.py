"""A band of more parallel loops than the grid has dimensions (mapping.contiguous_on_grid,
`loops.contiguous`): its last three go on the grid and the outer ones run in each thread, so the
contiguous loop stays on the grid (coalesced) instead of running inside each thread.  The class
on a spec (a 3-d max pool over channels) and a C kernel written here (a 4-d scaling); off; emu."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan

SCALE4 = """/* t2c: size n MINI=2 SMALL=3 MEDIUM=8 LARGE=16 EXTRALARGE=32 */
/* t2c: size c MINI=3 SMALL=5 MEDIUM=16 LARGE=64 EXTRALARGE=64 */
/* t2c: size h MINI=4 SMALL=9 MEDIUM=64 LARGE=128 EXTRALARGE=256 */
/* t2c: size w MINI=5 SMALL=17 MEDIUM=64 LARGE=128 EXTRALARGE=256 */
void scale4(int n, int c, int h, int w, const float x[n][c][h][w], const float s[c], float y[n][c][h][w])
{
  for (int b = 0; b < n; b++)
    for (int k = 0; k < c; k++)
      for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
          y[b][k][i][j] = x[b][k][i][j] * s[k];
}
"""


def _grid(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    (launch,) = [l for l in plan.launches if l.grid]
    return [l.var for l in launch.grid], launch.axes


@pytest.mark.parametrize("source, on, off", [
    ("maxpool3d", ["z", "y", "x"], ["ch", "z", "y"]),
    ("scale4", ["k", "i", "j"], ["b", "k", "i"]),
])
def test_the_contiguous_loop_stays_on_the_grid(source, on, off, tmp_path):
    k = read_kernel(ROOT / "corpora/text2cuda/maxpool3d.md") if source == "maxpool3d" else c_kernel(tmp_path, SCALE4)
    grid, axes = _grid(k)
    assert grid == on and axes[on[-1]] == "x"
    assert _grid(k, DEFAULT.replace({"loops.contiguous": False}))[0] == off


@pytest.mark.parametrize("source", ["maxpool3d", "scale4"])
def test_the_kernels_are_accepted_on_emu(source, tmp_path):
    k = read_kernel(ROOT / "corpora/text2cuda/maxpool3d.md") if source == "maxpool3d" else c_kernel(tmp_path, SCALE4)
    accepted_on_emu(k, generate(k))
