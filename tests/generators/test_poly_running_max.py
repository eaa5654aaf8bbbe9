"""A maximum of running sums (Kadane) as an ordered reduction of tuples (issue #35; poly/kadane.py).

max_running_sum ran on one GPU thread; it becomes blocks that fold contiguous chunks into
(sum, best prefix, best suffix, best) tuples and one block that combines them in order.  Read
from the plan (`running_max_of`), accepted by the emu ladder at MINI, on several blocks, in a
mirror form, and refused where the form does not hold: those stay one thread and correct."""
import pytest

from t2ctest import ROOT, accepted_on_emu as _accepted, c_kernel as _kernel, plan_records
from t2c.frontends.c import read_c
from t2c.ir.csyntax import cprint
from t2c.generators.poly import generate
from t2c.generators.poly.kadane import running_max_of

ONE_THREAD = "nothing here is parallel"
KADANE = "a maximum of running sums (Kadane)"


def _records(k):
    return plan_records(k, running_max_of)


def _record(rm):
    return (rm.run, rm.best, rm.loop.var, cprint(rm.value), rm.dtype, len(rm.inits), len(rm.fins))


def test_max_running_sum_is_a_running_max():
    k = read_c(ROOT / "corpora" / "loops" / "vectorizer" / "max_running_sum.c")
    assert [_record(r) if r else None for r in _records(k)] == [("run", "m", "i", "a[i]", "double", 2, 1)]
    text = generate(k)
    assert ONE_THREAD not in text and KADANE in text
    assert "_part<<<poly_parts, 256>>>" in text and "_final<<<1, 256>>>" in text
    _accepted(k, text)


def _source(step: str, keep: str, extra: str = "", mini: int = 3000) -> str:
    return f"""/* class: affine
 * t2c: size n MINI={mini} SMALL=4000
 * t2c: array a[n] in
 * t2c: array w[n] in
 * t2c: array out[2] out
 * t2c: domain a uniform(-1, 1)
 * t2c: domain w uniform(0.5, 1.5)
 */
void k(int n, const double *a, const double *w, double *out)
{{
  double run = 0.0, m = a[0] * w[0];
  for (int i = 1; i < n; i++) {{
    {step}
    {keep}{extra}
  }}
  out[0] = m;
  out[1] = run;
}}
"""


@pytest.mark.parametrize("step, keep", [
    ("run = a[i] * w[i] >= run + a[i] * w[i] ? a[i] * w[i] : run + a[i] * w[i];", "if (m < run) m = run;"),
    ("run = fmax(a[i] * w[i], a[i] * w[i] + run);", "m = fmax(m, run);"),
])
def test_several_blocks_and_mirror_forms(tmp_path, step, keep):
    """MINI = 3000: 12 blocks; the loop's final run is read too (out[1])."""
    k = _kernel(tmp_path, _source(step, keep))
    assert [_record(r) if r else None for r in _records(k)] == [("run", "m", "i", "a[i] * w[i]", "double", 2, 2)]
    text = generate(k)
    assert ONE_THREAD not in text and KADANE in text
    _accepted(k, text)


def test_an_empty_loop_still_runs_the_statements_around_it(tmp_path):
    k = _kernel(tmp_path, _source("run = run + a[i] > a[i] ? run + a[i] : a[i];", "if (run > m) m = run;", mini=1))
    text = generate(k)
    assert KADANE in text
    _accepted(k, text)


@pytest.mark.parametrize("step, keep, extra", [
    ("run = run + a[i] > a[i] * run ? run + a[i] : a[i] * run;", "if (run > m) m = run;", ""),   # E reads run
    ("run = run + a[i] > a[i] ? run + a[i] : a[i];", "if (run > m) m = run;", "\n    out[0] = m;"),
    ("run = run + a[i] > a[i] ? run + a[i] : w[i];", "if (run > m) m = run;", ""),   # not max(run + E, E)
])
def test_other_forms_stay_one_thread(tmp_path, step, keep, extra):
    k = _kernel(tmp_path, _source(step, keep, extra, mini=40))
    assert not any(_records(k))
    text = generate(k)
    assert KADANE not in text
    _accepted(k, text)
