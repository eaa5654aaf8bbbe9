"""C as numerical programs write it: buffers exchanged by pointer swaps each step (ping-pong),
arrays indexed from 1 with fixed boundary elements (Numerical Recipes style), packed triangular
storage (`ap[i*(i+1)/2 + j]`), tables of row pointers (`double **a`), `bool` flags and arrays,
K&R definitions, and a whole program whose `main` initialises through a function called with a
size macro. Each is read with the extents and constraints it needs, no annotation, and the
ladder accepts poly's candidate on the emu."""
import numpy as np
import pytest

from t2ctest import accepted_on_emu, c_kernel, mutant_rejected_on_emu
from t2c.errors import UserError
from t2c.generators.poly import generate
from t2c.ir.kernel import eval_extent
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference
from t2c.verify.synth import random_points

SWAPPED = """\
void jacobi_swap(int n, int steps, double *a, double *b)
{
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
    double *tmp = a; a = b; b = tmp;
  }
}
"""

SWAPPED_LOCALS = """\
void heat(int n, int steps, const double *u0, double *u, double *work)
{
  double *src = work, *dst = u;
  for (int i = 0; i < n; i++) src[i] = u0[i];
  for (int t = 0; t < steps; t++) {
    dst[0] = src[0]; dst[n - 1] = src[n - 1];
    for (int i = 1; i < n - 1; i++)
      dst[i] = src[i] + 0.1 * (src[i - 1] - 2 * src[i] + src[i + 1]);
    double *tmp = src; src = dst; dst = tmp;
  }
  if (src != u)
    for (int i = 0; i < n; i++) u[i] = src[i];
}
"""

ONE_BASED = """\
void tridag_rhs(int n, const double *a, const double *b, const double *c, const double *u, double *r)
{
  int j;
  r[1] = b[1] * u[1] + c[1] * u[2];
  for (j = 2; j <= n - 1; j++)
    r[j] = a[j] * u[j - 1] + b[j] * u[j] + c[j] * u[j + 1];
  r[n] = a[n] * u[n - 1] + b[n] * u[n];
}
"""

PACKED = """\
void tpmv(int n, const double *ap, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j <= i; j++)
      s += ap[i * (i + 1) / 2 + j] * x[j];
    y[i] = s;
  }
}
"""

PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>
#define N 1000
void init(int n, double *x, double *y) { for (int i = 0; i < n; i++) { x[i] = i; y[i] = 2 * i; } }
// t2c: kernel
void saxpy(int n, double a, const double *x, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
int main(void)
{
  double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
  init(N, x, y);
  saxpy(N, 2.0, x, y);
  printf("%f\\n", y[N - 1]);
  return 0;
}
"""


def _shapes(k):
    return {a.name: (a.shape, a.intent) for a in k.arrays}


SWAPPED_BEFORE = SWAPPED.replace("{\n  for (int t", "{\n  double *tmp;\n  for (int t").replace(
    "double *tmp = a;", "tmp = a;")


@pytest.mark.parametrize("text", [SWAPPED, SWAPPED_BEFORE], ids=["declared_inside", "declared_before"])
def test_a_time_loop_over_swapped_buffers_alternates_two_steps(text, tmp_path):
    """The last loop exchanging two pointer parameters each step is two steps over named arrays
    (and an odd count's last one): the reference computes what the user's function computes for
    even and odd counts, each buffer gets the extent of both's subscripts, and poly maps the
    steps to parallel threads (no one-thread fallback)."""
    k = c_kernel(tmp_path, text)
    assert _shapes(k) == {"a": (("n",), "inout"), "b": (("n",), "inout")}     # b alone: n - 1
    assert "tmp" not in k.reference and "t += 2" in k.reference
    for steps in (1, 4, 5):
        sizes = {"n": 9, "steps": steps}
        inputs = synthesize(k, sizes, seed=5)
        want, got = run_reference(k.replace(reference=text), sizes, inputs), run_reference(k, sizes, inputs)
        for name in want.outputs:
            np.testing.assert_array_equal(got.outputs[name], want.outputs[name], err_msg=name)
    source = generate(k)
    assert "one GPU thread" not in source.split("#include")[0]
    accepted_on_emu(k, source)


def test_swapped_local_pointers_reach_the_parameters(tmp_path):
    """Local pointers over two parameters (`src = work, dst = u`): their subscripts are the
    parameters'. The copy back runs after an even count of steps alone, which the suite's even
    sizes reach (the mutant gate checks it)."""
    k = c_kernel(tmp_path, SWAPPED_LOCALS)
    assert _shapes(k) == {"u0": (("n",), "in"), "u": (("n",), "inout"), "work": (("n",), "inout")}
    accepted_on_emu(k, generate(k))
    points = [s for _, s in random_points(k, 3, 4)]
    assert any(s["steps"] % 2 == 0 and s["steps"] > 2 for s in points), points


def test_fixed_elements_beside_a_range_add_the_sizes_that_reach_them(tmp_path):
    """`u[2]` beside `u[n]`: the extent is n + 1 where n >= 2, a constraint t2c adds."""
    k = c_kernel(tmp_path, ONE_BASED)
    assert _shapes(k)["u"] == (("n + 1",), "in") and _shapes(k)["c"] == (("n",), "in")
    assert "n >= 2" in k.constraints
    accepted_on_emu(k, generate(k))


def test_packed_triangular_storage_has_its_extent(tmp_path):
    k = c_kernel(tmp_path, PACKED)
    (extent,), _ = _shapes(k)["ap"]
    assert [eval_extent(extent, {"n": n}) for n in (1, 2, 5, 8)] == [1, 3, 15, 36]
    accepted_on_emu(k, generate(k))


def test_a_program_initialises_through_its_size_macro(tmp_path):
    """`init(N, x, y)` with `#define N 1000`, as main calls `saxpy(N, ...)`: the original init
    follows n (it ran 1000 elements into arrays of n before)."""
    k = c_kernel(tmp_path, PROGRAM)
    assert "init(n, x, y);" in k.init
    accepted_on_emu(k, generate(k))


FLAGS = """\
#include <stdbool.h>
void threshold(int n, bool strict, const double *x, const bool *mask, double t, bool *above, int *count)
{
  int c = 0;
  for (int i = 0; i < n; i++) {
    bool hit = mask[i] && (strict ? x[i] > t : x[i] >= t);
    above[i] = hit;
    if (hit) c++;
  }
  *count = c;
}
"""


def test_bool_parameters_and_arrays(tmp_path):
    """C's bool (`_Bool`, stdbool.h) as a flag and as array elements: drawn false or true,
    compared exactly, and a candidate that writes the negation is rejected."""
    k = c_kernel(tmp_path, FLAGS)
    dtypes = {x.name: x.dtype for x in (*k.scalars, *k.arrays)}
    assert dtypes == {"strict": "bool", "t": "double", "x": "double", "mask": "bool", "above": "bool",
                      "count": "int"}
    assert {(d.target, d.low, d.high) for d in k.domains if d.target in ("strict", "mask")} == \
        {("strict", 0, 1), ("mask", 0, 1)}
    source = generate(k)
    assert "bool *above" in source and "_Bool" not in source
    accepted_on_emu(k, source)
    mutant_rejected_on_emu(k, source, ("above[i] = hit", "above[i] = !hit"), "MINI", "mismatch")


MASKED_SPEC = """\
---
name: masked_scale
sizes:
  n: {MINI: 40, SMALL: 4096}
scalars:
  a: float
  negate: bool
arrays:
  x: float[n] in
  m: bool[n] in
  y: float[n] out
  hit: bool[n] out
---
# Masked scale

```t2c
y[i] = where(m[i], where(negate, -a, a) * x[i], x[i])
hit[i] = m[i] && x[i] > 0
```
"""


def test_a_spec_declares_bool(tmp_path):
    from t2c.frontends import read_kernel
    path = tmp_path / "masked_scale.md"
    path.write_text(MASKED_SPEC)
    k = read_kernel(path)
    assert {x.name: x.dtype for x in (*k.scalars, *k.arrays) if x.dtype == "bool"}.keys() == {"negate", "m", "hit"}
    accepted_on_emu(k, generate(k))


ROW_TABLES = """\
void matmul(int n, double **A, double **B, double **C)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
"""

ROW_TABLE_UPDATE = """\
/* Numerical Recipes style: float **a over a[1..m][1..n] */
void scale_rows(int m, int n, float **a, const float *s)
{
  for (int i = 1; i <= m; i++)
    for (int j = 1; j <= n; j++)
      a[i][j] *= s[i];
}
"""


def test_row_tables_are_rows_of_an_array(tmp_path):
    """`T **a` (a table of row pointers, as C matrices are often allocated): rank 2, its rows and
    their length from `a[i][j]`'s subscripts. NAME takes the table and copies the rows through
    contiguous host memory; NAME_device takes the rows contiguous, so poly maps it as a 2-d array
    (matmul: the tiled tensor-core form)."""
    k = c_kernel(tmp_path, ROW_TABLES)
    assert {a.name: (a.shape, a.rows) for a in k.arrays} == {x: (("n", "n"), True) for x in "ABC"}
    source = generate(k)
    assert 'extern "C" void matmul(int n, double **A, double **B, double **C)' in source
    assert "matmul_device(int n, double *A, double *B, double *C)" in source and "mma.sync" in source
    accepted_on_emu(k, source)


def test_a_row_table_is_written_back_row_by_row(tmp_path):
    k = c_kernel(tmp_path, ROW_TABLE_UPDATE)
    assert {a.name: (a.shape, a.intent, a.rows) for a in k.arrays} == \
        {"a": (("m + 1", "n + 1"), "inout", True), "s": (("m + 1",), "in", False)}
    source = generate(k)
    accepted_on_emu(k, source)
    scatter = "for (size_t r = 0; r < (size_t)(m + 1); r++)\n    memcpy((void *)a[r]"
    mutant_rejected_on_emu(k, source, (scatter, scatter.replace("(size_t)(m + 1)", "1")), "MINI", "mismatch")


KANDR = """\
void vsub(n, a, b, c, scale)
int n; const double *a; const double *b; double *c;
double scale;
{
  int i;
  for (i = 0; i < n; i++)
    c[i] = scale * (a[i] - b[i]);
}
"""


def test_a_k_and_r_definition_is_its_prototype(tmp_path):
    k = c_kernel(tmp_path, KANDR)
    assert k.params == ("n", "a", "b", "c", "scale") and "void vsub(int n, const double a[n]" in k.reference
    accepted_on_emu(k, generate(k))
    with pytest.raises(UserError, match="K&R parameter 'scale' of type 'float' is passed promoted"):
        c_kernel(tmp_path, KANDR.replace("double scale;", "float scale;"), "promoted")


def test_a_step_that_may_end_early_keeps_its_swap(tmp_path):
    """`continue` in a step would skip the other step of a pair: such a loop stays as written,
    its buffers still one extent."""
    k = c_kernel(tmp_path, SWAPPED.replace("    for (int i = 1;", "    if (t == 2) continue;\n    for (int i = 1;"))
    assert "tmp" in k.reference and _shapes(k)["b"] == (("n",), "inout")
