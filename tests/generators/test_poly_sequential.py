"""The one-thread candidate (cuda.sequential_candidate): the reference as written, in one GPU thread.

Class: kernels the polyhedral model cannot read because a `return` leaves them early (inside a
loop, under a data-dependent branch): the candidate must leave where the reference leaves, with
or without a result."""
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
