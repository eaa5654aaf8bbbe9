"""Loops of a constant step other than +-1 (issue #35): the model counts them (model._Builder.counted).

`for (v = lo; v < hi; v += s)` (`<=`, `v = v + s`, and the descending `v -= s` with `>`, `>=`)
is the unit-step loop `v = 0; v < (hi - lo + s - 1) / s; v++` whose body reads `lo + s * v`:
its plan has the forms of any unit-step loop (a grid, a reduction), and the candidate computes
what the reference does, the last iteration included when s does not divide hi - lo.
"""
import pytest

from t2c.analysis import analyze, build_program
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2ctest import accepted_on_emu, c_kernel

STRIDE2 = """\
/* t2c: size n MINI={n} SMALL=4001
 * t2c: array a[n] in
 * t2c: array b[n] inout
 */
void scale_even(int n, const double *a, double *b)
{{
  for (int i = 0; i < n; i += 2)
    b[i] = 2.0 * a[i];
}}
"""

DESCENDING = """\
/* t2c: size n MINI={n} SMALL=4001
 * t2c: array a[n] in
 * t2c: array b[n] inout
 */
void back3(int n, const double *a, double *b)
{{
  int i;
  for (i = n - 1; i > 0; i -= 3)
    b[i] = a[i] + a[i - 1];
}}
"""

REDUCE3 = """\
/* t2c: size n MINI={n} SMALL=4001
 * t2c: array a[n] in
 */
double sum_third(int n, const double *a)
{{
  double s = 0.0;
  for (int i = 1; i <= n - 1; i = i + 3)
    s += a[i];
  return s;
}}
"""

DOWNSAMPLE = """\
/* t2c: size h MINI={n} SMALL=129
 * t2c: size w MINI=11 SMALL=161
 * t2c: array a[h][w] in
 * t2c: array out[(h + 1) / 2][(w + 1) / 2] out
 */
void downsample2(int h, int w, const float a[h][w], float out[(h + 1) / 2][(w + 1) / 2])
{{
  for (int i = 0; i < h; i += 2)
    for (int j = 0; j < w; j += 2)
      out[i / 2][j / 2] = 0.5f * (a[i][j] + a[i + 1 < h ? i + 1 : i][j]);
}}
"""

COLUMNS4 = """\
/* t2c: size n MINI=5 SMALL=300
 * t2c: size m MINI={n} SMALL=301
 * t2c: array a[n][m] in
 * t2c: array b[n][m] inout
 */
void every_fourth_column(int n, int m, const double *a, double *b)
{{
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j += 4)
      b[i * m + j] = a[i * m + j] - a[i * m + j - 1];
}}
"""

KERNELS = {"stride2": STRIDE2, "descending3": DESCENDING, "reduce3": REDUCE3, "downsample": DOWNSAMPLE,
           "columns4": COLUMNS4}


def _grid_plan(k) -> None:
    an = analyze(k)
    loops = list(an.program.body)
    while loops:                                   # every loop of the model steps by one from 0
        l = loops.pop()
        if hasattr(l, "var"):
            assert l.step == 1 and l.lower == "0" and l.next == f"{l.var}++", (l.var, l.init, l.cond, l.next)
            loops.extend(l.body)
    _, plan = final_plan(an, DEFAULT)
    assert plan.launches and all(launch.grid or launch.reduction for launch in plan.launches)


@pytest.mark.parametrize("name", KERNELS)
def test_a_strided_loop_has_a_parallel_plan(tmp_path, name):
    _grid_plan(c_kernel(tmp_path, KERNELS[name].format(n=41)))


def test_the_stride3_sum_is_a_reduction_over_its_counted_loop(tmp_path):
    k = c_kernel(tmp_path, REDUCE3.format(n=41))
    _, plan = final_plan(analyze(k), DEFAULT)
    red, = [launch.reduction for launch in plan.launches if launch.reduction]
    assert [(l.var, l.lower, l.step) for l in red.loops] == [("i", "0", 1)]
    assert "s += a[1 + (3 * i)];" in generate(k)


@pytest.mark.parametrize("name,n", [("stride2", 1), ("stride2", 41), ("descending3", 2), ("descending3", 40),
                                    ("reduce3", 2), ("reduce3", 41), ("downsample", 7), ("columns4", 3),
                                    ("columns4", 10)])
def test_a_strided_loop_computes_what_the_reference_does(tmp_path, name, n):
    """MINI sizes below the step and not a multiple of it: the last, partial step runs too."""
    k = c_kernel(tmp_path, KERNELS[name].format(n=n))
    text = generate(k)
    assert "<<<1, 1>>>" not in text
    accepted_on_emu(k, text)


def test_the_reference_keeps_its_strided_loop(tmp_path):
    k = c_kernel(tmp_path, STRIDE2.format(n=41))
    build_program(k)
    assert "i += 2" in k.reference


@pytest.mark.parametrize("body", [
    "for (i = 0; i < n; i += 2)\n    b[i] = a[i];\n  b[0] = a[i - 2];",       # read after the loop
    "for (i = 0; i < n; i += 2) {\n    b[i] = a[i];\n    i += k;\n  }",      # written inside
    "for (i = 0; i < n; i += k)\n    b[i] = a[i];",                          # not a constant
])
def test_a_strided_loop_is_refused_as_before_where_its_count_is_not_the_loop(tmp_path, body):
    k = c_kernel(tmp_path, f"""\
/* t2c: size n MINI=41
 * t2c: constraint n >= 2
 * t2c: array a[n] in
 * t2c: array b[n] inout
 */
void f(int n, int k, const double *a, double *b)
{{
  int i;
  {body}
}}
""")
    assert "loop step of 'i' is not +1 or -1" in generate(k)


def test_a_strided_loop_over_a_double_is_refused_as_before(tmp_path):
    k = c_kernel(tmp_path, """\
/* t2c: size n MINI=41
 * t2c: array b[n] inout
 */
void f(int n, double *b)
{
  for (double x = 0; x < n; x += 2)
    b[0] += x;
}
""")
    assert "loop step of 'x' is not +1 or -1" in generate(k)
