"""Counted while loops (analysis/whiles.py): `v = lo; while (v < hi) { ...; v++; }` is the for loop
`for (v = lo; v < hi; v++)` where that is the same loop (v stepped only last, no continue, nothing
else names v): its plan has the forms of the for loop (a grid, a reduction) instead of one thread.
"""
import pytest

from t2c.analysis import analyze
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2ctest import accepted_on_emu, c_kernel

HEAD = """\
/* t2c: size n MINI={n} SMALL=4000
 * t2c: size m MINI=9 SMALL=300
 * t2c: array v[n] inout
 * t2c: array a[n][m] in
 */
"""

SCALE = """\
void scale_while(int n, int m, double s, double *v, const double a[n][m])
{
  int i = 0;
  while (i < n) {
    v[i] *= s;
    i++;
  }
}
"""

EVEN = """\
void even_while(int n, int m, double *v, const double a[n][m])
{
  int i;
  i = 1;
  while (i <= n - 1) {
    v[i] = v[i] + a[i][0];
    i = i + 2;
  }
}
"""

ROWS = """\
void rows_while(int n, int m, double *v, const double a[n][m])
{
  for (int i = 0; i < n; i++) {
    double t = 0.0;
    int j = m - 1;
    while (j >= 0) {
      t += a[i][j];
      j -= 1;
    }
    v[i] = t;
  }
}
"""

KERNELS = {"scale": SCALE, "stride2": EVEN, "rows": ROWS}


@pytest.mark.parametrize("name", KERNELS)
def test_a_counted_while_loop_has_the_plan_of_its_for_loop(tmp_path, name):
    k = c_kernel(tmp_path, HEAD.format(n=40) + KERNELS[name])
    an = analyze(k)
    assert not [s for s in an.program.statements if type(s.node).__name__ == "While"]
    _, plan = final_plan(an, DEFAULT)
    assert plan.launches and all(launch.grid or launch.reduction for launch in plan.launches)


@pytest.mark.parametrize("name,n", [("scale", 1), ("scale", 40), ("stride2", 2), ("stride2", 41), ("rows", 7)])
def test_a_counted_while_loop_computes_what_the_reference_does(tmp_path, name, n):
    k = c_kernel(tmp_path, HEAD.format(n=n) + KERNELS[name])
    text = generate(k)
    assert "<<<1, 1>>>" not in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("body", [
    "while (i < n) {\n    v[i] = 0.0;\n    i++;\n  }\n  v[0] = i;",                     # read after the loop
    "while (i < n) {\n    v[i] = 0.0;\n    if (v[i] > 1.0) continue;\n    i++;\n  }",  # a continue skips the step
    "while (i < n) {\n    i++;\n    v[i - 1] = 0.0;\n  }",                              # stepped before the end
    "double d = 0;\n  while (d < n) {\n    v[0] += d;\n    d++;\n  }",                  # not an integer
])
def test_a_while_loop_that_is_not_its_for_loop_stays_one(tmp_path, body):
    k = c_kernel(tmp_path, HEAD.format(n=40) + f"""\
void f(int n, int m, double *v, const double a[n][m])
{{
  int i = 0;
  {body}
}}
""")
    assert "while loops have no affine iteration domain" in generate(k)
