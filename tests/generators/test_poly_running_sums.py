"""Triangular sums as running sums (running.py): `y[i] = sum(k < i: x[k])`, the C nest `s = 0; for
(k = 0; k <= i; k++) s += x[k]; y[i] = s;`, per row `Y[r, j] = sum(k < j: X[r, k])`, added by each
thread i over x[0..i) (O(n^2)); carried across i instead, they take the scan and row-scan forms.
A sum whose terms read i (trmv) or the target, or whose range does not grow with i, keeps its form.
Read from the plan, accepted by the emu ladder."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

EXCLUSIVE_SPEC = """---
name: exclusive_scan
sizes:
  n: {MINI: 33, SMALL: 65536}
arrays:
  x: int[n] in
  y: int[n] out
domains:
  x: integers(0, 9)
---
# Exclusive prefix sum

```t2c
y[i] = sum(k < i: x[k])
```
"""

INCLUSIVE_SPEC = EXCLUSIVE_SPEC.replace("exclusive_scan", "inclusive_scan").replace("k < i", "k <= i") \
    .replace("int[n]", "double[n]").replace("domains:\n  x: integers(0, 9)\n", "")

ROWS_SPEC = """---
name: row_exscan
sizes:
  m: {MINI: 5, SMALL: 300}
  n: {MINI: 37, SMALL: 1000}
arrays:
  X: float[m, n] in
  Y: float[m, n] out
---
# Exclusive prefix sums along rows

```t2c
Y[r, j] = sum(k < j: X[r, k])
```
"""

INCLUSIVE_C = """
void incl(int n, const float x[n], float y[n])
{
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k <= i; k++)
      s += x[k];
    y[i] = s;
  }
}
"""

FROM_ONE_C = """
void from1(int n, const double w[n], const double x[n], double y[n])
{
  for (int i = 1; i < n; i++) {
    double s = 0.5;
    for (int k = 0; k < i; k++)
      s = s + w[k] * x[k];
    y[i] = s;
  }
}
"""

ROWS_C = """
void rows(int m, int n, const double X[m][n], double Y[m][n])
{
  for (int r = 0; r < m; r++)
    for (int j = 0; j < n; j++) {
      Y[r][j] = 1.0;
      for (int k = 0; k < j + 1; k++)
        Y[r][j] = Y[r][j] + 2.0 * X[r][k];
    }
}
"""


def _kernel(source: str, tmp_path):
    if source.startswith("---"):
        path = tmp_path / f"{source.split('name: ')[1].split()[0]}.md"
        path.write_text(source)
        return read_kernel(path)
    if source.endswith((".c", ".md")):
        return read_kernel(ROOT / source)
    return c_kernel(tmp_path, source, source.split()[1].split("(")[0])


@pytest.mark.parametrize("source, form", [
    (EXCLUSIVE_SPEC, "scan"), (INCLUSIVE_SPEC, "scan"), (INCLUSIVE_C, "scan"),
    (FROM_ONE_C, "scan"),                        # the first range has one term; `if (1 <= n - 1)` guards it
    (ROWS_SPEC, "row_scan"), (ROWS_C, "row_scan"),
], ids=["exclusive-spec", "inclusive-spec", "inclusive-c", "from-one-c", "rows-spec", "rows-c"])
def test_a_triangular_sum_runs_as_a_scan(source, form, tmp_path):
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT)
    (launch,) = plan.launches
    assert getattr(launch, form) is not None
    assert any(n.startswith("Running sums:") for n in plan.notes)
    accepted_on_emu(k, generate(k))


TERM_OF_I = """
void window(int n, const double x[n], double y[n])
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = 0; k <= i; k++)
      s += x[k] * (i - k);
    y[i] = s;
  }
}
"""

READS_TARGET = """
void self(int n, const double x[n], double y[n])
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = 0; k < i; k++)
      s += y[k] + x[k];
    y[i] = s;
  }
}
"""

FIXED_RANGE = """
void fixed(int n, const double x[n], double y[n])
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = 0; k < n; k++)
      s += x[k];
    y[i] = s;
  }
}
"""

LATE_START = """
void late(int n, const double x[n], double y[n])
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = 2; k < i; k++)
      s += x[k];
    y[i] = s;
  }
}
"""


@pytest.mark.parametrize("source", [
    "corpora/loops/vectorizer/triangular_sum.c",  # L[i][j] * x[j]: a term of i (trmv), no scan
    TERM_OF_I, READS_TARGET, FIXED_RANGE,
    LATE_START,                                   # i = 0, 1, 2 have empty ranges: y[i] = y[i-1] + x[i-1] is wrong there
], ids=["triangular_sum", "term-of-i", "reads-target", "fixed-range", "late-start"])
def test_other_sums_keep_their_form(source, tmp_path):
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT)
    assert not any(l.scan or l.row_scan for l in plan.launches)
    assert not any(n.startswith("Running sums:") for n in plan.notes)


@pytest.mark.parametrize("source, off", [(INCLUSIVE_C, "scans.linear"), (ROWS_C, "scans.rows")],
                         ids=["linear", "rows"])
def test_without_the_scan_the_sum_keeps_its_form(source, off, tmp_path):
    """The rewrite serves the scan that takes the loop: with that form off, nothing changes."""
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT.replace({off: False if off == "scans.linear" else None}))
    assert not any(n.startswith("Running sums:") for n in plan.notes)
