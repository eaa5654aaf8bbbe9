"""Arg-bests over whole loop nests (issue #35): `if (E cmp v) { v = E; bi = i; bj = j; }` over a
rectangular nest, keeping any of the nest's variables (all three of a 3-D nest, only the outer
or the inner one), `>=` keeping the last of many ties, and the recomputed form `if (V(i, j) cmp V(bi, bj))
{ bi = i; bj = j; }` over a nest walked by columns.

Each ran on one GPU thread (`reduction_of` refused arg-bests over a nest).  The plan's reduction
now has the nest's flat range and a best fold whose index scalars name their loop variables
(`Fold.indices`); threads keep (value, flat rank in the nest's order), pairs combine to the
better value, ties to the rank the loop keeps, and the last block decodes the coordinates.
Accepted by the emu ladder at MINI and SMALL, also with three blocks (each thread takes many
points, across rows, in the walk's order, which for a nest walked by columns is not the loop's)."""
import re

import numpy as np
import pytest

from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.reduce import reduction_of
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.ladder import ladder
from t2c.verify.reference import run_reference
from t2ctest import ROOT

IDIOMS = ROOT / "corpora" / "loops" / "idioms"

ARGMAX2D = """\
/* t2c: size n MINI=8 SMALL=300 MEDIUM=2000 LARGE=4000
 * t2c: size m MINI=9 SMALL=400 MEDIUM=2000 LARGE=4000
 * t2c: array best[2] out
 */
void argmax2d(int n, int m, const double a[n][m], int best[2])
{
  double v = a[0][0];
  int bi = 0, bj = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      if (a[i][j] > v) {
        v = a[i][j];
        bi = i;
        bj = j;
      }
  best[0] = bi;
  best[1] = bj;
}
"""

LASTMAX = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=2000 LARGE=4000
 * t2c: size m MINI=30 SMALL=250 MEDIUM=2000 LARGE=4000
 * t2c: array best[3] out
 * t2c: domain a integers(0, 3)
 */
void lastmax(int n, int m, const int a[n][m], int best[3])
{
  int v = -1, bi = -5, bj = -7;
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++)
      if (a[i][j] >= v) {
        v = a[i][j];
        bj = j;
        bi = i;
      }
  best[0] = bi;
  best[1] = bj;
  best[2] = v;
}
"""

ROWMAX = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=2000 LARGE=4000
 * t2c: size m MINI=30 SMALL=250 MEDIUM=2000 LARGE=4000
 * t2c: array row[1] out
 * t2c: domain a integers(0, 5)
 */
void rowmax(int n, int m, const double a[n][m], int row[1])
{
  double v = 2.5;
  int bi = -1;
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (v < a[i][j]) {
        v = a[i][j];
        bi = i;
      }
      s += a[i][j];
    }
  row[0] = bi + (int)s;
}
"""

COLMIN = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=2000 LARGE=4000
 * t2c: size m MINI=30 SMALL=250 MEDIUM=2000 LARGE=4000
 * t2c: array col[1] out
 */
void colmin(int n, int m, const float a[n][m], int col[1])
{
  float v = 0.5f;
  int bj = -1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      if (a[i][j] < v) {
        bj = j;
        v = a[i][j];
      }
  col[0] = bj;
}
"""

DESCENDING = """\
/* t2c: size n MINI=8 SMALL=300 MEDIUM=2000 LARGE=4000
 * t2c: size m MINI=9 SMALL=400 MEDIUM=2000 LARGE=4000
 * t2c: array best[2] out
 */
