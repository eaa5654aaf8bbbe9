"""C loops as everyday code writes them: `while` and do-while loops that count, comma headers
walking two ends, post-decrement tests, pointers walked with `*p++`, windows tested `i + k <= n`, integer
locals naming an index, BLAS-style leading dimensions and increments, `T (*a)[M]` parameters,
and subscripts read from both ends. Each is read as what it means: the reference computes what
the user's function computes (run side by side), the model maps it to parallel threads, and the
ladder accepts the candidate on the emu."""
import shutil
from pathlib import Path

import numpy as np
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.errors import UserError
from t2c.generators.poly import generate
from t2c.verify.inputs import synthesize
from t2c.verify.ladder import ladder
from t2c.verify.reference import run_reference

WHILE = """\
void while_scale(int n, const double *x, double *y)
{
  int i = 0;
  while (i < n) {
    y[i] = 2.0 * x[i];
    i++;
  }
}
"""

DO_WHILE = """\
void prefix_max(int n, const int *x, int *y)
{
  int m = x[0];
  int i = 0;
  do {
    if (x[i] > m) m = x[i];
    y[i] = m;
    i++;
  } while (i < n);
}
"""

TWO_ENDS = """\
void reverse2(int n, double *x)
{
  for (int i = 0, j = n - 1; i < j; i++, j--) {
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}
"""

PACK = """\
void pack_pairs(int n, const double *x, double *y)
{
  int k = 0;
  for (int i = 0; i < n; i++) {
    y[k] = x[i];
    y[k + 1] = -x[i];
    k += 2;
  }
}
"""

COUNTDOWN = """\
#include <stddef.h>
void countdown(size_t n, const float *x, float *y)
{
  for (size_t i = n; i-- > 0;)
    y[i] = x[i] * x[i] + 1.0f;
}
"""

WHILE_COUNTDOWN = """\
void suffix(unsigned n, const double *x, double *y)
{
  unsigned i = n;
  while (i--)
    y[i] = x[i] - 1.0;
}
"""

INDEX_NAMES = """\
void transpose_add(int n, int m, const double *A, const double *B, double *C)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      int row = i * m;
      int idx = row + j;
      long tdx = (long)j * n + i;
      C[idx] = A[idx] + B[tdx];
    }
}
"""

LEADING = """\
void dgemv_t(int m, int n, double alpha, const double *A, int lda, const double *x, int incx, double *y)
{
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int i = 0; i < m; i++)
      s += A[i + j * lda] * x[i * incx];
    y[j] += alpha * s;
  }
}
"""

WALKED = """\
void scale2d(int n, int m, double a, const double *x, double *y)
{
  for (int i = 0; i < n; i++)
    for (int j = 1; j <= m; j++)
      *y++ = a * *x++ + j;
}
"""

INTERLEAVED = """\
void interleave(int n, int m, const double *re, const double *im, double *out)
{
  for (int i = 0; i < n; i++)
    for (int j = 1; j <= m; j++) {
      *out++ = *re++ * j;
      *out++ = *im++;
    }
}
"""

WINDOW = """\
void conv1d(const float *in, const float *w, float *out, int n, int k)
{
  for (int i = 0; i + k <= n; i++) {
    float acc = 0.0f;
    for (int j = 0; j < k; j++)
      acc += in[i + j] * w[j];
    out[i] = acc;
  }
}
"""

ROW_POINTER = """\
#define N 24
void rowscale(int m, double (*A)[N], const double *s)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < N; j++)
      A[i][j] *= s[i];
}
"""

HELPER_ROWS = (Path(__file__).parents[2] / "corpora/loops/idioms/helper_rows.c").read_text()   # dot(&A[i * n], x, n)

BOTH_ENDS = """\
void reverse(int n, double *x)
{
  for (int i = 0; i < n / 2; i++) {
    double t = x[i];
    x[i] = x[n - 1 - i];
    x[n - 1 - i] = t;
  }
}
"""

READ = [WHILE, DO_WHILE, TWO_ENDS, PACK, COUNTDOWN, WHILE_COUNTDOWN, INDEX_NAMES, LEADING, BOTH_ENDS, WALKED, WINDOW,
        HELPER_ROWS, INTERLEAVED]


def _name(text):
    return text.split("\nvoid ", 1)[-1].split("void ", 1)[-1].split("(")[0]


