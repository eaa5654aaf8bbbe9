"""C as library code writes it: `memset`/`memcpy` over an array's elements, `!=` loop tests, and
file-scope constants. Each is read as what it means (the reference shows it) and verified on the
emu; what is not that stays refused at its line."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.errors import UserError
from t2c.generators.poly import generate

COLSUM = """\
#include <string.h>
void colsum(const double *A, double *s, int n, int m)
{
  memset(s, 0, m * sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s[j] += A[i * m + j];
}
"""

HALVES = """\
#include <string.h>
typedef float real;
void halves(real *dst, const real *src, int n)
{
  memcpy(dst, src, sizeof(*src) * n);
  for (int i = 0; i < n; i++)
    dst[i] *= 0.5f;
  memset(&dst[n], 0, n * sizeof(real));
}
"""

DOT = """\
double dot_ne(const double *x, const double *y, long n)
{
  double s = 0.0;
  for (long i = 0; i != n; ++i)
    s += x[i] * y[i];
  return s;
}
"""

CONSTANTS = """\
#include <math.h>
static const int TILE = 4;
static const float EPS = 1e-6f;
static const double SCALE = 2.0 * TILE;
static inline float safe_div(float a, float b) { return a / (fabsf(b) + EPS); }
void ratios(const float *a, const float *b, float *r, int n)
{
  const float EPS_UNUSED = 0.0f;
  for (int i = 0; i < n; i++)
    r[i] = safe_div(a[i], b[i]) * (float)SCALE + (i % TILE) + EPS_UNUSED;
}
"""


@pytest.mark.parametrize("text, loops", [
    (COLSUM, ["for (int mem_i0 = 0; mem_i0 < m; mem_i0++)\n    s[mem_i0] = 0;"]),
    (HALVES, ["for (int mem_i0 = 0; mem_i0 < n; mem_i0++)\n    dst[mem_i0] = src[mem_i0];",
              "for (int mem_i1 = 0; mem_i1 < n; mem_i1++)\n    dst[n + mem_i1] = 0;"])])
def test_memory_calls_over_whole_elements_are_loops(tmp_path, text, loops):
    k = c_kernel(tmp_path, text)
    assert all(loop in k.reference for loop in loops) and "mem" + "set(" not in k.reference
    source = generate(k)
    assert "one GPU thread" not in source.split("#include")[0]
    accepted_on_emu(k, source)


@pytest.mark.parametrize("call", ["memset(s, 1, m * sizeof(double));",      # bytes of 1: no double's value
                                  "memset(s, 0, m);",                         # bytes, not elements
                                  "memmove(s, A, m * sizeof(double));"])
def test_other_memory_calls_are_refused_at_their_line(tmp_path, call):
    with pytest.raises(UserError, match=r"call to 'mem\w+' is not supported") as e:
        c_kernel(tmp_path, COLSUM.replace("memset(s, 0, m * sizeof(double));", call))
    assert e.value.line == 4


def test_a_unit_step_tested_with_unequal_is_a_bound(tmp_path):
    k = c_kernel(tmp_path, DOT)
    assert "for (long i = 0; i < n; ++i)" in k.reference and [a.shape for a in k.arrays] == [("n",), ("n",)]
    accepted_on_emu(k, generate(k))
    # a body that moves the variable keeps its test (and says it cannot tell the extent)
    with pytest.raises(UserError, match="cannot tell the extent"):
        c_kernel(tmp_path, DOT.replace("s += x[i] * y[i];", "{ s += x[i] * y[i]; i += 0; }"), "moved")


ENUMS = """\
enum { N = 6, M = N / 2 + 1, LAST, SAME = LAST };
static const int K0 = M - 1;
static const int K = K0;
typedef enum { SUM, MAX } op_t;
void colsum(const double A[N][M], double s[M], double t[K])
{
  for (int j = 0; j < M; j++) {
    s[j] = 0;
    for (int i = 0; i < N; i++)
      s[j] += A[i][j] * (SAME - SUM);
  }
  for (int j = 0; j < K; j++)
    t[j] = s[j] + s[j + 1];
}
"""


def test_enumerators_and_int_constants_bound_arrays(tmp_path):
    """An enumerator (`enum { N = 6, M = N / 2 + 1 }`) or a const int names a fixed bound: the
    parameters' bounds and the body read its value."""
    k = c_kernel(tmp_path, ENUMS)
    assert [a.shape for a in k.arrays] == [("6", "4"), ("4",), ("3",)]
    assert "A[i][j] * (5 - 0)" in k.reference and "j < 3" in k.reference
    accepted_on_emu(k, generate(k))


def test_file_scope_constants_are_their_values(tmp_path):
    k = c_kernel(tmp_path, CONSTANTS)
    assert "((float) 1e-6f)" in k.reference and "(i % 4)" in k.reference       # an int: its value
    assert "EPS_UNUSED" in k.reference                     # a local is no constant of the file
    accepted_on_emu(k, generate(k))
    with pytest.raises(UserError, match="'counter' is a global variable"):
        c_kernel(tmp_path, "int counter = 0;\nvoid g(double *y, int n)\n{\n  for (int i = 0; i < n; i++)\n"
                           "    y[i] = counter;\n}\n", "written")


ROWS = """\
#define M 8
void rowmax8(const float a[][M], float *mx, int n)
{
  for (int i = 0; i < n; i++) {
    float t = a[i][0];
    for (int j = 1; j < M; j++)
      t = a[i][j] > t ? a[i][j] : t;
    mx[i] = t;
  }
}
"""


@pytest.mark.parametrize("text, shape, head", [
    (ROWS, ("n", "8"), "void rowmax8(const float a[][8], float *mx, int n)"),
    ("void rowsum(int n, int m, const double a[][m], double b[])\n{\n  for (int i = 0; i < n; i++)\n"
     "    for (int j = 0; j < m; j++)\n      b[i] += a[i][j];\n}\n", ("n", "m"),
     "void rowsum(int n, int m, const double a[n][m], double b[n])")], ids=["sizes-last", "sizes-first"])
def test_an_array_parameter_without_its_row_count_gets_it_from_its_subscripts(tmp_path, text, shape, head):
    """`a[][M]` (and `b[]`, a pointer) as C declares them: the rows are the extent of the first
    subscript, as a pointer's; the reference declares them where C knows the size."""
    k = c_kernel(tmp_path, text)
    assert k.arrays[0].shape == shape and k.reference.startswith(head)
    accepted_on_emu(k, generate(k))


UNROLLED = """\
void saxpy_unrolled(int n, float a, const float *x, float *y)
{
  int i = 0;
  for (; i + 3 < n; i += 4) {
    y[i] = a * x[i] + y[i];
    y[i + 1] = a * x[i + 1] + y[i + 1];
    y[i + 2] = a * x[i + 2] + y[i + 2];
    y[i + 3] = a * x[i + 3] + y[i + 3];
  }
  for (; i < n; i++)
    y[i] = a * x[i] + y[i];
}
"""
ROLLED = "  int i;\n  for (i = 0; i < n; i++)\n    y[i] = (a * x[i]) + y[i];\n"


@pytest.mark.parametrize("change", [("", ""), ("i + 3 < n", "i < n - 3"), ("i + 3 < n", "i + 4 <= n")],
                         ids=["plus", "minus", "at-most"])
def test_a_loop_unrolled_by_hand_with_its_remainder_is_one_loop(tmp_path, change):
    k = c_kernel(tmp_path, UNROLLED.replace(*change))
    assert ROLLED in k.reference
    source = generate(k)
    assert "one thread per (i)" in source.split("#include")[0]
    accepted_on_emu(k, source)


@pytest.mark.parametrize("change", [("i + 3 < n", "i < n"),                     # the unrolled loop overruns
                                    ("y[i + 2] = a * x[i + 2]", "y[i + 2] = a * x[i + 1]"),   # not copies
                                    ("i += 4", "i += 2")],                      # a step other than the copies
                         ids=["overrun", "other-body", "other-step"])
def test_other_loop_pairs_stay_as_written(tmp_path, change):
    """Only an exact unrolling is rolled: anything else keeps its loops (here: no extent to read)."""
    with pytest.raises(UserError, match="cannot tell the extent"):
        c_kernel(tmp_path, UNROLLED.replace(*change))


def test_an_assert_is_a_precondition(tmp_path):
    """`assert` goes as with NDEBUG; on the sizes alone it is a constraint the verifier draws by."""
    k = c_kernel(tmp_path, "#include <assert.h>\nvoid halves(int n, int m, double *x)\n{\n"
                           "  assert(n > 1 && m % 2 == 0);\n  assert(x);\n  for (int i = 0; i < n * m; i++) {\n"
                           "    assert(x[i] == x[i]);\n    x[i] *= 0.5;\n  }\n}\n")
    assert "assert" not in k.reference and "(n > 1) && ((m % 2) == 0)" in k.constraints
    accepted_on_emu(k, generate(k))
