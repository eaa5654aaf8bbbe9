"""Substitution (substitution.py, `one_block.substitution`): a one-block host loop that finishes
one cell of an array per iteration and then updates the cells past it runs as warps chained by
flags, a warp per 32 cells ("chained", the default), or 32 iterations at a time in one block
("blocked"). The plan's records on PolyBench, the loops corpus and a spec, counting up and down;
the loops it refuses and why; both kernels on the emu; and the emu catching a kernel without its
warp barrier or without the updates a cell takes from the other cells' iterations."""
import re
from dataclasses import replace

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.forms import Context
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.mapping import HostLoop
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.substitution import Substitution, substitution_of
from t2c.runtime.target import SM90
from t2c.verify.ladder import ladder

TRISOLV = "corpora/polybench/linear-algebra/solvers/trisolv/trisolv.c"
LUDCMP = "corpora/polybench/linear-algebra/solvers/ludcmp/ludcmp.c"
UNIT_LOWER = "corpora/loops/solvers/unit_lower_solve.c"
FORWARD_ROWS = "corpora/loops/solvers/forward_substitution.c"
UPPER_COLUMNS = "corpora/loops/solvers/upper_solve_columns.c"
TRSV_SPEC = "corpora/text2cuda/trsv_lower.md"
OFF = DEFAULT.replace({"one_block.substitution": None})
BLOCKED = DEFAULT.replace({"one_block.substitution": "blocked"})


def _final(k, options):
    from t2c.analysis import analyze
    return final_plan(analyze(k), options)


def _loops(k, options=DEFAULT) -> dict[str, HostLoop]:
    _, plan = _final(k, options)
    return {it.loop.var: it for it in plan.items if isinstance(it, HostLoop)}


def _why(k, var: str) -> str:
    """Why the one-block loop `var` is not substitution (asked again of the final plan)."""
    an, plan = _final(k, DEFAULT)
    h = next(it for it in plan.items if isinstance(it, HostLoop) and it.loop.var == var)
    assert h.one_block and h.substitution is None
    return substitution_of(Context.of(an, plan, DEFAULT, SM90), h)[1]


@pytest.mark.parametrize("path, var, record", [
    # isl's schedule of the rows: x[i] /= L[i][i], then x[c1] -= L[c1][i] * x[i] for c1 > i
    (TRISOLV, "i", Substitution("x", "double", True, "i + 1", reads=((("L[i][i]", "double"),), (("L[c1][i]", "double"),)))),
    # its forward substitution into y (unit diagonal: no pivot launch)
    (LUDCMP, "j", Substitution("y", "double", True, "j + 1", reads=((("A[i][j]", "double"),),))),
    (UNIT_LOWER, "j", Substitution("x", "double", True, "j + 1", reads=((("L[i][j]", "double"),),))),
    # rows with a scalar sum: the scalar folded into x[i], then isl's columns
    (FORWARD_ROWS, "i", Substitution("x", "double", True, "i + 1", reads=((("L[i][i]", "double"),), (("L[c1][i]", "double"),)))),
    # from the last column back: the cells past j are below it
    (UPPER_COLUMNS, "j", Substitution("x", "double", False, "0", reads=((("U[j][j]", "double"),), (("U[i][j]", "double"),)))),
    (TRSV_SPEC, "j", Substitution("x", "float", True, "j + 1", reads=((("L[j][j]", "float"),), (("L[i][j]", "float"),)))),
])
def test_a_loop_that_finishes_a_cell_then_updates_those_past_it_is_chained(path, var, record):
    k = read_kernel(ROOT / path)
    h = _loops(k)[var]
    assert h.one_block and h.substitution == record
    text = generate(k)
    name = f"{k.name.removeprefix('kernel_').replace('-', '_')}_loop_{var}"
    assert re.search(rf"__global__ void __launch_bounds__\(32\) {name}_chained\(", text)
    # tried before the one-block kernels, whatever the loop's length; the flags cleared first
    launch = text.index(f"{name}_chained<<<(unsigned)poly_links, 32, poly_chained>>>")
    assert text.index("cudaMemsetAsync(poly_sync, 0,") < launch < text.index("else if (most <= 4096) {")
    assert "runs as chained substitution" in text.split("#include")[0] and "_blocked" not in text
    # the matrix's reads loaded for 32 iterations (its own, then each earlier block's), then run
    update = re.findall(r"static __device__ void (\w+)_reads\(", text)[-1]
    assert re.search(rf"static __device__ void {update}_pre\(.*, {record.dtype} poly_r0, int idx_x\)", text)
    kernel = text[text.index(f"{name}_chained("):]
    assert kernel.index(f"{update}_reads(") < kernel.index("while (((volatile int *)poly_done)[poly_k] == 0)") < \
        kernel.index(f"{update}_pre(")
    # the other form: one block, 32 iterations a step
    assert _loops(k, BLOCKED)[var].substitution == replace(record, chained=False, reads=())
    text = generate(k, BLOCKED)
    assert re.search(rf"__global__ void __launch_bounds__\(1024\) {name}_blocked\(", text)
    assert text.index(f"{name}_blocked<<<1, 1024, poly_blocked>>>") < text.index("else if (most <= 4096) {")
    assert "runs as blocked substitution" in text.split("#include")[0] and "_chained" not in text


