"""Flat row-major pointers without a `t2c: array` annotation (frontends/c/normalize.row_major_shape):
a pointer whose extent is the product of two sizes, rows * cols, and whose subscripts multiply a
loop variable by cols alone (`a[r*cols + c]`, through an `IDX(i, j)` macro too) gets the shape
[rows][cols] the annotation would give (a square's n * n too: n rows of n; and rows of rows,
`a[(i*m + j)*p + l]` over n * m * p: [n][m][p]): the model reads its subscripts as a[r][c] and the kernel
is planned in parallel instead of one GPU thread; the ABI stays the flat pointer. An output whose
interior alone is written reaches its last row in part: its shape holds the rows it touches."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.generators.poly import generate

FLAT = {
    "row_scale": """\
/* t2c: size rows MINI=6 SMALL=128
 * t2c: size cols MINI=10 SMALL=128 */
#include <math.h>
#define AT(r, c) ((r) * cols + (c))
void row_scale(long rows, long cols, const float *in, float *out)
{
    for (long r = 0; r < rows; r++) {
        double ss = 0.0;
        for (long c = 0; c < cols; c++)
            ss += (double)in[AT(r, c)] * in[AT(r, c)];
        float inv = (float)(1.0 / sqrt(ss + 1e-12));
        for (long c = 0; c < cols; c++)
            out[AT(r, c)] = in[AT(r, c)] * inv;
    }
}
""",
    "flat_transpose": """\
void flat_transpose(int n, int m, const double *a, double *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            b[j * n + i] = a[i * m + j];
}
""",
    "vertical_diff": """\
/* t2c: constraint h >= 2 */
void vertical_diff(int h, int w, const float *img, float *d)
{
    for (int i = 0; i < h - 1; i++)
        for (int j = 0; j < w; j++)
            d[i * w + j] = img[(i + 1) * w + j] - img[i * w + j];
}
""",
    "interior_laplace": """\
/* t2c: constraint h >= 3 && w >= 3 */
#define IDX(i, j) ((i) * w + (j))
void interior_laplace(int h, int w, const float *img, float *out)
{
    for (int i = 1; i < h - 1; i++)
        for (int j = 1; j < w - 1; j++)
            out[IDX(i, j)] = img[IDX(i - 1, j)] + img[IDX(i + 1, j)] + img[IDX(i, j - 1)]
                             + img[IDX(i, j + 1)] - 4.0f * img[IDX(i, j)];
}
""",
    "square_matmul": """\
void square_matmul(int n, const double *A, const double *B, double *C)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}
""",
    "square_interior": """\
void square_interior(int n, const double *u, double *v)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
}
""",
    "box3": """\
void box3(int n, int m, int p, const double *a, double *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            for (int l = 0; l < p; l++)
                b[(i * m + j) * p + l] = a[(i * m + j) * p + l] + 1.0;
}
""",
    "heat3_flat": """\
void heat3_flat(int n, const double *u, double *v)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            for (int k = 1; k < n - 1; k++)
                v[(i * n + j) * n + k] = u[((i - 1) * n + j) * n + k] + u[((i + 1) * n + j) * n + k]
                                       + u[(i * n + j - 1) * n + k] + u[(i * n + j + 1) * n + k]
                                       + u[(i * n + j) * n + k - 1] + u[(i * n + j) * n + k + 1];
}
""",
}

SHAPES = {"row_scale": {"in": ("rows", "cols"), "out": ("rows", "cols")},
          "box3": {"a": ("n", "m", "p"), "b": ("n", "m", "p")},                      # rows of rows
          "heat3_flat": {"u": ("n", "n", "n"), "v": ("n - 1", "n", "n")},
          "square_matmul": {"A": ("n", "n"), "B": ("n", "n"), "C": ("n", "n")},     # n * n: n rows of n
          "square_interior": {"u": ("n", "n"), "v": ("n - 1", "n")},
          "flat_transpose": {"a": ("n", "m"), "b": ("m", "n")},
          "vertical_diff": {"img": ("h", "w"), "d": ("h - 1", "w")},
          "interior_laplace": {"img": ("h", "w"), "out": ("h - 1", "w")}}   # the rows it writes


@pytest.mark.parametrize("name", sorted(FLAT))
def test_a_flat_pointer_indexed_by_rows_has_its_rows(tmp_path, name):
    k = c_kernel(tmp_path, FLAT[name], name)
    shapes = {a.name: a.shape for a in k.arrays}
    for array, shape in SHAPES[name].items():
        assert shapes[array] == shape
    text = generate(k)
    assert "runs in one GPU thread" not in text
    accepted_on_emu(k, text)


def test_a_pointer_also_indexed_flat_stays_correct(tmp_path):
    """`x[i*m + j]` and `x[k]` over all n*m elements: two forms of one array, which the model
    cannot relate; the kernel stays one thread, and correct."""
    k = c_kernel(tmp_path, """\
void both_forms(int n, int m, const float *x, float *y, float *z)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            y[i * m + j] = 2.0f * x[i * m + j];
    for (int t = 0; t < n * m; t++)
        z[t] = x[t] + 1.0f;
}
""", "both_forms")
    accepted_on_emu(k, generate(k))
