"""Rows kept in registers (rows.kept_rows, `reductions.row_registers`): in a block-per-row launch
(phases.py), an input array that several loop phases read at the row's cell `A[row, j]`, whose
loops start at different indices so that shared memory does not hold it (held_rows), is read once
per row into each thread's registers (elements j = t + u * blockDim.x, u < 8) and the phases take
their elements from there, 128 threads a row where the rows fit (else 256).  The class on the loops corpus (cross-entropy) and on C kernels written here;
refusals; the emu with rows shorter than a block, and longer than the kept part."""
import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

# a row's range: its smallest value from column 1 on, then the sum of each value's distance to it
SPREAD = """/* t2c: size n MINI=6 SMALL=64 MEDIUM=512 LARGE=4096 EXTRALARGE=8192 */
/* t2c: size m MINI=9 SMALL=300 MEDIUM=1000 LARGE=1000 EXTRALARGE=1000 */
void spread(int n, int m, const double a[n][m], double out[n])
{
  for (int i = 0; i < n; i++) {
    double lo = a[i][0];
    for (int j = 1; j < m; j++)
      lo = fmin(lo, a[i][j]);
    double s = 0.0;
    for (int j = 0; j < m; j++)
      s += a[i][j] - lo;
    out[i] = s;
  }
}
"""

# the second phase reads the row only where a condition holds, over a range not spelled as the
# row's extent: its loads might leave the row, so no register copy (the corpus's softmax reads
# under a condition over `j < cols`, and is kept)
GUARDED = SPREAD.replace("void spread", "void guarded").replace(
    "for (int j = 0; j < m; j++)\n      s += a[i][j] - lo;", "for (int j = 0; j < m - 1; j++)\n      if (a[i][j] > lo)\n        s += a[i][j] - lo;")


def _plan(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return plan


def _phases(k, options=DEFAULT):
    (launch,) = [l for l in _plan(k, options).launches if l.phases]
    return launch.phases


@pytest.mark.parametrize("source", ["cross_entropy", "softmax", "spread"])
def test_a_row_that_two_phases_read_from_different_starts_is_kept_in_registers(source, tmp_path):
    k = c_kernel(tmp_path, SPREAD) if source == "spread" else read_kernel(ROOT / f"corpora/loops/gpu/{source}.c")
    rp = _phases(k)
    (kept,) = rp.kept
    assert (kept.array, kept.count, len(kept.readers)) == (("a" if source == "spread" else "x"), 8, 2)
    assert rp.fits.endswith("<= 1024") and not rp.held
    text = generate(k)
    assert f"double poly_r_{kept.array}[8];" in text and "_rows<<<" in text
    # the kept kernel asks for REG_BLOCKS blocks a multiprocessor; the kernel without registers does not
    assert rp.per_sm == 10 and "__launch_bounds__(128, 10)" in text and "__launch_bounds__(256) " in text
    assert "j >= 1 && j < " in text          # the first phase keeps to its own range


def test_off_the_rows_are_read_by_each_phase(tmp_path):
    rp = _phases(c_kernel(tmp_path, SPREAD), DEFAULT.replace({"reductions.row_registers": None}))
    assert rp.kept == () and rp.fits == "" and rp.per_sm == 0
    assert "poly_r_" not in generate(c_kernel(tmp_path, SPREAD), DEFAULT.replace({"reductions.row_registers": None}))


def test_a_conditional_read_and_a_held_row_are_not_kept(tmp_path):
    assert _phases(c_kernel(tmp_path, GUARDED)).kept == ()
    rp = _phases(read_kernel(ROOT / "corpora/loops/gpu/layernorm.c"))
    assert rp.held and not rp.kept and rp.fits == ""


@pytest.mark.parametrize("path", ["corpora/loops/gpu/cross_entropy.c", "corpora/loops/gpu/softmax.c", None])
def test_the_kernels_are_accepted_on_emu(path, tmp_path):
    k = read_kernel(ROOT / path) if path else c_kernel(tmp_path, SPREAD)
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("m", [5, 1100, 2100], ids=["a row shorter than the block", "a row past 128 threads' registers",
                                                     "a row past 256 threads' registers"])
def test_outputs_match_the_reference(m, tmp_path):
    """The minimum is exact; the sums are regrouped per thread as any block fold regroups them."""
    k = c_kernel(tmp_path, SPREAD)
    sizes = {"n": 3, "m": m}
    ref = run_reference(k, sizes, synthesize(k, sizes, 7))
    run = run_candidate(k, build_candidate(k, generate(k), "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.allclose(run.outputs["out"], ref.outputs["out"], rtol=1e-12, atol=0)
