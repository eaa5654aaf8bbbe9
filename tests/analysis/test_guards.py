"""Early returns on sizes (analysis/guards.py): `if (n <= 0) return;` at the head of a kernel,
which no size the constraints allow takes, is dropped before the model, so the loops after it
have their plan (a grid, a reduction) instead of one thread; a guard that valid sizes take stays
and the candidate's header names the constraint that would drop it."""
import pytest

from t2c.analysis import NotAffine, analyze, build_program
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2ctest import accepted_on_emu, c_kernel

GUARDED = {
    "saxpy_guard": """\
void saxpy_guard(const int n, const float a, const float *restrict x, float *restrict y)
{
    if (n <= 0) return;
    for (int i = 0; i < n; ++i)
        y[i] += a * x[i];
}
""",
    "smooth_guard": """\
/* t2c: constraint n >= 2 */
void smooth_guard(long n, const double *x, double *y)
{
    if (n < 2)
        return;
    y[0] = x[0];
    for (long i = 1; i < n - 1; i++)
        y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
    y[n - 1] = x[n - 1];
}
""",
    "sum_guard": """\
/* t2c: array a[n][m] in */
double sum_guard(int n, int m, const double *a)
{
    if (n == 0 || !m) { return 0.0; }
    if (!(n >= 1 && m > 0))
        return -1.0;
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += a[i * m + j];
    return s;
}
""",
}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_guard_no_valid_size_takes_is_dropped(tmp_path, name):
    k = c_kernel(tmp_path, GUARDED[name], name)
    an = analyze(k)
    _, plan = final_plan(an, DEFAULT)
    assert any(launch.grid or launch.reduction or launch.sweep for launch in plan.launches)
    text = generate(k)
    assert "runs in one GPU thread" not in text
    accepted_on_emu(k, text)


def test_a_guard_valid_sizes_take_is_kept_and_named(tmp_path):
    k = c_kernel(tmp_path, GUARDED["saxpy_guard"].replace("n <= 0", "n < 3"), "saxpy_guard")
    with pytest.raises(NotAffine, match=r"line 3: the early return under `n < 3` is taken .*`t2c: constraint"):
        build_program(k)
    text = generate(k)
    assert "runs in one GPU thread" in text
    accepted_on_emu(k, text)
