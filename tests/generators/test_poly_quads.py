"""Flat reductions by 16-byte loads (reduce.quad_reads, `Reduction.quads`): a whole-nest reduction
over a rectangle whose loaded reads index whole rows by the walk's fastest variable walks quads of
4 consecutive points where a run-time test finds the rows fit (a multiple of 4, 16-byte aligned),
each read moved by one 16-byte access (two for doubles); other rows keep the point-by-point walk.
The class on the loops corpus (grid_argmin, matrix_summary; not last_peak_column, whose walk
crosses its nest's order) and on C kernels
written here; refusals; the emu on rows that fit and rows that do not."""
import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel, plan_records
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.reduce import reduction_of
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

# a double matrix's largest magnitude, the first on ties, and its sum (8-byte elements: double2 pairs)
PEAK = """/* t2c: size n MINI=5 SMALL=40 MEDIUM=400 LARGE=4000 EXTRALARGE=8000 */
/* t2c: size m MINI=8 SMALL=36 MEDIUM=400 LARGE=4000 EXTRALARGE=8000 */
#include <math.h>
void peak(int n, int m, const double a[n][m], int at[2], double total[1])
{
  double best = -1.0, s = 0.0;
  int bi = -1, bj = -1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s += a[i][j];
      if (fabs(a[i][j]) > best) {
        best = fabs(a[i][j]);
        bi = i;
        bj = j;
      }
    }
  at[0] = bi;
  at[1] = bj;
  total[0] = s;
}
"""
# the same over the interior of the rows only: not whole rows, no quads
INTERIOR = PEAK.replace("void peak", "void interior").replace("for (int j = 0; j < m; j++)", "for (int j = 1; j < m - 1; j++)")


def _quads(k):
    (red,) = [r for r in plan_records(k, reduction_of) if r is not None]
    return red.quads


@pytest.mark.parametrize("name, quads", [("grid_argmin", (("f", "nx"),)), ("matrix_summary", (("m", "cols"),))])
def test_whole_rows_of_a_flat_reduction_are_read_by_quads(name, quads):
    k = read_kernel(ROOT / f"corpora/loops/idioms/{name}.c")
    assert _quads(k) == quads
    assert "rows of whole quads, 16-byte aligned" in generate(k)


def test_doubles_move_in_pairs_and_a_part_of_the_rows_keeps_the_point_walk(tmp_path):
    k = c_kernel(tmp_path, PEAK)
    assert _quads(k) == (("a", "m"),)
    assert "const double2 poly_v1 = *((const double2 *)&a[(i * m) + j] + 1);" in generate(k)
    assert _quads(c_kernel(tmp_path, INTERIOR, "interior")) == ()


def test_a_one_loop_reduction_and_a_walk_across_the_nests_order_have_no_quads():
    assert _quads(read_kernel(ROOT / "corpora/loops/vectorizer/argmax.c")) == ()
    assert _quads(read_kernel(ROOT / "corpora/loops/idioms/last_peak_column.c")) == ()   # columns first, rows walked


@pytest.mark.parametrize("name", ["grid_argmin", "last_peak_column", None])
def test_the_kernels_are_accepted_on_emu(name, tmp_path):
    k = read_kernel(ROOT / f"corpora/loops/idioms/{name}.c") if name else c_kernel(tmp_path, PEAK)
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("sizes", [{"n": 7, "m": 36}, {"n": 7, "m": 38}, {"n": 1, "m": 4}],
                         ids=["rows of quads", "rows that do not fit", "one quad"])
def test_outputs_match_the_reference(sizes, tmp_path):
    """The arg-best's cell is exact (ties to the first); the sum is regrouped as any grid sum is."""
    k = c_kernel(tmp_path, PEAK)
    ref = run_reference(k, sizes, synthesize(k, sizes, 11))
    run = run_candidate(k, build_candidate(k, generate(k), "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.array_equal(run.outputs["at"], ref.outputs["at"])
    assert np.allclose(run.outputs["total"], ref.outputs["total"], rtol=1e-12)


def test_the_grid_argmin_quads_on_emu_find_the_references_cell(tmp_path):
    k = read_kernel(ROOT / "corpora/loops/idioms/grid_argmin.c")
    sizes = {"nz": 3, "ny": 5, "nx": 12}
    ref = run_reference(k, sizes, synthesize(k, sizes, 4))
    run = run_candidate(k, build_candidate(k, generate(k), "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.array_equal(run.outputs["cell"], ref.outputs["cell"]) and np.array_equal(run.outputs["low"], ref.outputs["low"])
