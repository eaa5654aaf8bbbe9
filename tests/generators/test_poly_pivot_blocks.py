"""Pivot blocks (pivotblocks.py, `launches.pivot_blocks`): a host loop of elimination steps whose
2-d update starts past the pivot runs in blocks of pivots: the diagonal block in one block of
threads, then a launch per set of grid indices at the block's end or past it. The plan's records
on PolyBench, the loops corpus and a spec; the loops it refuses and why; the candidates on the
emu with several blocks and a short last one; the trailing matrix's cells held in registers;
each phase's panels in shared memory; the emu catching the diagonal block without its barrier, a
held cell never stored, a panel never stored or read before its barrier, and a trailing launch run
before the panel."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel, mutant_rejected_on_emu
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.mapping import HostLoop
from t2c.generators.poly.options import DEFAULT

LU = "corpora/polybench/linear-algebra/solvers/lu/lu.c"
CHOLESKY = "corpora/polybench/linear-algebra/solvers/cholesky/cholesky.c"
LUDCMP = "corpora/polybench/linear-algebra/solvers/ludcmp/ludcmp.c"
LU_INPLACE = "corpora/loops/rodinia/lu_inplace.c"
LU_SPEC = "corpora/text2cuda/lu_nopivot.md"
SIXTEEN = DEFAULT.replace({"launches.pivot_blocks.size": 16})
EIGHT = DEFAULT.replace({"launches.pivot_blocks.size": 8})


def _loop(k, var: str = "k", options=DEFAULT) -> HostLoop:
    _, plan = final_plan(analyze(k), options)
    return next(it for it in plan.items if isinstance(it, HostLoop) and it.loop.var == var)


@pytest.mark.parametrize("path, phases", [
    # S1 scales the column, then the update's two parts (j < i, j >= i): the panel below the
    # diagonal block, the rows to its right, the trailing matrix
    (LU, [((), (0, 1, 2)), (("i",), (0, 1)), (("j",), (2,)), (("j", "i"), (1, 2))]),
    # the pivot's square root (one thread) is only ever in the diagonal block; j <= i: no rows to the right
    (CHOLESKY, [((), (0, 1, 2)), (("i",), (1, 2)), (("j", "i"), (2,))]),
    (LUDCMP, [((), (0, 1, 2)), (("i",), (0, 2)), (("j",), (1,)), (("j", "i"), (1, 2))]),
    (LU_INPLACE, [((), (0, 1)), (("i",), (0, 1)), (("j",), (1,)), (("j", "i"), (1,))]),
    (LU_SPEC, [((), (0, 1)), (("i",), (0, 1)), (("j",), (1,)), (("j", "i"), (1,))]),
])
def test_an_elimination_runs_in_blocks_of_pivots(path, phases):
    k = read_kernel(ROOT / path)
    h = _loop(k)
    assert h.pivot_blocks and h.pivot_blocks.size == 16 and h.pivot_blocks.threads == 1024
    assert [(ph.past, ph.launches) for ph in h.pivot_blocks.phases] == phases
    assert all(ph.axes == (("x", "y") if len(ph.past) == 2 else ("x",) * len(ph.past)) for ph in h.pivot_blocks.phases)
    # the trailing matrix's threads each keep their cell in a register over the block's pivots; the
    # diagonal block works on its tile in shared memory
    assert [ph.past for ph in h.pivot_blocks.phases if ph.held] == [("j", "i")]
    assert h.pivot_blocks.tile == (k.arrays[0].name,)
    assert not h.one_block and not h.persistent and all(l.in_block for l in h.items)
    text = generate(k)
    short = k.name.removeprefix("kernel_").replace("-", "_")
    assert f"runs in blocks of 16 pivots: per block {short}_pivots_k," in text.split("#include")[0]
    host = text[text.index("_device("):]
    assert "k += 16)" in host and f"poly_after(1, 1024, 0).at(), {short}_pivots_k," in host
    assert host.count("_pivots_k") == len(phases)           # a launch per phase and block, none per pivot


def test_a_triangular_update_whose_rows_start_at_its_column_is_of_the_class(tmp_path):
    # right-looking Cholesky as users write it: the update's i starts at j, j at k + 1 (its box: k + 1)
    k = c_kernel(tmp_path, """
