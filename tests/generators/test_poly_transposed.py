"""Transposed launches (transposed.py, `grid.transpose`): a loop-free 2-d (or batched 3-d) launch
whose written references are contiguous along one grid index and which reads another array
contiguous along the other (`B[j][i] = A[i][j]`) stages those reads through 32 x 32 shared
tiles, x on the writes' contiguous index.  The class on the loops corpus, a spec, a C statement
that combines the transposed read with a direct one, one reading an array in both orders, a
batched 16-bit spec; refusals; the kernels on the emu (whole ladder at MINI; outputs with a cap of 2 blocks on y and z)."""
import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.ir.csyntax import cprint
from t2c.runtime.target import Target
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

COMBINED = """/* t2c: size n MINI=24 SMALL=70 MEDIUM=700 LARGE=4000 EXTRALARGE=8000 */
/* t2c: size m MINI=20 SMALL=50 MEDIUM=500 LARGE=3000 EXTRALARGE=6000 */
void tsum(int n, int m, double alpha, const double A[n][m], const double C[m][n], double B[m][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[j][i] = alpha * A[i][j] + C[j][i];
}
"""

BATCHED = """---
name: batch_transpose_fp16
sizes:
  b: {MINI: 3, SMALL: 4, MEDIUM: 8, LARGE: 16, EXTRALARGE: 32}
  n: {MINI: 9, SMALL: 40, MEDIUM: 256, LARGE: 1024, EXTRALARGE: 2048}
  m: {MINI: 7, SMALL: 33, MEDIUM: 200, LARGE: 1000, EXTRALARGE: 2000}
arrays:
  A: float16[b, n, m] in
  B: float16[b, m, n] out
---
# A batch of transposes in half precision

```t2c
B[p, j, i] = A[p, i, j]
```
"""

SYMMETRIZED = """/* t2c: size n MINI=24 SMALL=70 MEDIUM=700 LARGE=4000 EXTRALARGE=8000 */
void sym(int n, const float A[n][n], float B[n][n])
{
  for (int i = 1; i < n - 1; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = 0.5f * (A[i][j] + A[j][i]);
}
"""

ELEMENTWISE = """/* t2c: size n MINI=24 SMALL=70 MEDIUM=700 LARGE=4000 EXTRALARGE=8000 */
void copy2(int n, const double A[n][n], double B[n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = A[i][j];
}
"""

TRIANGLE = """/* t2c: size n MINI=24 SMALL=70 MEDIUM=700 LARGE=4000 EXTRALARGE=8000 */
void lower(int n, const double A[n][n], double B[n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      B[j][i] = A[i][j];
}
"""


def _kernel(which, tmp_path):
    if which == "combined":
        return c_kernel(tmp_path, COMBINED, "tsum")
    if which == "symmetrized":
        return c_kernel(tmp_path, SYMMETRIZED, "sym")
    if which == "batched":
        path = tmp_path / "batch_transpose_fp16.md"
        path.write_text(BATCHED)
        return read_kernel(path)
    return read_kernel(ROOT / which)


def _launches(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return plan.launches


@pytest.mark.parametrize("which, reads, x, y", [
    ("corpora/loops/gpu/transpose.c", ["a[i][j]"], "i", "j"),
    ("corpora/text2cuda/transpose.md", ["A[i][j]"], "i", "j"),
    ("combined", ["A[i][j]"], "i", "j"),
    ("batched", ["A[p][i][j]"], "i", "j"),
    ("symmetrized", ["A[j][i]"], "j", "i"),                     # one array read in both orders
])
def test_a_read_in_the_other_order_goes_through_shared_tiles(which, reads, x, y, tmp_path):
    launch, = _launches(_kernel(which, tmp_path))
    assert launch.transposed is not None
    assert [cprint(r.node) for r in launch.transposed.reads] == reads
    assert launch.axes[x] == "x" and launch.axes[y] == "y"       # x on the writes' contiguous index
    assert launch.block[:2] == (32, 8) and launch.per_thread() == (4, 1)
    assert launch.coarsen == 1 and launch.tile is None
    if which == "batched":
        assert launch.axes["p"] == "z" and launch.block == (32, 8, 1)
        assert launch.transposed.reads[0].dtype == "__half"


def test_off_the_plain_launch_keeps_its_coarsened_form():
    k = read_kernel(ROOT / "corpora/loops/gpu/transpose.c")
    launch, = _launches(k, DEFAULT.replace({"grid.transpose": False}))
    assert launch.transposed is None and launch.coarsen == DEFAULT.grid.coarsen


@pytest.mark.parametrize("text", [ELEMENTWISE, TRIANGLE], ids=["same order", "not a box"])
def test_launches_outside_the_class_are_not_transposed(text, tmp_path):
    assert all(l.transposed is None for l in _launches(c_kernel(tmp_path, text)))


@pytest.mark.parametrize("which", ["corpora/loops/gpu/transpose.c", "corpora/text2cuda/transpose.md",
                                   "combined", "batched", "symmetrized"])
def test_the_transposed_kernel_is_accepted_on_emu(which, tmp_path):
    k = _kernel(which, tmp_path)
    text = generate(k, DEFAULT)
    assert "__shared__" in text and "__syncthreads();" in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("which", ["corpora/loops/gpu/transpose.c", "batched"])
def test_blocks_striding_past_a_small_cap_reuse_the_tiles_after_a_barrier(which, tmp_path):
    """With at most 2 blocks on y and z each block takes several tiles in turn (uneven sizes)."""
    k = _kernel(which, tmp_path)
    text = generate(k, DEFAULT, Target(max_grid_yz=2))
    assert "poly_cap(poly_blocks_y, 2)" in text
    sizes = {"corpora/loops/gpu/transpose.c": {"n": 70, "m": 150}, "batched": {"b": 5, "n": 40, "m": 100}}[which]
    ref = run_reference(k, sizes, synthesize(k, sizes, 5))
    run = run_candidate(k, build_candidate(k, text, "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    for array, want in ref.outputs.items():
        assert np.array_equal(run.outputs[array], want), array       # a copy: the same bits
