"""C as loop suites and libraries write it: arrays at file scope (the vectorizer suites'
`real_t a[LEN_1D]; void s000(void)`), pointers stepped through a loop (`*dst++ = *src; src +=
stride;`, a row pointer advanced by `A += m`, a step in the loop's header), 16- and 64-bit
integer elements (`uint16_t`, `int16_t`, `uint64_t` sums), a program whose set-up function
fills arrays beside its kernel, arrays of structs of one type, sizes bounded by fixed extents,
scratch from malloc and pointer typedefs. Each is read without annotations, and the ladder accepts poly's
candidate on the emu through both entry points (NAME on the user's variables, NAME_device)."""
from pathlib import Path

import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.errors import UserError
from t2c.generators.poly import generate
from t2c.ir import abi

ROOT = Path(__file__).resolve().parents[2]

FILE_SCOPE = """\
#define LEN_2D 16
typedef double real_t;
real_t aa[LEN_2D][LEN_2D], bb[LEN_2D][LEN_2D], cc[LEN_2D][LEN_2D];
void s1115(void)
{
  for (int i = 0; i < LEN_2D; i++)
    for (int j = 0; j < LEN_2D; j++)
      aa[i][j] = aa[i][j] * cc[j][i] + bb[i][j];
}
"""

PROGRAM = """\
#include <stdio.h>
#define LEN 100
float a[LEN], b[LEN], c[LEN];
void init(void)
{
  for (int i = 0; i < LEN; i++) { a[i] = 0; b[i] = 1.0f / (i + 1); c[i] = i % 7; }
}
void s251(void)
{
  float s;
  for (int i = 0; i < LEN; i++) {
    s = b[i] + c[i] * c[i];
    a[i] = s * s;
  }
}
int main(void)
{
  init();
  s251();
  printf("%f\\n", a[LEN - 1]);
  return 0;
}
"""


def test_file_scope_arrays_are_parameters_of_the_reference_and_names_of_the_dropin(tmp_path):
    k = c_kernel(tmp_path, FILE_SCOPE)
    assert k.params == ("aa", "bb", "cc") and all(a.file_scope for a in k.arrays)
    assert {a.name: (a.shape, a.intent) for a in k.arrays} == {
        "aa": (("16", "16"), "inout"), "bb": (("16", "16"), "in"), "cc": (("16", "16"), "in")}
    assert k.reference.startswith("void s1115(double aa[16][16], double bb[16][16], double cc[16][16])")
    assert abi.declaration(k) == 'extern "C" void s1115();'
    source = generate(k)
    assert 'extern "C" double aa[16][16];' in source and "s1115_device(double *aa, double *bb, double *cc)" in source
    assert "s1115_all(t2c_aa, t2c_bb, t2c_cc)" in abi.dropin_call(k, lambda a: f"t2c_{a.name}")
    accepted_on_emu(k, source)


def test_a_dropin_that_forgets_to_copy_a_variable_back_is_rejected(tmp_path):
    """The driver holds the user's variables: a drop-in that computes on the device but leaves
    `aa` as it was is caught on NAME's results."""
    k = c_kernel(tmp_path, FILE_SCOPE)
    source = generate(k)
    old = "cudaMemcpy(aa, dev_aa, bytes_aa, cudaMemcpyDeviceToHost);"
    assert old in source
    from t2c.verify.ladder import ladder
    card = ladder(k, source.replace(old, ""), backend="emu", dataset="MINI", seed=5)
    assert not card.accepted and "host entry point" in card.summary(), card.summary()


def test_a_programs_set_up_function_is_not_its_kernel(tmp_path):
    k = c_kernel(tmp_path, PROGRAM)
    assert k.name == "s251" and {a.name: a.intent for a in k.arrays} == {"a": "out", "b": "in", "c": "in"}
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("text, read, step", [
    ("void strided_copy(int n, int stride, const float *src, float *dst)\n"
     "{\n  for (int i = 0; i < n; i++) {\n    *dst++ = *src;\n    src += stride;\n  }\n}\n",
     "dst[i] = src[stride * i];", "src +="),
    ("void gemv_rows(int n, int m, const double *A, const double *x, double *y)\n"
     "{\n  for (int i = 0; i < n; i++) {\n    double s = 0.0;\n    for (int j = 0; j < m; j++)\n"
     "      s += A[j] * x[j];\n    y[i] = s;\n    A += m;\n  }\n}\n",
     "s += A[(m * i) + j] * x[j];", "A +="),
    ("void pairs(int n, int ld, const float *a, float *out)\n"
     "{\n  int i;\n  for (i = 0; i < n; i++, a += ld)\n    out[i] = a[0] + 2.0f * a[1];\n}\n",
     "out[i] = a[ld * i] + (2.0f * a[(ld * i) + 1]);", "a +="),
], ids=["step", "row_step", "header_step"])
def test_pointers_stepped_through_a_loop_read_as_subscripts(text, read, step, tmp_path):
    k = c_kernel(tmp_path, text)
    assert read in k.reference and step not in k.reference
    accepted_on_emu(k, generate(k))


