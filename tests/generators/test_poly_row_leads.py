"""Row reductions whose loop reads scalars computed before it, or folds under an `if`
(reduce._lead, reduce._guarded): a multi-class hinge loss picks the row's label score, then sums
the margins of the other classes (`if (j != label[i]) s += ...`). The statements before the loop
that it reads (`picked`) run in every lane first, as the thread per row ran them; `if (P) s += e`
folds `P ? e : 0`, the sum's identity where P fails. Without either, a thread walked each row and
its reads were a row apart. Read from the plan, accepted by the emu ladder."""
import pytest
from pycparser import c_ast

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

THRESHOLDED = """
void above_mean(int n, int m, const double a[n][m], const double t[n], double out[n])
{
  for (int i = 0; i < n; i++) {
    double lo = 2.0 * t[i];
    double s = 0.0;
    for (int j = 0; j < m; j++)
      if (a[i][j] > lo)
        s += a[i][j] - lo;
    out[i] = s;
  }
}
"""

CAPPED = """
void capped_max(int n, int m, const float a[n][m], const int k[n], float out[n])
{
  for (int i = 0; i < n; i++) {
    int upto = k[i] < m ? k[i] : m;
    float best = -1.0f;
    for (int j = 0; j < m; j++)
      if (j < upto)
        best = fmaxf(best, a[i][j]);
    out[i] = best;
  }
}
"""


def _kernel(source, tmp_path):
    if source.endswith((".c", ".md")):
        return read_kernel(ROOT / source)
    return c_kernel(tmp_path, source, source.split()[1].split("(")[0])


CASES = ["corpora/loops/gpu/multi_margin_loss.c", THRESHOLDED, CAPPED]


@pytest.mark.parametrize("source,leads", list(zip(CASES, (2, 1, 1))), ids=["hinge", "threshold", "capped"])
def test_a_row_reading_scalars_set_before_its_loop_takes_lanes(source, leads, tmp_path):
    _, plan = final_plan(analyze(_kernel(source, tmp_path)), DEFAULT)
    (launch,) = plan.launches
    assert launch.row is not None and not launch.row.column
    assert len(launch.row.lead) == leads         # picked (its zero, its pick); lo; upto
    (acc,) = launch.row.accs
    assert isinstance(acc.part, c_ast.TernaryOp)  # the fold under `if`, with the identity where it fails
    assert all(n not in launch.row.pre for n in launch.row.lead)


@pytest.mark.parametrize("source", CASES, ids=["hinge", "threshold", "capped"])
def test_rows_with_leads_are_accepted(source, tmp_path):
    k = _kernel(source, tmp_path)
    accepted_on_emu(k, generate(k))