#include <math.h>
void cholesky_right(int n, double A[n][n]) {
  for (int k = 0; k < n; k++) {
    A[k][k] = sqrt(A[k][k]);
    for (int i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (int j = k + 1; j < n; j++)
      for (int i = j; i < n; i++)
        A[i][j] -= A[i][k] * A[j][k];
  }
}""")
    h = _loop(k)
    assert h.pivot_blocks and [ph.past for ph in h.pivot_blocks.phases] == [(), ("i",), ("j", "i")]
    accepted_on_emu(k, generate(k, EIGHT))


@pytest.mark.parametrize("text", [
    # the textbook elimination with a right-hand side: the multiplier a scalar of its row
    """void gauss_elim(int n, double A[n][n], double b[n]) {
  for (int k = 0; k < n - 1; k++)
    for (int i = k + 1; i < n; i++) {
      double l = A[i][k] / A[k][k];
      for (int j = k + 1; j < n; j++)
        A[i][j] -= l * A[k][j];
      b[i] -= l * b[k];
    }
}""",
    # the pivot hoisted into a scalar of the step
    """void lu_hoisted(int n, double *a) {
  for (int k = 0; k < n; k++) {
    double piv = a[k * n + k];
    for (int i = k + 1; i < n; i++)
      a[i * n + k] /= piv;
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++)
        a[i * n + j] -= a[i * n + k] * a[k * n + j];
  }
}"""])
def test_a_scalar_of_array_cells_is_recomputed_where_read_and_the_loop_blocked(text, tmp_path):
    """The scalar's cells are written by nothing of its loops (isl): its expression where it is
    read (schedule.rematerialized), so the update is a 2-d grid and no scalar crosses launches."""
    k = c_kernel(tmp_path, text)
    h = _loop(k)
    assert h.pivot_blocks and ("j", "i") in [ph.past for ph in h.pivot_blocks.phases]
    text = generate(k, EIGHT)
    assert "(scalars recomputed where read)" in text and "_seq_scalars" not in text
    accepted_on_emu(k, text)


def test_a_scalar_whose_cell_changes_before_it_is_read_stays(tmp_path):
    k = c_kernel(tmp_path, """
void shift_out(int n, double *a, double *b) {
  for (int i = 0; i < n; i++) {
    double t = a[i];
    a[i] = 0.0;
    b[i] = t;
  }
}""")
    from t2c.generators.poly.schedule import rematerialized
    assert rematerialized(analyze(k)) is None and "recomputed where read" not in generate(k)
    # stored, then the cell scaled before the scalar's read: the cell no longer holds it
    k = c_kernel(tmp_path, """
void stored_then_scaled(int n, double A[n][n]) {
  for (int k = 0; k < n - 1; k++)
    for (int i = k + 1; i < n; i++) {
      double m = A[i][k] / A[k][k];
      A[i][k] = m;
      A[i][k] *= 2.0;
      for (int j = k + 1; j < n; j++)
        A[i][j] -= m * A[k][j];
    }
}""")
    assert rematerialized(analyze(k)) is None


def test_the_option_off_keeps_a_launch_per_pivot():
    k = read_kernel(ROOT / LU)
    h = _loop(k, options=DEFAULT.replace({"launches.pivot_blocks": None}))
    assert h.pivot_blocks is None and "_pivots_" not in generate(k, DEFAULT.replace({"launches.pivot_blocks": None}))


def test_loops_of_other_shapes_are_not_of_the_class_or_say_why(tmp_path):
    # gramschmidt's update starts at row 0, fdtd-2d's time loop has no pivot: not of the class, no note
    for path in ("corpora/polybench/linear-algebra/solvers/gramschmidt/gramschmidt.c",
                 "corpora/polybench/stencils/fdtd-2d/fdtd-2d.c"):
        h = _loop(read_kernel(ROOT / path), "k" if "gram" in path else "t")
        assert h.pivot_blocks is None and h.not_pivot_blocks is None
    # floyd-warshall's split pivot rows: a part's grid ends where k moves it
    h = _loop(read_kernel(ROOT / "corpora/polybench/medley/floyd-warshall/floyd-warshall.c"))
    assert h.pivot_blocks is None and str(h.not_pivot_blocks).endswith("a grid index whose last value moves with k")
    # each step first copies the last row, which the trailing update of the step before changed:
    # in blocks, the copies of a block would all run before its trailing updates
    k = c_kernel(tmp_path, """
