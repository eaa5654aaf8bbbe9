"""Loads first for whole-loop reductions over a rectangular nest's flat range (issue #35).

Such a reduction's threads walked their points one at a time, each point's load between the
compares of the point before and after it: one load in flight per thread (the 3-D arg-min
reached 30% of the copy bandwidth).  The plan (`Reduction.ahead`, `loads_first`) now names the
reads a thread loads for its next 4 points before it folds any of them: reads of arrays the
launch never writes whose subscripts isl proves inside the array at every point of the
rectangle.  A read under a guard that keeps it in bounds is not one (loading it first would
read outside).  The candidates keep each thread's points and their order, and the emu ladder
accepts them, also when threads take many points, a number not a multiple of 4."""
import re

import pytest

from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.reduce import AHEAD, reduction_of
from t2c.verify.ladder import ladder
from t2ctest import FROB_NORM_SPEC, ROOT

IDIOMS = ROOT / "corpora" / "loops" / "idioms"


# rises along rows: a[i][j - 1] is read only where j > 0 (outside the row at j = 0), a[i][j] everywhere;
# b[i][j + 1] is inside at every point of the nest (j < m - 1), so it loads first
RISES = """\
/* t2c: size n MINI=7 SMALL=61 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: size m MINI=9 SMALL=47 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: array a[n][m] in
 * t2c: array b[n][m] in
 * t2c: array out[2] out */
void rises(int n, int m, const float a[n][m], const float b[n][m], int *out)
{
  int up = 0, down = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m - 1; j++) {
      if (j > 0 && a[i][j - 1] < a[i][j])
        up++;
      if (b[i][j + 1] < b[i][j])
        down++;
    }
  out[0] = up;
  out[1] = down;
}
"""


def _reduction(k):
    an = analyze(k)
    plan = planned(an, DEFAULT)
    red, = [reduction_of(an, plan.storage, launch) for launch in plan.launches]
    return red


def _kernel(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return read_kernel(path)


@pytest.mark.parametrize("name, reads", [
    ("matrix_summary.c", (("m[r][c]", "float"),)),
    ("grid_argmin.c", (("f[k][j][i]", "float"),)),
    ("grid_norms.c", (("u[k][j][i]", "double"),)),              # a flat pointer with annotated extents
    ("last_peak_column.c", (("img[y][x]", "int"),)),            # img[r][c]: through the best's scalars
])
def test_the_plan_loads_a_nest_reductions_reads_first(name, reads):
    """Each corpus kernel of the class (before: no `ahead`, one load per step) loads its reads of
    the nest's point first, 4 points a turn; a read through the scalars a fold sets stays where it
    is.  The candidate issues the loads before the folds."""
    k = read_kernel(IDIOMS / name)
    red = _reduction(k)
    assert red is not None and red.flat
    assert red.ahead == (AHEAD, reads) and AHEAD == 4
    text = generate(k)
    assert text.rindex("their loads first") < text.rindex("then each point's folds")   # (the point walk: after any quad walk)
    assert re.search(r"poly_h0\[poly_u\] = \w+\[", text)


def test_a_spec_sum_over_a_nest_loads_first(tmp_path):
    """The spec form `sum(i, j: ...)` takes the same flat reduction and loads its read first."""
    red = _reduction(_kernel(tmp_path, "frob.md", FROB_NORM_SPEC))
    assert red.flat and red.ahead == (AHEAD, (("a[i][j]", "float"),))


def test_a_guarded_read_outside_the_array_is_not_loaded_first(tmp_path):
    """a[i][j - 1] under `j > 0` would read a[i][-1] if loaded at every point: it stays under its
    guard; a[i][j] and b[i][j + 1] (inside everywhere: j < m - 1) load first.  The emu ladder,
    which reports reads outside an array, accepts the candidate."""
    k = _kernel(tmp_path, "rises.c", RISES)
    red = _reduction(k)
    assert red.ahead == (AHEAD, (("a[i][j]", "float"), ("b[i][j + 1]", "float"), ("b[i][j]", "float")))
    text = generate(k)
    assert re.search(r"j > 0\) && \(a\[\(i \* m\) \+ \(j - 1\)\] < poly_h0\[poly_u\]", text)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("name, dataset", [
    ("matrix_summary.c", "MINI"), ("grid_argmin.c", "SMALL"), ("last_peak_column.c", "SMALL"),
    ("rises.c", "SMALL"),
])
def test_threads_with_many_points_fold_them_in_order(tmp_path, name, dataset):
    """With 3 blocks each thread takes many points, their number not a multiple of 4 (the last
    turn's points past the nest are skipped); the folds see them in the walk's order, so an
    arg-best's ties still go where the loop sends them: the ladder accepts."""
    k = _kernel(tmp_path, name, RISES) if name == "rises.c" else read_kernel(IDIOMS / name)
    few, n = re.subn(r"int poly_parts = extent > .*;", "int poly_parts = 3;", generate(k))
    assert n == 1 and "their loads first" in few
    card = ladder(k, few, backend="emu", dataset=dataset, seed=5)
    assert card.accepted, card.summary()
