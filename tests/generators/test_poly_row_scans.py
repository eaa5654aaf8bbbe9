"""Recurrences along rows as block scans (poly/rowscan.py).

A launch with a grid whose threads each run `X[..., j] = A(j) * X[..., j - 1] + B(j)` along the
row (a row-wise prefix sum: A = 1; a moving average: A = w[j]) walked the row in one thread per
row, uncoalesced; it becomes a block per row scanning tiles of the row with a running carry.
Read from the plan (`Launch.row_scan`), accepted by the emu ladder at MINI on a spec and two
C kernels, on several tiles per row (a small `scans.rows`), on batched rows (two grid loops)
and on an integer sum; off with `scans.rows = None`."""
import pytest

from t2ctest import ROOT, accepted_on_emu as _accepted, c_kernel as _kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.ir.csyntax import cprint
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.scan import ONE

ONE_THREAD = "runs in order inside each thread"


def _row_scans(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return [(launch.row_scan, launch.block) for launch in plan.launches]


def _record(rs):
    sc = rs.scan
    return (sc.array, sc.loop.var, len(sc.pre), "1" if sc.a is ONE else cprint(sc.a),
            cprint(sc.b) if sc.b is not None else "0", rs.threads, rs.items)


@pytest.mark.parametrize("path, record", [
    ("corpora/text2cuda/cumsum_rows.md", ("Y", "j", 1, "1", "X[r][j]", 256, 4)),
    ("corpora/loops/gpu/row_cumsum.c", ("y", "j", 1, "1", "x[i][j]", 256, 4)),
    ("corpora/loops/gpu/row_ema.c", ("y", "j", 1, "w[j]", "(1.0 - w[j]) * x[i][j]", 256, 4)),
])
def test_row_recurrences_run_as_a_block_scan_per_row(path, record):
    """Each ran one thread per row; the row's `X[r, 0] = ...` runs first, by thread 0."""
    k = read_kernel(ROOT / path)
    (rs, block), = _row_scans(k)
    assert _record(rs) == record and block == (256,)
    text = generate(k)
    assert ONE_THREAD not in text and "a block of 256 threads per" in text and "__shfl_up_sync" in text
    _accepted(k, text)


def test_row_scans_off_keep_a_thread_per_row():
    k = read_kernel(ROOT / "corpora/loops/gpu/row_cumsum.c")
    options = DEFAULT.replace({"scans.rows": None})
    assert [rs for rs, _ in _row_scans(k, options)] == [None]
    assert ONE_THREAD in generate(k, options)


BATCHED_INTEGER_SUM = """\
/* t2c: description the running sums of v along its last dimension, in int, per (b, r)
 * t2c: size nb MINI=2 SMALL=4 MEDIUM=8 LARGE=16 EXTRALARGE=32
 * t2c: size nr MINI=3 SMALL=30 MEDIUM=300 LARGE=3000 EXTRALARGE=6000
 * t2c: size nc MINI=150 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: domain v integers(-100000, 100000)
 */
void bsum(int nb, int nr, int nc, const int v[nb][nr][nc], int s[nb][nr][nc])
{
  for (int b = 0; b < nb; b++)
    for (int r = 0; r < nr; r++) {
      s[b][r][0] = v[b][r][0];
      for (int c = 1; c < nc; c++)
        s[b][r][c] = s[b][r][c - 1] + v[b][r][c];
    }
}
"""

MOVING = """\
/* t2c: description y[i][j] = a[i][j] * y[i][j-1] + x[i][j] from y's own first column, rows 1..
 * t2c: size m MINI=4 SMALL=40 MEDIUM=400 LARGE=4000 EXTRALARGE=8000
 * t2c: size n MINI=100 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: domain a uniform(-0.99, 0.99)
 */
void moving(int m, int n, const double a[m][n], const double x[m][n], double y[m][n])
{
  for (int i = 1; i < m; i++)
    for (int j = 1; j < n; j++)
      y[i][j] = a[i][j] * y[i][j - 1] + x[i][j];
}
"""


@pytest.mark.parametrize("source, name, rows", [(BATCHED_INTEGER_SUM, "bsum", "(b, r)"), (MOVING, "moving", "(i)")])
def test_several_tiles_per_row(tmp_path, source, name, rows):
    """Tiles of 32 x 2 elements: each row takes several, the carry passes from one to the next;
    batched rows stride over two grid axes; an integer sum (exact, in unsigned) and a
    floating recurrence without statements before it (its carry: y's value before the loop)."""
    k = _kernel(tmp_path, source, name)
    options = DEFAULT.replace({"scans.rows": (32, 2)})
    (rs, block), = _row_scans(k, options)
    assert (rs.threads, rs.items, block) == (32, 2, (32,))
    text = generate(k, options)
    assert ONE_THREAD not in text and f"a block of 32 threads per {rows}" in text
    _accepted(k, text)


def test_row_loops_that_are_not_recurrences_keep_their_forms():
    """A row softmax (reductions and maps per row) is no row scan."""
    k = read_kernel(ROOT / "corpora/loops/gpu/softmax.c")
    assert {rs for rs, _ in _row_scans(k)} == {None}


THEN_A_MAP = """\
/* t2c: description y: the running sums of each row of x; z = 2 x
 * t2c: size m MINI=4 SMALL=40 MEDIUM=400 LARGE=4000 EXTRALARGE=8000
 * t2c: size n MINI=100 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 */
void then_map(int m, int n, const double x[m][n], double y[m][n], double z[m][n])
{
  for (int i = 0; i < m; i++) {
    y[i][0] = x[i][0];
    for (int j = 1; j < n; j++)
      y[i][j] = y[i][j - 1] + x[i][j];
  }
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      z[i][j] = 2.0 * x[i][j];
}
"""


def test_a_row_scan_is_never_merged_with_the_launches_beside_it(tmp_path):
    """Its block is its own (a row each, shared tiles): a merged launch would print it as a
    plain part (that candidate did not compile)."""
    k = _kernel(tmp_path, THEN_A_MAP, "then_map")
    _, plan = final_plan(analyze(k), DEFAULT)
    assert [bool(l.row_scan) for l in plan.launches] == [True, False]
    assert not any(l.row_scan for run in plan.merged for l in run)
    _accepted(k, generate(k))


@pytest.mark.parametrize("cond, taken", [
    ("j < n", True), ("(j <= n - 1)", True), ("j < n && j <= r", True),
    ("j > 0", False), ("n > j", False), ("j < 2 * j - n", False), ("j << 2", False)])
def test_a_row_ends_at_the_first_tile_past_an_upper_bound(cond, taken):
    """Only a condition that stays false once false may end a row at a tile's first j."""
    from t2c.generators.poly.rowscan import _upper_bound
    assert _upper_bound("j", cond) is taken