void last_row(int n, double A[n][n], double B[n]) {
  for (int k = 0; k < n; k++) {
    for (int j = k + 1; j < n; j++)
      B[j] = A[n - 1][j];
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * B[j];
  }
}""")
    h = _loop(k)
    assert h.pivot_blocks is None and "a dependence runs backward in blocks of pivots" in str(h.not_pivot_blocks)
    assert "_pivots_" not in generate(k)


@pytest.mark.parametrize("path, options", [
    (LU, SIXTEEN), (CHOLESKY, SIXTEEN), (LUDCMP, SIXTEEN),   # n = 40: blocks of 16, 16 and 8 pivots
    (CHOLESKY, DEFAULT), (LU_INPLACE, EIGHT), (LU_SPEC, SIXTEEN),
    (LU, DEFAULT.replace({"launches.pivot_blocks.size": 32})),   # n = 40: a block of 32 and one of 7
    ("corpora/text2cuda/cholesky_right.md", SIXTEEN),       # float, the trailing lower triangle
    (LU, EIGHT.replace({"launches.pivot_blocks.lanes": 4})), (LUDCMP, DEFAULT.replace({"launches.pivot_blocks.lanes": 4})),
    (CHOLESKY, EIGHT.replace({"launches.pivot_blocks.lanes": 4})),   # a warp per row of the panels
    (LU, SIXTEEN.replace({"launches.pivot_blocks.shared": False})),   # the diagonal block in global memory
    (LU, SIXTEEN.replace({"launches.pivot_blocks.cells": (4, 4)})),   # a block of 128 x 32 trailing cells: past n
    (CHOLESKY, SIXTEEN.replace({"launches.pivot_blocks.panels": False})),
    (LUDCMP, EIGHT.replace({"launches.pivot_blocks.cells": (1, 1)}))])
def test_pivot_blocks_are_accepted_on_the_emu(path, options):
    k = read_kernel(ROOT / path)
    text = generate(k, options)
    assert "_pivots_k_j_i(" in text
    accepted_on_emu(k, text)


def test_a_held_cell_is_stored_once_a_block_and_the_emu_catches_it_kept():
    k = read_kernel(ROOT / LU)
    text = generate(k, SIXTEEN)
    kernel = text[text.index("void lu_pivots_k_j_i("):]
    store = "*poly_cell[poly_cy][poly_cx] = poly_acc[poly_cy][poly_cx];"
    assert kernel.count("lu_update_A_2_j_i(") == 1 and f"if (poly_cell[poly_cy][poly_cx])\n        {store}" in kernel
    mutant_rejected_on_emu(k, text, (store, ";"), "MINI", r"output mismatch")


def test_the_emu_catches_a_diagonal_block_without_its_barrier_and_a_phase_out_of_order():
    k = read_kernel(ROOT / LU)
    text = generate(k, SIXTEEN)
    kernel = text.index("lu_pivots_k(int n")
    barrier = text.index("    __syncthreads();\n", kernel)
    mutant_rejected_on_emu(k, text[:barrier] + text[barrier:].replace("    __syncthreads();\n", "", 1),
                           ("lu_pivots_k(int n", "lu_pivots_k(int n"), "MINI", r"output mismatch|race")
    # the trailing matrix's launch before the panel's: it reads the panel's cells before they are final
    host = text.index("extern \"C\" void kernel_lu_device")
    i, t = text.index("lu_pivots_k_i, n", host), text.index("lu_pivots_k_j_i, n", host)
    swapped = text[:host] + text[host:].replace("lu_pivots_k_i, n", "@@", 1).replace("lu_pivots_k_j_i, n", "lu_pivots_k_i, n", 1) \
        .replace("@@", "lu_pivots_k_j_i, n", 1)
    assert i < t and swapped != text
    mutant_rejected_on_emu(k, swapped, ("kernel_lu_device", "kernel_lu_device"), "MINI", r"output mismatch|NaN")


@pytest.mark.parametrize("path, panels", [
    # the panel: its rows of the block's columns (written, stored back) and the diagonal block;
    # the rows to the right: their columns of the block's rows and the diagonal block; the
    # trailing matrix reads the panel's rows and the right rows' columns, never writing them
    (LU, {("i",): [("i", None, True), (None, None, False)], ("j",): [(None, "j", True), (None, None, False)],
          ("j", "i"): [("i", None, False), (None, "j", False)]}),
    # A[i][k] * A[j][k]: both of the trailing matrix's reads are rows of the panel
    (CHOLESKY, {("i",): [("i", None, True), (None, None, False)], ("j", "i"): [("i", None, False), ("j", None, False)]}),
])
def test_each_phase_reads_its_cells_with_one_index_in_the_block_through_shared_memory(path, panels):
    k = read_kernel(ROOT / path)
    phases = [ph for ph in _loop(k).pivot_blocks.phases if ph.past]
    assert {ph.past: [(*x.dims, x.written) for x in ph.panels] for ph in phases} == panels
    # a 1-d phase with panels: 64 threads a block (64 rows of 17 doubles); the trailing matrix's
    # threads 2 x 4 cells each, a block's threads apart
    assert [(ph.block, ph.cells) for ph in phases] == [((64,), ())] * (len(phases) - 1) + [((32, 8), (2, 4))]
    text = generate(k)
    trailing = text[text.index("_pivots_k_j_i(int n"):]
    assert "__shared__ double poly_panel0[544];" in trailing and "poly_acc[4][2] = {};" in trailing
    assert "poly_p0[(i * 17) + k]" in text            # the panel's rows padded by one


def test_a_phase_checks_only_what_its_calls_may_miss():
    # lu's trailing update: i >= k + 2 and j >= k + 1 hold for every pivot of the block once i, j >= E
    # (isl); each thread's cells keep their bounds and the triangle their statement takes
    k = read_kernel(ROOT / LU)
    trailing = _loop(k).pivot_blocks.phases[-1]
    assert trailing.guards == ((1, "i < n && j < i"), (2, "j >= i && j < n"))
    text = generate(k)
    body = text[text.index("void lu_update_A_2_j_i("):]
    assert body.index("  if (!(i < n && j < i))\n    return;") < body.index("}\n")
    # no condition names the pivot: each cell is loaded before the pivots (NAME_load), and the
    # update at a pivot is the statement alone
    assert trailing.loaded and "if (!poly_cell)" not in body[:body.index("}\n")]
    kernel = text[text.index("void lu_pivots_k_j_i("):]
    assert kernel.index("lu_update_A_2_j_i_load(") < kernel.index("for (; k < poly_e") < kernel.index("lu_update_A_2_j_i(")


def test_a_reference_outside_the_panels_keeps_the_array_in_global_memory(tmp_path):
    # A[0][j]: row 0 is neither a thread's row nor in the block: A stays in global memory, blocked as before
    k = c_kernel(tmp_path, """
