"""Bounds that divide a size by a constant (ir/extents.to_poly's quotients): a loop to `n / 2` or
`(h - 1) >> 1` over a pointer read at `i << 1` and `2 * i + 1` (downsampling, pairwise sums, the
even half of a signal) gets its pointers' extents with the quotient kept as written
(`2 * (n / 2)`), and poly maps the loop; a quotient that may be negative stays refused."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.errors import UserError
from t2c.generators.poly import generate

HALVES = {
    "pair_mean": ("""\
/* t2c: size n MINI=37 SMALL=3001 */
void pair_mean(int n, const float *x, float *y)
{
    for (int i = 0; i < n / 2; i++)
        y[i] = 0.5f * (x[i << 1] + x[2 * i + 1]);
}
""", {"x": ("2 * (n / 2)",), "y": ("(n / 2)",)}),
    "pool_rows": ("""\
/* t2c: size h MINI=9 SMALL=301
 * t2c: size w MINI=8 SMALL=200 */
void pool_rows(int h, int w, const double *in, double *out)
{
    for (int r = 0; r < (h - 1) >> 1; r++)
        for (int c = 0; c < w; c++)
            out[r * w + c] = in[(2 * r) * w + c] + in[(2 * r + 1) * w + c];
}
""", {"in": ("2 * ((h - 1) / 2)", "w"), "out": ("((h - 1) / 2)", "w")}),
}


@pytest.mark.parametrize("name", list(HALVES))
def test_a_halved_bound_gives_extents_and_a_parallel_candidate(name, tmp_path):
    text, shapes = HALVES[name]
    k = c_kernel(tmp_path, text, name)
    assert {a.name: a.shape for a in k.arrays} == shapes
    cu = generate(k)
    assert "one thread per" in cu and "in its original order" not in cu
    accepted_on_emu(k, cu)


def test_a_quotient_that_may_be_negative_is_no_extent(tmp_path):
    """(n - 5) / 2 is negative for n < 5: the extent is not inferred; the annotation is asked for."""
    with pytest.raises(UserError, match="cannot tell the extent of pointer parameter 'x'"):
        c_kernel(tmp_path, "/* t2c: size n */\nvoid f(int n, const float *x, float *y)\n{\n"
                 "    for (int i = 0; i < (n - 5) / 2; i++)\n        y[i] = x[2 * i];\n}\n", "f")