void argmax_down(int n, int m, const double a[n][m], int best[2])
{
  double v = a[0][0];
  int bi = 0, bj = 0;
  for (int i = n - 1; i >= 0; i--)
    for (int j = 0; j < m; j++)
      if (a[i][j] > v) {
        v = a[i][j];
        bi = i;
        bj = j;
      }
  best[0] = bi;
  best[1] = bj;
}
"""

CASES = {
    "argmax2d": ("argmax2d.c", ARGMAX2D, (("i", "0", "n"), ("j", "0", "m")), ">", (("bi", "i"), ("bj", "j")), True),
    "ties_last": ("lastmax.c", LASTMAX, (("i", "0", "n"), ("j", "1", "m - 1")), ">=", (("bj", "j"), ("bi", "i")),
                  True),
    "outer_only": ("rowmax.c", ROWMAX, (("i", "0", "n"), ("j", "0", "m")), ">", (("bi", "i"),), True),
    "inner_only": ("colmin.c", COLMIN, (("i", "0", "n"), ("j", "0", "m")), "<", (("bj", "j"),), True),
    "argmin_3d": (IDIOMS / "grid_argmin.c", None, (("k", "0", "nz"), ("j", "0", "ny"), ("i", "0", "nx")), "<",
                  (("bk", "k"), ("bj", "j"), ("bi", "i")), True),
    "by_columns": (IDIOMS / "last_peak_column.c", None, (("y", "0", "h"), ("x", "0", "w")), ">=",
                   (("r", "y"), ("c", "x")), False),
}


def _kernel(tmp_path, name, text):
    if text is None:
        return read_kernel(name)
    path = tmp_path / name
    path.write_text(text)
    return read_kernel(path)


def _reductions(k):
    an = analyze(k)
    plan = planned(an, DEFAULT)
    return [reduction_of(an, plan.storage, launch) for launch in plan.launches]


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_an_arg_best_over_a_rectangular_nest_is_one_flat_grid_reduction(tmp_path, case):
    """The plan's reduction (before: None, the nest on one thread) covers the nest's flat range
    and has one best fold keeping the index scalars with their loop variables; a kept value
    (`v = E`) is its accumulator, a recomputed one (`V(bi, bj)`) has none."""
    name, text, flat, op, indices, kept = CASES[case]
    k = _kernel(tmp_path, name, text)
    red, = _reductions(k)
    assert red is not None and red.flat == flat
    best = [f for f in red.folds if f.kind == "best"]
    assert len(best) == 1 and (best[0].op, best[0].indices, bool(best[0].acc)) == (op, indices, kept)
    assert (best[0].value is None) == kept
    text = generate(k)
    assert len(re.findall(r"\w+<<<poly_parts, 256>>>", text)) == 1 and "nothing here is parallel" not in text
    assert "as one flat range" in text and "arg-best" in text


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_the_emu_ladder_accepts_a_nest_arg_best(tmp_path, case, dataset):
    name, text, *_ = CASES[case]
    k = _kernel(tmp_path, name, text)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("case", ["ties_last", "argmin_3d", "by_columns"])
def test_threads_taking_many_points_keep_the_loops_answer(tmp_path, case):
    """Three blocks: each thread folds many points in the walk's order, across rows and planes."""
    name, text, *_ = CASES[case]
    k = _kernel(tmp_path, name, text)
    few, n = re.subn(r"int poly_parts = extent > .*;", "int poly_parts = 3;", generate(k))
    assert n == 1
    card = ladder(k, few, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


def test_a_nest_walked_by_columns_takes_a_threads_ties_in_the_loops_order():
    """`for x for y ... img[y][x]` walks x the fastest (coalesced), so a thread's later point may
    come earlier in the loops' order.  One block (256 threads) over a 40 x 50 image of zeros with
    two 9s that one thread takes in turn, (y, x) = (5, 49) and 256 points later (11, 5): `>=`
    keeps the last in the loops' order, (5, 49); the first candidate kept the thread's later point."""
    k = read_kernel(IDIOMS / "last_peak_column.c")
    text, n = re.subn(r"int poly_parts = extent > .*;", "int poly_parts = 1;", generate(k))
    assert n == 1
    sizes, img = {"h": 40, "w": 50}, np.zeros((40, 50), dtype=np.int32)
    img[5, 49] = img[11, 5] = 9
    ref = run_reference(k, sizes, {"img": img})
    assert ref.outputs["at"].tolist() == [5, 49]
    run = run_candidate(k, build_candidate(k, text, "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert run.outputs["at"].tolist() == [5, 49]


def test_ties_resolve_as_the_nest_does(tmp_path):
    """Values 0..3: the maximum is tied hundreds of times.  `>=` keeps the last in the nest's
    order; the candidate taking the first (the other tie rule) is rejected on bi, bj."""
    name, text, *_ = CASES["ties_last"]
    k = _kernel(tmp_path, name, text)
    tie = r"(poly_red_at_bj\[threadIdx\.x \+ poly_s\]) > (poly_red_at_bj\[threadIdx\.x\])"
    wrong, n = re.subn(tie, r"\1 < \2", generate(k))
    assert n == 2
    card = ladder(k, wrong, backend="emu", dataset="MINI", seed=3)
    assert not card.accepted and "best[" in card.summary()


def test_an_arg_best_over_a_descending_nest_keeps_its_form(tmp_path):
    """A loop of the nest runs downwards: the flat rank would not be the loop's order (refused)."""
    k = _kernel(tmp_path, "argmax_down.c", DESCENDING)
    assert _reductions(k) == [None]
    assert "as one flat range" not in generate(k)


def test_a_best_in_a_register_takes_its_point_by_selects():
    """The recomputed form's value is a register, so the pair takes a point by two selects of one
    condition instead of a branch a point; the condition keeps the tie rule.  With one block (many
    points a thread), the candidate whose selects take the other tie is rejected by the emu."""
    k = read_kernel(IDIOMS / "last_peak_column.c")
    text = generate(k)
    assert ("const bool poly_take = (poly_at_r == (-2147483647 - 1)) | (poly_v > poly_v_r) | "
            "((poly_v == poly_v_r) & (poly_k > poly_at_r));") in text
    assert "poly_v_r = poly_take ? poly_v : poly_v_r;" in text and "poly_at_r = poly_take ? poly_k : poly_at_r;" in text
    one, n = re.subn(r"int poly_parts = extent > .*;", "int poly_parts = 1;", text)
    assert n == 1
    assert ladder(k, one, backend="emu", dataset="SMALL", seed=3).accepted
    wrong = one.replace("(poly_k > poly_at_r)", "(poly_k < poly_at_r)")
    card = ladder(k, wrong, backend="emu", dataset="SMALL", seed=3)
    assert not card.accepted and "at[" in card.summary()