def test_a_pointer_moved_otherwise_is_refused_with_what_to_write(tmp_path):
    text = ("void scale_range(double *first, double *last, double s)\n"
            "{\n  while (first != last) {\n    *first *= s;\n    ++first;\n  }\n}\n")
    with pytest.raises(UserError, match=r"pointer parameter 'first' is moved.*first\[i\]") as e:
        c_kernel(tmp_path, text)
    assert e.value.line == 5


def test_16_and_64_bit_integer_elements(tmp_path):
    """corpora/loops' u16_sad: uint16_t images, their int16_t difference and a uint64_t sum; the
    narrowing store beside the sum splits into a map and a grid reduction that computes the
    difference again (stored.py), the unsigned 64-bit sum exact in any order."""
    k = c_kernel(tmp_path, (ROOT / "corpora" / "loops" / "idioms" / "u16_sad.c").read_text())
    assert {a.name: a.dtype for a in k.arrays} == {"a": "unsigned short", "b": "unsigned short", "d": "short",
                                                    "total": "unsigned long"}
    assert "t += (unsigned long) ((((int) (((int) a[(y * w) + x]) - ((int) b[(y * w) + x]))) < 0)" in k.reference
    source = generate(k)
    assert "u16_sad_update_d" in source and "u16_sad_reduce_total" in source
    accepted_on_emu(k, source)


STRUCTS = """\
typedef struct { double pos[3]; double vel[3]; double m; } particle;
struct cplx { float re, im; };
void step(int n, double dt, particle *p, const struct cplx *a, struct cplx *c)
{
  for (int i = 0; i < n; i++) {
    for (int d = 0; d < 3; d++)
      p[i].pos[d] += dt * p[i].vel[d] / p[i].m;
    struct cplx x = a[i], y;
    y.re = x.re * x.re - x.im * x.im;
    y.im = 2.0f * x.re * x.im;
    c[i] = y;
  }
}
"""


def test_arrays_of_structs_of_one_type_are_flat_arrays(tmp_path):
    """A struct of Ts (scalars or fixed arrays) is F Ts with no padding: the reference reads
    field f of element i at i * F + offset, a struct local is one local per field, and the
    drop-in takes the same pointer as a flat T * (the same symbol and argument to a linker)."""
    k = c_kernel(tmp_path, STRUCTS)
    assert {a.name: (a.dtype, a.shape, a.intent) for a in k.arrays} == {
        "p": ("double", ("7 * n",), "inout"), "a": ("float", ("2 * n",), "in"), "c": ("float", ("2 * n",), "out")}
    assert "p[(i * 7) + d] += (dt * p[((i * 7) + 3) + d]) / p[(i * 7) + 6];" in k.reference
    assert "float x_re = a[i * 2];" in k.reference and "c[(i * 2) + 1] = y_im;" in k.reference
    assert abi.declaration(k) == 'extern "C" void step(int n, double dt, double *p, const float *a, float *c);'
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("text, why", [
    ("typedef struct { int id; double w; } item;\n"
     "void weights(int n, const item *it, double *w)\n{\n  for (int i = 0; i < n; i++) w[i] = it[i].w;\n}\n",
     r"'it' points at the struct 'item', and its fields are of different types \(int, double\)"),
    ("typedef struct {\n  float x, y, z;\n} __attribute__((aligned(16))) vec3;\n"
     "void scale3(int n, float s, vec3 *v)\n{\n  for (int i = 0; i < n; i++) v[i].x *= s;\n}\n",
     r"'v' points at the struct 'vec3', and its declaration sets an alignment"),
    ("struct pt { double x, y; };\n"
     "void f(int n, const struct pt *p, double *r)\n{\n  for (int i = 0; i < n; i++) r[i] = ((const double *)p)[2 * i];\n}\n",
     r"'p' points at structs and is used here other than through a field"),
], ids=["mixed_types", "aligned", "passed_on"])
def test_structs_whose_layout_t2c_cannot_vouch_for_are_refused(text, why, tmp_path):
    with pytest.raises(UserError, match=why):
        c_kernel(tmp_path, text)


def test_a_size_over_a_fixed_array_is_bounded_by_its_extent(tmp_path):
    """A loop to n over an array of constant extent (file scope or a declared dimension) adds the
    constraint that keeps it inside, the tightest of its accesses' (a[i + 1] for i < n - 1 over
    a[64]: n <= 64), so the verifier draws only sizes the array holds."""
    k = c_kernel(tmp_path, """\
#define N 64
double grid[N][N];
void relax(int n, int m, double w)
{
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      grid[i][j] = w * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]);
}
""")
    assert k.constraints == ("n >= 1", "m >= 1", "n <= 64", "m <= 64")
    accepted_on_emu(k, generate(k))
    # a pointer to rows of a constant length (`double (*A)[N]`): its rows come from the loops,
    # its row length bounds them
    k = c_kernel(tmp_path, """\
#define N 256
void transpose(int n, double (*A)[N], double (*B)[N])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = A[i][j];
}
""", "rows")
    assert [a.shape for a in k.arrays] == [("n", "256"), ("n", "256")] and "n <= 256" in k.constraints
    accepted_on_emu(k, generate(k))


