"""Hand-tiled loops (frontends/c/bounds.py, ir/extents.loop_range): a loop bounded by the minimum
of its tile's end and the size, spelled with a MIN macro (`i < MIN(ii + T, n)`, a conditional
expression after cpp) or as a conjunction (`i < ii + T && i < n`), gets its pointers' extents
from the size-only bound, and the model reads the conjunction as the loop's bounds: a parallel
plan, an accepted candidate."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.generators.poly import generate
from t2c.ir.csyntax import kernel_definition, parse_c, walk

TILED = {
    "transpose_min": """\
/* t2c: size n MINI=20 SMALL=200
 * t2c: size m MINI=18 SMALL=180 */
#define TILE 8
#define MIN(a, b) ((a) < (b) ? (a) : (b))
void transpose_min(int n, int m, const double *restrict A, double *restrict B)
{
    for (int ii = 0; ii < n; ii += TILE)
        for (int jj = 0; jj < m; jj += TILE)
            for (int i = ii; i < MIN(ii + TILE, n); i++)
                for (int j = jj; j < MIN(jj + TILE, m); j++)
                    B[j * n + i] = A[i * m + j];
}
""",
    "scale_and": """\
/* t2c: size n MINI=37 SMALL=3000 */
void scale_and(int n, float s, const float *x, float *y)
{
    for (int b = 0; b < n; b += 16)
        for (int i = b; i < b + 16 && i < n; i++)
            y[i] = s * x[i];
}
""",
    "reverse_max": """\
/* t2c: size n MINI=37 SMALL=3000 */
#define MAX(a, b) ((a) > (b) ? (a) : (b))
void reverse_max(int n, const float *x, float *y)
{
    for (int b = n - 1; b >= 0; b -= 8)
        for (int i = b; i > MAX(b - 8, -1); i--)
            y[n - 1 - i] = x[i];
}
""",
}

EXTENTS = {"transpose_min": {"A": ("n", "m"), "B": ("m", "n")},   # rows of a flat pointer
           "scale_and": {"x": ("n",), "y": ("n",)}, "reverse_max": {"x": ("n",), "y": ("n",)}}


@pytest.mark.parametrize("name", sorted(TILED))
def test_a_tile_loop_bounded_by_a_minimum_has_its_extents_and_runs(tmp_path, name):
    k = c_kernel(tmp_path, TILED[name], name)
    shapes = {a.name: a.shape for a in k.arrays}
    for array, shape in EXTENTS[name].items():
        assert shapes[array] == shape
    conds = [n.cond for n in walk(kernel_definition(parse_c(k.reference, "ref"))) if type(n).__name__ == "For"]
    assert not any(type(c).__name__ == "TernaryOp" for cond in conds for c in walk(cond))
    text = generate(k)
    assert "runs in one GPU thread" not in text
    accepted_on_emu(k, text)


def test_a_conditional_that_is_no_minimum_stays(tmp_path):
    k = c_kernel(tmp_path, """\
/* t2c: array y[n] out
 * t2c: array x[n] in */
void odd_bound(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
    for (int i = 0; i < (n > 4 ? n - 4 : n); i++)
        y[i] = 2.0f * x[i];
}
""", "odd_bound")
    assert "?" in k.reference
