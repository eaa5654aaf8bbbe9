"""The one-thread candidate (cuda.sequential_candidate): the reference as written, in one GPU thread.

Class: kernels the polyhedral model cannot read because a `return` leaves them early (inside a
loop, under a data-dependent branch): the candidate must leave where the reference leaves, with
or without a result. And kernels outside the model with local arrays of two or more dimensions
(a `while` loop, a call passing them to the file's own helper): the renderer indexes them flat,
so they are declared flat, initializers and all."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.generators.poly import generate

EARLY = {
    "first_signed": """\
int first_signed(int n, const double *x, double t)
{
    for (int i = 0; i < n; i++) {
        if (x[i] > t)
            return 2 * i + 1;
        if (x[i] < -t)
            return -2 * i;
    }
    return -1;
}
""",
    "copy_until_negative": """\
/* t2c: array y[n] inout */
void copy_until_negative(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        if (x[i] < -0.5f)
            return;
        y[i] = 2.0f * x[i];
    }
}
""",
}


@pytest.mark.parametrize("name", sorted(EARLY))
def test_an_early_return_leaves_the_one_thread_candidate(tmp_path, name):
    k = c_kernel(tmp_path, EARLY[name], name)
    text = generate(k)
    assert "runs in one GPU thread" in text and "return;" in text
    assert "a return under an if (where the kernel stops depends on the condition)" in text
    accepted_on_emu(k, text)


LOCAL_TABLES = """\
/* t2c: size n MINI=10 SMALL=100 MEDIUM=1000 LARGE=10000 EXTRALARGE=100000
 * t2c: array y[n] inout
 */
static void fill(double a[4][4], double v)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] = v * (i + j);
}
void local_tables(int n, double *y)
{
    double w[2][3] = {{1, 2}, {4, 5, 6}};
    double t[4][4];
    fill(t, 0.5);
    int i = 0;
    while (i < n && y[i] > -0.5) {
        y[i] = t[1][2] + y[i] * w[0][2] + w[1][1];
        i++;
    }
}
"""


def test_local_arrays_of_the_one_thread_candidate_are_declared_flat(tmp_path):
    k = c_kernel(tmp_path, LOCAL_TABLES, "local_tables")
    text = generate(k)
    assert "local_tables_sequential<<<1, 1>>>" in text
    assert "double w[2 * 3] = {1, 2, 0, 4, 5, 6};" in text     # the row given in part: C's zero
    assert "double t[4 * 4];" in text and "fill(t, 0.5);" in text
    assert "y[i] = (t[(1 * 4) + 2] + (y[i] * w[(0 * 3) + 2])) + w[(1 * 3) + 1];" in text
    assert "static __device__ void fill(double *a, double v)" in text
    accepted_on_emu(k, text)
