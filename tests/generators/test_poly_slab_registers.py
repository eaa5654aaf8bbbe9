"""A staged row in registers (slabs.Registers, `grid.row_registers`): a thread's own row read only
at `A[p][k]` by loops `for (k = 0; k < E; k++)` over its whole length goes to a register array
once, and each such loop prints as an unrolled loop over the registers and a loop over the rest.
The plan records on k-means and on C kernels written here (a per-point polynomial, a decaying
projection kept in the register accumulator, a constant row); refusals; the emitted shape; the
kernels on the emu and their outputs bit for bit with rows longer and shorter than the registers,
past a partial last block."""
import re

import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

KMEANS = "corpora/loops/rodinia/kmeans_assign.c"

#: a per-point polynomial (its coefficient row) evaluated by Horner's rule at m points
POLYVAL = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
/* t2c: size m MINI=4 SMALL=7 MEDIUM=8 LARGE=8 EXTRALARGE=8 */
/* t2c: size d MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void polyval(int n, int m, int d, const double coef[n][d], const double t[m], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int j = 0; j < m; j++) {
      double v = 0.0;
      for (int k = 0; k < d; k++)
        v = v * t[j] + coef[p][k];
      acc += v * v;
    }
    y[p] = acc;
  }
}
"""

#: the k loop updates one cell, y[p], that does not move with it: the register accumulator's form
PROJECT = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
/* t2c: size m MINI=4 SMALL=7 MEDIUM=8 LARGE=8 EXTRALARGE=8 */
/* t2c: size d MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void project(int n, int m, int d, const float coef[n][d], const float basis[m][d], float y[n])
{
  for (int p = 0; p < n; p++) {
    y[p] = 0.0f;
    for (int j = 0; j < m; j++)
      for (int k = 0; k < d; k++)
        y[p] = 0.5f * y[p] + coef[p][k] * basis[j][k];
  }
}
"""

#: rows of a constant length, shorter than the registers (6) and longer (20)
CONSTANT = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
/* t2c: size m MINI=4 SMALL=7 MEDIUM=8 LARGE=8 EXTRALARGE=8 */
void constant(int n, int m, const double a[n][6], const double b[n][20], const double t[m], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int j = 0; j < m; j++) {
      for (int k = 0; k < 6; k++)
        acc = acc * t[j] + a[p][k];
      for (int k = 0; k < 20; k++)
        acc = acc * 0.5 + b[p][k] * t[j];
    }
    y[p] = acc;
  }
}
"""

#: the row also read at a constant column outside the loop: the slab stays, registers do not
OTHER_READ = POLYVAL.replace("y[p] = acc;", "y[p] = acc + coef[p][0];")
#: a loop from 1: not the whole row
FROM_ONE = POLYVAL.replace("for (int k = 0; k < d; k++)", "for (int k = 1; k < d; k++)")
#: reads along k + 1 and a loop short of the row (the slab's own test kernel)
SHIFTED = """/* t2c: size n MINI=300 SMALL=3000 MEDIUM=30000 LARGE=1000000 EXTRALARGE=4000000 */
/* t2c: size m MINI=5 SMALL=9 MEDIUM=12 LARGE=12 EXTRALARGE=12 */
void shifted(int n, int m, const double x[n], const float coef[n][m], const double d2[n][m], double y[n])
{
  for (int p = 0; p < n; p++) {
    double acc = 0.0;
    for (int k = 0; k < m - 1; k++)
      acc = acc * x[p] + coef[p][k + 1] - coef[p][k] + d2[p][k];
    y[p] = acc;
  }
}
"""

TEXTS = {"polyval": POLYVAL, "project": PROJECT, "constant": CONSTANT}


def _kernel(which, tmp_path):
    return c_kernel(tmp_path, TEXTS[which], which) if which in TEXTS else read_kernel(ROOT / which)


def _slab(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    slab, = [l.slab for l in plan.launches if l.slab]
    return slab


def _kernel_text(text: str) -> str:
    return text[text.index("__global__"):text.index('extern "C"')]


@pytest.mark.parametrize("which, kept", [
    (KMEANS, [("pts", "double", "d", 16, "poly_reg0", {("k", ("S3",))})]),
    ("polyval", [("coef", "double", "d", 16, "poly_reg0", {("k", ("S2",))})]),
    ("project", [("coef", "float", "d", 16, "poly_reg0", {("k", ("S1",))})]),
    # a constant row: as many registers as elements where they are fewer
    ("constant", [("a", "double", "6", 6, "poly_reg0", {("k", ("S1",))}),
                  ("b", "double", "20", 16, "poly_reg1", {("k", ("S2",))})]),
])
def test_a_row_read_only_along_its_whole_length_is_kept_in_registers(which, kept, tmp_path):
    slab = _slab(_kernel(which, tmp_path))
    assert [(g.array, g.dtype, g.length, g.count, g.name, set(g.loops)) for g in slab.registers] == kept


@pytest.mark.parametrize("text", [OTHER_READ, FROM_ONE, SHIFTED],
                         ids=["another read of the row", "a loop from 1", "k + 1 and a loop short of the row"])
def test_rows_read_otherwise_stay_in_shared_memory_only(text, tmp_path):
    slab = _slab(c_kernel(tmp_path, text))
    assert slab.rows and slab.registers == ()
    assert "poly_reg" not in generate(c_kernel(tmp_path, text), DEFAULT)


def test_off_the_rows_stay_in_shared_memory_only():
    k = read_kernel(ROOT / KMEANS)
    off = DEFAULT.replace({"grid.row_registers": None})
    assert _slab(k, off).registers == ()
    text = generate(k, off)
    assert "poly_reg" not in text and "poly_rows0" in text


def test_the_registers_are_filled_after_the_guard_and_read_at_compile_time_indices():
    body = _kernel_text(generate(read_kernel(ROOT / KMEANS), DEFAULT))
    assert body.index("__syncthreads();") < body.index("return;") < body.index("double poly_reg0[16];")
    assert "for (int poly_u = 0; poly_u < 16; poly_u++)\n    if (poly_u < d)\n      poly_reg0[poly_u] = " \
           "(poly_staged) ? (poly_rows0[(int)threadIdx.x * (d | 1) + (poly_u)]) : (pts[(p * d) + poly_u]);" in body
    # the loop: unrolled over the registers, then the rest of the row from the staged copy
    unrolled = body.index("#pragma unroll\n    for (int k = 0; k < 16; k++)")
    rest = body.index("for (int k = 16; k < d; k++)")
    assert unrolled < body.index("if (k < d)") < rest
    assert body[unrolled:rest].count("poly_reg0[k]") == 2 and "poly_rows0" not in body[unrolled:rest]
    assert body[rest:].count("poly_rows0[(int)threadIdx.x * (d | 1) + (k)]") == 2
    # every index of poly_reg0 is the unrolled loop's k or poly_u
    assert set(re.findall(r"poly_reg0\[(\w+)\]", body)) == {"16", "poly_u", "k"}


def test_an_accumulated_cell_stays_in_its_register_across_both_loops(tmp_path):
    body = _kernel_text(generate(_kernel("project", tmp_path), DEFAULT))
    start = body.index("float acc = y[p];")
    assert start < body.index("for (int k = 0; k < 16; k++)") < body.index("for (int k = 16; k < d; k++)") \
        < body.index("y[p] = acc;")
    assert "acc = (0.5f * acc) + (poly_reg0[k] * ((poly_tables) ? (poly_table0[(j * d) + k]) : (basis[(j * d) + k])));" \
        in body                            # basis: a table (test_poly_slab_tables.py)


def test_a_constant_row_needs_no_guard_and_no_rest_when_the_registers_hold_it(tmp_path):
    body = _kernel_text(generate(_kernel("constant", tmp_path), DEFAULT))
    assert "double poly_reg0[6];" in body and "double poly_reg1[16];" in body
    assert "for (int k = 0; k < 6; k++)" in body and "if (k < 6)" not in body and "k = 6;" not in body
    assert "for (int k = 0; k < 16; k++)" in body and "if (k < 20)" not in body and "for (int k = 16; k < 20; k++)" in body


@pytest.mark.parametrize("which", [KMEANS, "polyval", "project", "constant"])
def test_the_kernel_is_accepted_on_emu(which, tmp_path):
    k = _kernel(which, tmp_path)
    text = generate(k, DEFAULT)
    assert "poly_reg0" in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("which, out", [("polyval", "y"), ("project", "y"), (KMEANS, "label")])
@pytest.mark.parametrize("length", [3, 21, 51], ids=["shorter than the registers", "longer",
                                                     "rows past the slab: global reads"])
def test_outputs_are_the_references_bits_past_a_partial_last_block(which, out, length, tmp_path):
    """1000 points: the last block holds 232; the same operations in the same order."""
    k = _kernel(which, tmp_path)
    sizes = {"np": 1000, "nc": 5, "d": length} if which == KMEANS else {"n": 1000, "m": 5, "d": length}
    ref = run_reference(k, sizes, synthesize(k, sizes, 5))
    run = run_candidate(k, build_candidate(k, generate(k, DEFAULT), "emu"), sizes, ref.inputs, mode="device",
                        timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.array_equal(run.outputs[out], ref.outputs[out])


@pytest.mark.parametrize("which, whole", [(KMEANS, "d <= 16"), ("polyval", "d <= 16"), ("constant", "")])
def test_a_call_whose_rows_fit_the_registers_stages_nothing(which, whole, tmp_path):
    """The copy in shared memory only serves rows longer than the registers (Slab.whole_in_registers);
    a constant row longer than them (constant's b, 20) is always staged."""
    k = _kernel(which, tmp_path)
    assert _slab(k).whole_in_registers == whole
    line = "const int poly_staged = poly_slab <= 49152" + (f" && !({whole});" if whole else ";\n")
    assert line in generate(k, DEFAULT)


def test_a_row_without_registers_is_staged_as_before(tmp_path):
    slab = _slab(c_kernel(tmp_path, OTHER_READ))
    assert slab.whole_in_registers == "" and "&& !(" not in generate(c_kernel(tmp_path, OTHER_READ), DEFAULT)
