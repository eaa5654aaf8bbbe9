"""Whole-nest reductions (issue #35): a scalar folded over every iteration of a rectangular nest
of two or more loops (a Frobenius norm, a 3-D maximum written with `if`, several statistics in one
nest), in C and as a spec's `sum(i, j: ...)`.

Each ran in one block (the outer loops in order in every thread) or on one thread.  The plan's
reduction (`reduction_of`) now has the nest's flat range (`Reduction.flat`: its loops, first
values and extents, slowest first): one grid reduction whose threads take flat indices, the
loop on the contiguous subscript the fastest.  A triangular nest keeps its form.  Accepted by the emu ladder, also
with fewer blocks than indices (each thread steps across rows and planes)."""
import re

import pytest

from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.reduce import reduction_of
from t2c.verify.ladder import ladder
from t2ctest import FROB_NORM_SPEC, ROOT

IDIOMS = ROOT / "corpora" / "loops" / "idioms"

FROB = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: size m MINI=30 SMALL=250 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: array a[n][m] in */
double frob(int n, int m, double a[n][m])
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      s += a[i][j] * a[i][j];
  return s;
}
"""

MAX3 = """\
/* t2c: size p MINI=5 SMALL=40 MEDIUM=100 LARGE=256 EXTRALARGE=512
 * t2c: size q MINI=6 SMALL=30 MEDIUM=100 LARGE=256 EXTRALARGE=512
 * t2c: size r MINI=7 SMALL=50 MEDIUM=100 LARGE=256 EXTRALARGE=512
 * t2c: array v[p][q][r] in
 * t2c: array out[1] out */
void max3(int p, int q, int r, const float v[p][q][r], float *out)
{
  float mx = -1e30f;
  for (int a = 1; a < p; a++)
    for (int b = 0; b < q; b++)
      for (int c = 0; c < r - 1; c++)
        if (v[a][b][c] > mx) mx = v[a][b][c];
  out[0] = mx;
}
"""

STATS = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: size m MINI=30 SMALL=250 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: array a[n][m] in
 * t2c: array res[3] out */
#include <math.h>
void stats2(int n, int m, const double a[n][m], double *res)
{
  double s = 0.0, lo = INFINITY;
  int pos = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s += a[i][j];
      lo = fmin(lo, a[i][j]);
      if (a[i][j] > 0.0) pos++;
    }
  res[0] = s; res[1] = lo; res[2] = pos;
}
"""


COLUMNS = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: size m MINI=30 SMALL=250 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: array a[n][m] in
 * t2c: array out[2] out */
void colwise(int n, int m, const float a[n][m], float *out)
{
  double s = 0.0;
  float mx = -1e30f;
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++) {
      s += a[i][j];
      if (a[i][j] > mx) mx = a[i][j];
    }
  out[0] = s; out[1] = mx;
}
"""

TRIANGLE = """\
/* t2c: size n MINI=20 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: array a[n][n] in */
double lower_sum(int n, double a[n][n])
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      s += a[i][j];
  return s;
}
"""


def _kernel(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return read_kernel(path)


def _reductions(k):
    an = analyze(k)
    plan = planned(an, DEFAULT)
    return [reduction_of(an, plan.storage, launch) for launch in plan.launches]


@pytest.mark.parametrize("name, text, flat, folds", [
    ("frob.c", FROB, (("i", "0", "n"), ("j", "0", "m")), [("op", "+=")]),
    ("max3.c", MAX3, (("a", "1", "p - 1"), ("b", "0", "q"), ("c", "0", "r - 1")), [("op", "max")]),
    ("stats2.c", STATS, (("i", "0", "n"), ("j", "0", "m")), [("op", "+="), ("op", "min"), ("op", "+=")]),
    ("frob.md", FROB_NORM_SPEC, (("i", "0", "n"), ("j", "0", "m")), [("op", "+=")]),
    ("colwise.c", COLUMNS, (("i", "0", "n"), ("j", "0", "m")), [("op", "+="), ("op", "max")]),
], ids=["sum_2d", "max_by_if_3d", "statistics_2d", "spec_sum_2d", "down_columns_2d"])
def test_a_rectangular_nest_folding_into_scalars_is_one_flat_grid_reduction(tmp_path, name, text, flat, folds):
    """The plan's reduction covers the whole nest (before: no reduction; the nest ran in one
    block, the 3-D maximum by `if` on one thread); the candidate is one launch whose last block
    combines the blocks' parts, and the emu ladder accepts it.  A nest walking down columns
    (`for j for i ... a[i][j]`) is flattened with j the fastest (coalesced reads)."""
    k = _kernel(tmp_path, name, text)
    red, = _reductions(k)
    assert red is not None and red.flat == flat
    assert [(f.kind, f.op) for f in red.folds] == folds
    text = generate(k)
    assert len(re.findall(r"\w+<<<poly_parts, 256>>>", text)) == 1 and "one block of" not in text
    assert "as one flat range" in text and "_ticket, 1u) == gridDim.x - 1;" in text
    assert "In order: loop" not in text              # (the nest runs in no order)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("name, text", [("max3.c", MAX3), ("stats2.c", STATS)], ids=["max_3d", "statistics_2d"])
def test_threads_step_across_rows_and_planes(tmp_path, name, text):
    """With 3 blocks for 60000 indices each thread takes about 80, its steps carrying from the
    innermost loop into the outer ones: the ladder still accepts (SMALL)."""
    k = _kernel(tmp_path, name, text)
    few, n = re.subn(r"int poly_parts = extent > .*;", "int poly_parts = 3;", generate(k))
    assert n == 1
    card = ladder(k, few, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


def test_a_triangular_nest_keeps_its_form(tmp_path):
    """Bounds that name another loop of the nest: no flat range (the nest stays as it was)."""
    k = _kernel(tmp_path, "lower_sum.c", TRIANGLE)
    assert _reductions(k) == [None]
    assert "as one flat range" not in generate(k)