def test_scratch_from_malloc_and_pointer_typedefs_read_as_arrays(tmp_path):
    """`T *w = malloc(count * sizeof(T))` freed in the same block is the local array `T w[count]`
    (calloc's zeros a loop, a NULL test gone), and a parameter of a pointer typedef (`typedef const
    double *cvec;`) the pointer it names."""
    k = c_kernel(tmp_path, """\
#include <stdlib.h>
typedef const double *cvec;
void colmeans(int n, int m, cvec a, double *out)
{
  double *acc = calloc(m, sizeof *acc);
  if (acc == NULL) return;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      acc[j] += a[i * m + j];
  for (int j = 0; j < m; j++) out[j] = acc[j] / n;
  free(acc);
}
""")
    assert "double acc[m];" in k.reference and "acc[mem_z0] = 0;" in k.reference
    assert "free" not in k.reference and "NULL" not in k.reference
    assert {a.name: (a.dtype, a.const) for a in k.arrays} == {"a": ("double", True), "out": ("double", False)}
    accepted_on_emu(k, generate(k))


def test_c99_complex_is_refused_at_its_include_with_the_struct_to_write(tmp_path):
    with pytest.raises(UserError, match="C99 complex types are not supported") as e:
        c_kernel(tmp_path, "#include <complex.h>\nvoid f(int n, double complex *z)\n{\n"
                           "  for (int i = 0; i < n; i++) z[i] *= 2;\n}\n")
    assert e.value.line == 1 and "struct" in e.value.hint


def test_a_struct_local_alone_is_one_local_per_field(tmp_path):
    k = c_kernel(tmp_path, """\
typedef struct { double re, im; } cplx;
void magnitude(int n, const double *re, const double *im, double *out)
{
  for (int i = 0; i < n; i++) {
    cplx z;
    z.re = re[i];
    z.im = im[i];
    out[i] = z.re * z.re + z.im * z.im;
  }
}
""")
    assert "double z_re;" in k.reference and "out[i] = (z_re * z_re) + (z_im * z_im);" in k.reference
    accepted_on_emu(k, generate(k))


def test_a_file_scope_array_of_structs_is_a_flat_file_scope_array(tmp_path):
    k = c_kernel(tmp_path, """\
#define NB 16
typedef struct { double x, y, m; } body;
body bodies[NB];
double pot[NB];
void potential(void)
{
  for (int i = 0; i < NB; i++) {
    double s = 0.0;
    for (int j = 0; j < NB; j++)
      s -= bodies[j].m / ((bodies[j].x - bodies[i].x) * (bodies[j].x - bodies[i].x) + bodies[j].y * bodies[i].y + 1.0);
    pot[i] = s;
  }
}
""")
    assert {a.name: (a.shape, a.file_scope) for a in k.arrays} == {"bodies": (("48",), True), "pot": (("16",), True)}
    source = generate(k)
    assert 'extern "C" double bodies[48];' in source
    accepted_on_emu(k, source)


def test_a_static_counter_set_before_it_is_read_is_a_local(tmp_path):
    """f2c and older C declare loop counters `static`; one that every call sets first (a for
    loop's start) keeps nothing from the call before, so it reads as an ordinary local. A static
    read before it is set stays refused (tests/frontend/test_helpers.py)."""
    k = c_kernel(tmp_path, "void scal(int n, double a, double *x)\n{\n  static int i;\n"
                           "  for (i = 0; i < n; i++) x[i] *= a;\n}\n")
    assert "static" not in k.reference and "  int i;" in k.reference
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("text, read", [
    ("void axpy_w(int n, double a, const double *x, double *y)\n{\n  while (n--)\n    *y++ += a * *x++;\n}\n",
     "for (int cnt0 = 0; cnt0 < n; cnt0++)\n    y[cnt0] += a * x[cnt0];"),
    ("void scale_end(int n, double s, double *x)\n{\n  for (double *p = x; p < x + n; p++)\n    *p *= s;\n}\n",
     "for (int cnt0 = 0; cnt0 < n; cnt0++)\n    x[cnt0] *= s;"),
    ("void diffs(int n, const float *x, float *d)\n{\n  for (const float *p = x + 1; p != x + n; ++p)\n"
     "    d[p - x - 1] = p[0] - p[-1];\n}\n",
     "for (int cnt0 = 1; cnt0 < n; cnt0++)\n    d[cnt0 - 1] = x[cnt0] - x[cnt0 + (-1)];"),
], ids=["while_count", "pointer_counter", "pointer_counter_offset"])
def test_loops_counted_by_a_size_or_a_pointer_are_counted_loops(text, read, tmp_path):
    """`while (n--) S` with S not naming n runs S n times; `for (T *p = x; p < x + n; p++)` counts
    with a pointer: both read as a counted for loop over the elements they reach."""
    k = c_kernel(tmp_path, text)
    assert read in k.reference, k.reference
    accepted_on_emu(k, generate(k))