def test_an_update_reading_nothing_but_the_array_loads_nothing_first(tmp_path):
    k = c_kernel(tmp_path, """
void halves(int n, double *x)
{
  for (int j = 0; j < n; j++) {
    x[j] = x[j] * 0.5;
    for (int i = j + 1; i < n; i++)
      x[i] -= 0.25 * x[j];
  }
}""")
    h = _loops(k)["j"]
    assert h.substitution == Substitution("x", "double", True, "j + 1", reads=((), ()))
    text = generate(k)
    assert "_chained<<<" in text and "_reads(" not in text
    accepted_on_emu(k, text)


def test_off_the_loop_keeps_its_one_block_kernels():
    k = read_kernel(ROOT / TRISOLV)
    assert _loops(k, OFF)["i"].substitution is None
    text = generate(k, OFF)
    assert "_blocked" not in text and "_chained" not in text and "if (most <= 4096) {" in text


def test_a_loop_of_other_launches_is_no_candidate():
    # durbin: a block sum, two 1-d launches, a one-thread launch: no reason printed
    k = read_kernel(ROOT / "corpora/polybench/linear-algebra/solvers/durbin/durbin.c")
    assert _why(k, "k") == "" and "substitution" not in generate(k).split("#include")[0]


def test_an_update_behind_the_loop_is_refused(tmp_path):
    k = c_kernel(tmp_path, """
void behind(int n, const double *A, const double *d, double *x)
{
  for (int j = 0; j < n; j++) {
    x[j] = x[j] / d[j];
    for (int i = 0; i < j; i++)
      x[i] -= A[i * n + j] * x[j];
  }
}""")
    assert _why(k, "j") == "the update's cells are not all above j"
    assert "//   ... host loop j keeps its one-block form (no substitution kernel): the update's cells are not " \
           "all above j." in generate(k)


def test_an_update_reading_another_cell_is_refused(tmp_path):
    k = c_kernel(tmp_path, """
void other_cell(int n, const double *A, double *x)
{
  for (int j = 1; j < n; j++)
    for (int i = j + 1; i < n; i++)
      x[i] -= A[i * n + j] * x[j - 1];
}""")
    assert _why(k, "j") == "x[(j - 1)] is not the cell an iteration finishes or the update's own"


@pytest.mark.parametrize("path, options", [
    *((path, DEFAULT) for path in (TRISOLV, LUDCMP, UNIT_LOWER, FORWARD_ROWS, UPPER_COLUMNS, TRSV_SPEC)),
    (TRISOLV, BLOCKED), (UPPER_COLUMNS, BLOCKED)])
def test_the_emu_accepts_substitution(path, options):
    """MINI's 40 cells: one whole block of 32 and a short one (in each direction); the emu runs
    the chained warps in a shuffled order of blockIdx, so in another order than their tickets."""
    k = read_kernel(ROOT / path)
    text = generate(k, options)
    assert ("_chained<<<" if options is DEFAULT else "_blocked<<<") in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("options, edit, stage", [
    # warp 0's lanes read x[i] before lane 0 has divided it
    (BLOCKED, ("          trisolv_seq_x_at(n, L, x, i);\n        __syncwarp();", "          trisolv_seq_x_at(n, L, x, i);"),
     "races"),
    # the cells past the block never take the block's updates
    (BLOCKED, ("poly_c < (int)((size_t)(n))", "poly_c < 0"), "random"),
    # the same two cuts in the chained kernel: the lanes read x[i] before lane 0 has divided it;
    # a warp's cells never take the earlier warps' iterations
    (DEFAULT, ("trisolv_seq_x_pre(n, L, x, i, poly_d0_0[poly_m]);\n      __syncwarp();",
               "trisolv_seq_x_pre(n, L, x, i, poly_d0_0[poly_m]);"), "races"),
    (DEFAULT, ("if (poly_lane < poly_own)\n          trisolv_update_x_2_pre(n, L, x, i, poly_e1_0",
               "if (false)\n          trisolv_update_x_2_pre(n, L, x, i, poly_e1_0"), "random"),
])
def test_the_emu_rejects_a_kernel_missing_a_part(options, edit, stage):
    k = read_kernel(ROOT / TRISOLV)
    text = generate(k, options)
    assert edit[0] in text
    card = ladder(k, text.replace(*edit), backend="emu", dataset="MINI", seed=3)
    assert not card.accepted and card.summary().startswith(f"rejected at {stage}")
