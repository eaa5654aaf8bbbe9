"""Row reductions whose accumulator is a local scalar (`double s = 0; for j: s += A[i][j]*x[j];
y[i] = s;`, the form users write and the form specs lower `sum(j: ...)` to) take the warp-per-row
form like those accumulating into an array cell (`tmp[i] = 0; for j: tmp[i] += ...`): the
scalar's initialization in the row is its own cell, which lane 0 may run after the lanes' loop."""
import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT


def _row_launches(path):
    _, plan = final_plan(analyze(read_kernel(path)), DEFAULT)
    return {l.name: l.row for l in plan.launches}


@pytest.mark.parametrize("path, launch, column", [
    ("corpora/loops/vectorizer/triangular_sum.c", "triangular_sum_update_y", False),
    ("corpora/loops/rodinia/backprop_layer.c", "backprop_layer_update_out", True),
    ("corpora/text2cuda/gemv.md", "gemv_update_y", False),
    ("corpora/text2cuda/trmv_upper.md", "trmv_upper_update_y", False),
])
def test_a_scalar_accumulated_row_is_reduced_by_lanes(path, launch, column):
    row = _row_launches(ROOT / path)[launch]
    assert row is not None and row.column == column
    (acc,) = row.accs
    assert not acc.stmt.stmt.writes()[0].index      # the accumulator is a scalar