def _sizes(k):
    """Sizes that meet the kernel's constraints, a leading dimension padded past its rows."""
    sizes = {s.name: 7 + 2 * i for i, s in enumerate(k.sizes)}
    for c in k.constraints:
        name, _, bound = c.partition(" >= ")
        if bound in sizes:
            sizes[name] = sizes[bound] + 3
    if "n >= k - 1" in k.constraints:                    # a window: n past its k taps
        sizes["n"] = sizes["k"] + 5
    return sizes


@pytest.mark.parametrize("text", READ, ids=_name)
def test_the_form_is_read_and_runs_in_parallel(text, tmp_path):
    k = c_kernel(tmp_path, text)
    source = generate(k)
    assert "Mapping: parallel loops become grid dimensions" in source.split("#include")[0]
    accepted_on_emu(k, source)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("text", READ, ids=_name)
def test_the_reference_computes_what_the_users_function_computes(text, tmp_path):
    k = c_kernel(tmp_path, text)
    sizes = _sizes(k)
    inputs = synthesize(k, sizes, seed=5)
    want, got = run_reference(k.replace(reference=text), sizes, inputs), run_reference(k, sizes, inputs)
    assert set(want.outputs) == set(got.outputs) and want.outputs
    for name in want.outputs:
        np.testing.assert_array_equal(got.outputs[name], want.outputs[name], err_msg=name)


def test_loops_are_rewritten_to_the_counted_loops_they_are(tmp_path):
    k = c_kernel(tmp_path, WHILE, "w")                  # the model reads the while loop itself
    assert "while (i < n)" in k.reference and [a.shape for a in k.arrays] == [("n",), ("n",)]
    k = c_kernel(tmp_path, COUNTDOWN, "c")
    assert "for (unsigned long i = n; i > 0; i--)" in k.reference and "y[i - 1] =" in k.reference
    assert "for (unsigned i = n; i > 0; i--)" in c_kernel(tmp_path, WHILE_COUNTDOWN, "wc").reference
    k = c_kernel(tmp_path, INDEX_NAMES, "ix")
    assert "C[(i * m) + j] = A[(i * m) + j] + B[(long) ((((long) j) * n) + i)];" in k.reference
    assert [a.shape for a in k.arrays] == [("n", "m"), ("m", "n"), ("n", "m")]


def test_a_counter_set_before_an_early_return_still_counts(tmp_path):
    """`int i = 0; if (n <= 0) return; do { ...; i++; } while (i < n);`: the guard names no i, so
    the counter's start moves to the loop, which reads as a counted loop (before: no extent)."""
    k = c_kernel(tmp_path, "void scale_do(int n, float a, float *x)\n{\n  int i = 0;\n  if (n <= 0) return;\n"
                           "  do {\n    x[i] *= a;\n    i++;\n  } while (i < n);\n}\n")
    assert [a.shape for a in k.arrays] == [("n",)]
    accepted_on_emu(k, generate(k))


def test_a_while_loop_that_does_not_count_stays(tmp_path):
    """`while (v > 1.0) { v /= 2; c++; }`: c counts, but the test is the data's, not a bound."""
    k = c_kernel(tmp_path, "void halvings(int n, const double *a, int *b)\n{\n  for (int i = 0; i < n; i++) {\n"
                           "    double v = a[i];\n    int c = 0;\n    while (v > 1.0) {\n      v = v / 2.0;\n"
                           "      c++;\n    }\n    b[i] = c;\n  }\n}\n")
    assert "while (v > 1.0)" in k.reference


def test_leading_dimensions_are_sizes_with_their_rows(tmp_path):
    """A leading dimension gives the matrix its n rows of lda, as BLAS sizes it (lda * n); an
    increment gives the vector its exact extent, 1 + (m - 1) * incx, as BLAS sizes it, so the
    drop-in never copies past the end of the caller's vector."""
    k = c_kernel(tmp_path, LEADING)
    assert [s.name for s in k.sizes] == ["m", "n", "lda", "incx"]
    assert "lda >= m" in k.constraints and "incx >= 1" in k.constraints
    assert {a.name: a.shape for a in k.arrays} == {"A": ("n", "lda"), "x": ("incx * m - incx + 1",), "y": ("n",)}


