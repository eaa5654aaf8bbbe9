"""An inner loop that declares its outer loop's variable again (`for (int i ...)` inside a loop
over i: legal C, the inner i hides the outer) is read as two variables (scopes.separate_reused_names
renames the inner one for the model); before, the frontend's extent pass and isl's space both
failed on the repeated name with an internal error."""
from t2ctest import accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

SHADOW = """
void repeat_fill(int n, int m, const double *b, double *a)
{
  for (int i = 0; i < n; i++)
    for (int i = 0; i < m; i++)
      a[i] = 2.0 * b[i];
}
"""


def test_an_inner_loop_hiding_its_outer_loops_name_gets_a_grid(tmp_path):
    k = c_kernel(tmp_path, SHADOW, "repeat_fill")
    _, plan = final_plan(analyze(k), DEFAULT)
    assert any(launch.grid for launch in plan.launches)
    accepted_on_emu(k, generate(k))
