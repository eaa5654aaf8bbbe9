"""Local pointers at a fixed offset into an array parameter (frontends/c/pointers.py): `T *row =
A + r*cols` (or `&A[r*cols]`, `&A[r][0]`), used only as `row[c]` or `*row`, with the offset's
variables fixed while the pointer lives, are read as subscripts of the array: the kernel is
inside the polyhedral model, its plan has a parallel launch, the reference computes bit for bit
what the user's function computes, and poly's candidate passes the emu ladder.  A pointer that
moves (assigned, incremented) or whose offset can change stays outside, with today's message."""
import shutil

import numpy as np
import pytest
from pycparser import c_ast

from t2ctest import accepted_on_emu, c_kernel
from t2c.analysis import NotAffine, analyze
from t2c.errors import UserError
from t2c.generators.poly import generate
from t2c.ir.csyntax import kernel_definition, parse_c, walk
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

MATVEC = """/* t2c: size rows MINI=10 SMALL=300
 * t2c: size cols MINI=12 SMALL=400
 * t2c: array A[rows][cols] in
 * t2c: array x[cols] in
 * t2c: array y[rows] out
 */
void matvec_f(int rows, int cols, const float *A, const float *x, float *y)
{
    for (int r = 0; r < rows; r++) {
        const float *row = A + r * cols;
        double acc = 0.0;
        for (int c = 0; c < cols; c++)
            acc += row[c] * x[c];
        y[r] = (float)acc;
    }
}
"""

SCALE_ROWS = """/* t2c: size rows MINI=10 SMALL=300
 * t2c: size cols MINI=12 SMALL=400
 * t2c: array in[rows][cols] in
 * t2c: array out[rows][cols] out
 */
void scale_rows(int rows, int cols, float s, const float *in, float *out)
{
    for (int r = 0; r < rows; r++) {
        const float *in_row = in + r * cols;
        float *out_row = out + r * cols;
        for (int c = 0; c < cols; c++)
            out_row[c] = in_row[c] * s;
    }
}
"""

ROW_SUMS = """/* t2c: size n MINI=9 SMALL=200
 * t2c: size m MINI=11 SMALL=300
 * t2c: array a[n][m] in
 * t2c: array s[n] out
 */
void row_sums(int n, int m, const double *a, double *s)
{
    int i, j;
    for (i = 0; i < n; i++) {
        const double *ai = &a[i * m];
        double *si = &s[i];
        *si = 0.0;
        for (j = 0; j < m; j++)
            *si += ai[j];
    }
}
"""

SHIFT_2D = """/* t2c: size n MINI=9 SMALL=200
 * t2c: size m MINI=11 SMALL=300
 */
void shift_rows(int n, int m, const double a[n][m], double b[n][m])
{
    for (int i = 0; i < n; i++) {
        const double *src = &a[i][1];
        double *dst = &b[i][0];
        for (int j = 0; j < m - 1; j++)
            dst[j] = 0.5 * (src[j - 1] + src[j]);
        dst[m - 1] = src[m - 2];
    }
}
"""

LOCAL_OFFSET = """/* t2c: size rows MINI=10
 * t2c: size cols MINI=12
 * t2c: array A[rows][cols] in
 */
void local_offset(int rows, int cols, const float *A, float *y)
{
    for (int r = 0; r < rows; r++) {
        int off = r * cols;
        const float *row = A + off;
        double acc = 0.0;
        for (int c = 0; c < cols; c++)
            acc += row[c];
        y[r] = (float)acc;
    }
}
"""

# an offset named by an integer local (indices.py reads it as its expression first)
FOLDED = [MATVEC, SCALE_ROWS, ROW_SUMS, SHIFT_2D, LOCAL_OFFSET]


def _name(text):
    return text.split("void ", 1)[1].split("(")[0]


def _kernel(text, tmp_path):
    return c_kernel(tmp_path, text, _name(text))


@pytest.mark.parametrize("text", FOLDED, ids=_name)
def test_a_fixed_row_pointer_is_read_as_its_array(text, tmp_path):
    k = _kernel(text, tmp_path)
    body = kernel_definition(parse_c(k.reference, "ref")).body
    assert not [d for d in walk(body) if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.PtrDecl)]
    _, plan = final_plan(analyze(k), DEFAULT)
    assert any(l.axes for l in plan.launches), plan.launches      # a parallel launch
    accepted_on_emu(k, generate(k))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("text", FOLDED, ids=_name)
def test_the_reference_computes_what_the_users_function_computes(text, tmp_path):
    k = _kernel(text, tmp_path)
    sizes = dict(k.dataset_sizes("MINI"))
    inputs = synthesize(k, sizes, seed=5)
    users = k.replace(reference=text.split("*/", 1)[1])       # the function as written
    want, got = run_reference(users, sizes, inputs), run_reference(k, sizes, inputs)
    assert set(want.outputs) == set(got.outputs) and want.outputs
    for name in want.outputs:
        np.testing.assert_array_equal(got.outputs[name], want.outputs[name], err_msg=name)


MOVED = """/* t2c: size rows MINI=10
 * t2c: size cols MINI=12
 * t2c: array A[rows][cols] in
 */
void moved(int rows, int cols, const float *A, float *y)
{
    const float *p = A;
    for (int r = 0; r < rows; r++) {
        double acc = 0.0;
        for (int c = 0; c < cols; c++)
            acc += p[c];
        y[r] = (float)acc;
        p = p + cols;
    }
}
"""

STEPPED = """/* t2c: size n MINI=10
 * t2c: array a[n] in
 */
void stepped(int n, const float *a, float *y)
{
    const float *p = a;
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
        acc += *p;
        p++;
    }
    y[0] = acc;
}
"""

WRITTEN_OFFSET = """/* t2c: size n MINI=10
 * t2c: array a[n] in
 * t2c: domain o integers(0, n - 1)
 */
void written_offset(int n, int o, const float *a, float *y)
{
    for (int i = 0; i < n; i++) {
        const float *p = a + o;
        o = o / 2;
        y[i] = p[0];
    }
}
"""


@pytest.mark.parametrize("text, local", [(MOVED, "p"), (WRITTEN_OFFSET, "p")],
                         ids=["assigned", "offset-of-a-written-parameter"])
def test_a_pointer_that_moves_or_whose_offset_may_change_stays_outside(text, local, tmp_path):
    k = _kernel(text, tmp_path)
    with pytest.raises(NotAffine, match=f"local '{local}' is not a scalar or an array"):
        analyze(k)


@pytest.mark.parametrize("text, message", [
    (STEPPED, "pointer dereference of an expression is not supported"),
    (STEPPED.replace("const float *p = a;", "const float *p = &a[0];"), "taking an address is not supported")],
    ids=["incremented", "address-of-incremented"])
def test_an_incremented_pointer_is_refused_as_before(text, message, tmp_path):
    with pytest.raises(UserError, match=message):
        _kernel(text, tmp_path)