def test_a_candidate_that_assumes_unpadded_rows_is_rejected(tmp_path):
    """The verifier draws lda past m (padded storage), so indexing by m instead fails."""
    k = c_kernel(tmp_path, "void dscal_cols(int m, int n, double alpha, double *A, int lda)\n{\n"
                           "  for (int j = 0; j < n; j++)\n    for (int i = 0; i < m; i++)\n"
                           "      A[i + j * lda] *= alpha;\n}\n")
    source = generate(k)
    assert source.count("A[(j * lda) + i]") == 2                  # the full tiles' path and the edges'
    card = ladder(k, source.replace("A[(j * lda) + i]", "A[(j * m) + i]"), backend="emu", dataset="MINI", seed=5)
    assert not card.accepted, card.summary()


def test_a_pointer_to_rows_is_an_array_of_rows(tmp_path):
    k = c_kernel(tmp_path, ROW_POINTER)
    assert {a.name: a.shape for a in k.arrays} == {"A": ("m", "24"), "s": ("m",)}
    accepted_on_emu(k, generate(k))


def test_walked_pointers_and_windows_are_subscripts(tmp_path):
    assert "y[(i * m) + (j - 1)] = (a * x[(i * m) + (j - 1)]) + j;" in c_kernel(tmp_path, WALKED, "walk").reference
    k = c_kernel(tmp_path, INTERLEAVED, "interleave")
    assert "out[(2 * ((i * m) + (j - 1))) + 1] = im[(i * m) + (j - 1)];" in k.reference
    assert {a.name: a.shape for a in k.arrays} == {"re": ("n", "m"), "im": ("n", "m"), "out": ("n", "2 * m")}
    k = c_kernel(tmp_path, WINDOW, "window")
    assert "for (int i = 0; i <= (n - k); i++)" in k.reference and "n >= k - 1" in k.constraints
    assert {a.name: a.shape for a in k.arrays}["out"] == ("-k + n + 1",)


def test_a_walk_that_may_skip_a_step_stays_refused(tmp_path):
    with pytest.raises(UserError, match="pointer dereference of an expression"):
        c_kernel(tmp_path, "void keep(int n, const double *x, double *y)\n{\n  for (int i = 0; i < n; i++)\n"
                           "    if (x[i] > 0) *y++ = x[i];\n}\n")


def test_helpers_taking_rows_are_written_into_the_kernel(tmp_path):
    k = c_kernel(tmp_path, HELPER_ROWS)
    assert "dot_0_s += A[(i * n) + dot_0_k] * x[dot_0_k];" in k.reference
    assert "B[(i * n) + axpy_1_k] += axpy_1_alpha * x[axpy_1_k];" in k.reference
    assert "static" not in k.reference                   # no call left to carry
    assert {a.name: (a.shape, a.intent) for a in k.arrays}["B"] == (("m", "n"), "inout")


HISTOGRAM = """\
void histogram(int n, int nbins, const int *data, int *hist)
{
  for (int b = 0; b < nbins; b++)
    hist[b] = 0;
  for (int i = 0; i < n; i++) {
    int v = data[i];
    if (v >= 0 && v < nbins)
      hist[v]++;
  }
}
"""


def test_subscripts_through_the_data_leave_the_extent_to_the_others(tmp_path):
    """`hist[v]`, v read from an array, tells no extent; hist[b] does, and the checked reference
    runs name a read past it, with the annotation that fixes it."""
    k = c_kernel(tmp_path, HISTOGRAM)
    assert {a.name: a.shape for a in k.arrays} == {"data": ("n",), "hist": ("nbins",)}
    accepted_on_emu(k, generate(k))
    k = c_kernel(tmp_path, "void gather(int n, const double *x, const int *idx, double *y)\n{\n"
                           "  for (int i = 0; i < n; i++)\n    y[i] = x[i] + x[idx[i]];\n}\n", "gather")
    with pytest.raises(UserError, match=r"reads x\[idx\[i\]\] out of bounds .* in `y\[i\] = x\[i\] \+ x\[idx\[i\]\]`"
                                        r".*`// t2c: domain idx integers\(0, n - 1\)`") as e:
        run_reference(k, {"n": 3}, synthesize(k, {"n": 3}, seed=1), checked_run=True)
    assert e.value.line == 4                              # the statement's line in the user's file
    with pytest.raises(UserError, match="cannot tell the extent of pointer parameter 'x'"):
        c_kernel(tmp_path, "void gather(int n, const double *x, const int *idx, double *y)\n{\n"
                           "  for (int i = 0; i < n; i++)\n    y[i] = x[idx[i]];\n}\n", "only")