void ge_row0(int n, double A[n][n]) {
  for (int k = 0; k < n - 1; k++) {
    for (int i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (int i = k + 1; i < n; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j] + 1e-3 * A[0][j];
  }
}""")
    h = _loop(k)
    assert [ph.past for ph in h.pivot_blocks.phases] == [(), ("i",), ("j",), ("j", "i")]
    assert not any(ph.panels for ph in h.pivot_blocks.phases) and h.pivot_blocks.phases[1].block == (256,)
    text = generate(k, EIGHT)
    assert "poly_panel" not in text
    accepted_on_emu(k, text)


def test_the_emu_catches_a_panel_not_stored_back_or_read_before_its_barrier():
    k = read_kernel(ROOT / LU)
    text = generate(k, SIXTEEN)
    panel = text.index("void lu_pivots_k_i(int n")
    store = text.index("  __syncthreads();\n  for (int poly_t", panel)
    mutant_rejected_on_emu(k, text[:store] + text[store:].replace("      A[(size_t)poly_r * (n) + poly_c] = ", "      (void)", 1),
                           ("lu_pivots_k_i(int n", "lu_pivots_k_i(int n"), "MINI", r"output mismatch|NaN")
    trailing = text.index("void lu_pivots_k_j_i(int n")
    load = text.index("  __syncthreads();\n  int k = poly_b0;", trailing)
    mutant_rejected_on_emu(k, text[:load] + text[load:].replace("  __syncthreads();\n", "", 1),
                           ("lu_pivots_k_j_i(int n", "lu_pivots_k_j_i(int n"), "MINI", r"race|output mismatch|NaN")


@pytest.mark.parametrize("text", [
    # row-oriented Doolittle (ikj): isl puts k outside (the triangle i > k once crashed the
    # private-array check, whose box needs bounds in the sizes alone)
    """void lu_ikj(int n, double A[n][n]) {
  for (int i = 1; i < n; i++)
    for (int k = 0; k < i; k++) {
      A[i][k] /= A[k][k];
      for (int j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
    }
}""",
    # float, flat storage, the pivot in a scalar and the multiplier stored, then read from its scalar
    """void ge_flat(int n, float *a) {
  for (int k = 0; k < n - 1; k++) {
    float p = a[k * n + k];
    for (int i = k + 1; i < n; i++) {
      float m = a[i * n + k] / p;
      a[i * n + k] = m;
      for (int j = k + 1; j < n; j++)
        a[i * n + j] -= m * a[k * n + j];
    }
  }
}""",
    # LDL^T, lower triangle in place
    """void ldlt(int n, double A[n][n]) {
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (int j = k + 1; j < n; j++)
      for (int i = j; i < n; i++)
        A[i][j] -= A[i][k] * A[k][k] * A[j][k];
  }
}""",
    # a tall m x n matrix
    """void lu_rect(int m, int n, double A[m][n]) {
  for (int k = 0; k < n; k++) {
    for (int i = k + 1; i < m; i++)
      A[i][k] /= A[k][k];
    for (int i = k + 1; i < m; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}"""])
def test_eliminations_as_users_write_them_run_in_blocks_of_pivots(text, tmp_path):
    k = c_kernel(tmp_path, text)
    h = _loop(k)
    assert h.pivot_blocks and h.pivot_blocks.phases[-1].past == ("j", "i") and h.pivot_blocks.phases[-1].panels
    accepted_on_emu(k, generate(k, EIGHT))


def test_a_cell_whose_condition_names_the_pivot_is_loaded_at_its_first_point(tmp_path):
    # rows from k + 2: at the block's last pivot, row E is not updated, so the condition keeps
    # i >= k + 2 and each cell is loaded at its first point, as before
    k = c_kernel(tmp_path, """
void skip_one(int n, double A[n][n]) {
  for (int k = 0; k < n - 2; k++) {
    for (int i = k + 2; i < n; i++)
      for (int j = k + 1; j < n; j++)
        A[i][j] -= 0.5 * A[i][k] * A[k][j];
  }
}""")
    trailing = _loop(k).pivot_blocks.phases[-1]
    assert trailing.past == ("j", "i") and not trailing.loaded and dict(trailing.guards)[0].startswith("i >= (k + 2) && ")
    text = generate(k, EIGHT)
    assert "_load(" not in text and "if (!poly_cell)" in text
    accepted_on_emu(k, text)


def test_a_trailing_block_with_no_cell_of_the_triangle_leaves_at_once():
    # cholesky's update takes j < i: a block wholly above the diagonal has nothing to do; the test
    # is each comparison at its box corner, so every block with a cell stays (checked against all
    # cells at n = 200) and most of those above the diagonal leave
    k = read_kernel(ROOT / CHOLESKY)
    trailing = _loop(k).pivot_blocks.phases[-1]
    assert trailing.live == "(poly_i0 < n && poly_j0 < (poly_i0 + 31))"
    n, e, left = 200, 32, 0
    live = trailing.live.replace("&&", "and").replace("||", "or")
    for i0 in range(e, n, 32):
        for j0 in range(e, n, 64):
            has = any(i < n and j < i for i in range(i0, i0 + 32) for j in range(j0, j0 + 64))
            stays = eval(live, {"poly_i0": i0, "poly_j0": j0, "n": n})
            assert stays or not has
            left += not stays
    assert left >= 2
    text = generate(k)
    kernel = text[text.index("void cholesky_pivots_k_j_i("):]
    assert kernel.index("    return;   /* no cell of this block is updated */") < kernel.index("__syncthreads()")


def test_with_lanes_a_panel_phase_takes_a_warp_per_index_and_the_emu_checks_its_syncs():
    # launches.pivot_blocks.lanes (off by default): the panel below and the rows to the right run
    # a warp per row (column), its lanes over the other index, __syncwarp() after each launch's
    # points; a point of the row alone is lane 0's
    k = read_kernel(ROOT / LU)
    options = EIGHT.replace({"launches.pivot_blocks.lanes": 4})
    phases = _loop(k, options=options).pivot_blocks.phases
    assert [(ph.past, ph.lanes, ph.block) for ph in phases if len(ph.past) == 1] == [(("i",), True, (4,)), (("j",), True, (4,))]
    assert not any(ph.lanes for ph in _loop(k).pivot_blocks.phases)
    text = generate(k, options)
    panel = text[text.index("void lu_pivots_k_i("):]
    assert "    if (threadIdx.x == 0)\n      lu_update_A_1_i(" in panel and "poly_j += 32)" in panel
    assert "dim3 block(32, 4);" in text
    mutant_rejected_on_emu(k, text, ("    __syncwarp();\n    for (int poly_j", "    for (int poly_j"), "MINI",
                           r"race|output mismatch")
