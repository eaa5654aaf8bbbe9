"""First-order linear recurrences as parallel scans (issue #35; poly/scan.py).

A one-thread launch of `X[i] = A(i) * X[i - 1] + B(i)` (a prefix sum: A = 1) ran on one GPU
thread; it becomes block compositions of (a, b) pairs, one block across them, and blocks that
apply their prefixes.  Read from the plan (`scan_of`), accepted by the emu ladder at MINI, on
several blocks (each with several tiles, and more blocks than one tile across them, through
small `scans.block` / `scans.parts`), and refused where the form does not hold: those stay one
thread (a second-order one runs as banded.py's chunk maps) and correct."""
import pytest

from t2ctest import ROOT, accepted_on_emu as _accepted, c_kernel as _kernel
from t2c.analysis import analyze
from t2c.frontends.c import read_c
from t2c.ir.csyntax import cprint
from t2c.generators.poly import generate
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.scan import ONE, scan_of

LOOPS = ROOT / "corpora" / "loops"
ONE_THREAD = "nothing here is parallel"


def _scans(k):
    an = analyze(k)
    return [scan_of(an, launch) for launch in planned(an, DEFAULT).launches]


def _record(sc):
    return (sc.array, sc.loop.var, len(sc.pre), "1" if sc.a is ONE else cprint(sc.a),
            cprint(sc.b) if sc.b is not None else "0", cprint(sc.prev))


@pytest.mark.parametrize("path, record", [
    ("vectorizer/linear_recurrence.c", ("a", "i", 0, "b[i]", "c[i]", "a[i - 1]")),
    ("livermore/tridiagonal.c", ("x", "i", 0, "-z[i]", "z[i] * y[i]", "x[i - 1]")),
    ("livermore/prefix_sum.c", ("x", "k", 1, "1", "y[k]", "x[k - 1]")),
])
def test_recurrences_run_as_parallel_scans(path, record):
    """Each ran on one GPU thread; the prefix sum's `x[0] = y[0]` runs before the blocks' carries."""
    k = read_c(LOOPS / path)
    scans = _scans(k)
    assert [_record(s) if s else None for s in scans] == [record]
    text = generate(k)
    assert ONE_THREAD not in text and "as a parallel scan" in text
    assert "_up<<<poly_parts, 256>>>" in text and "_across<<<1, 256>>>" in text
    _accepted(k, text)


def test_parallel_scans_off_keeps_one_thread():
    k = read_c(LOOPS / "vectorizer" / "linear_recurrence.c")
    assert ONE_THREAD in generate(k, DEFAULT.replace({"scans.linear": False}))


RECURRENCE = """\
/* t2c: description x[i] = b[i] - a[i] * x[i-1] over several blocks
 * t2c: size n MINI=3000 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array x[n] inout
 * t2c: array a[n] in
 * t2c: array b[n] in
 * t2c: domain a uniform(-0.99, 0.99)
 */
void recur(int n, double *x, const double *a, const double *b)
{
  for (int i = 1; i < n; i++)
    x[i] = b[i] - a[i] * x[i - 1];
}
"""

INTEGER_SUM = """\
/* t2c: description the running sums of v, in int
 * t2c: size n MINI=700 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array s[n] out
 * t2c: array v[n] in
 * t2c: domain v integers(-100000, 100000)
 */
void isum(int n, int *s, const int *v)
{
  s[0] = v[0];
  for (int i = 1; i < n; i++)
    s[i] = s[i - 1] + v[i];
}
"""


def test_a_recurrence_over_several_blocks(tmp_path):
    """3000 elements: three blocks of one 1024-pair tile at the default shape."""
    k = _kernel(tmp_path, RECURRENCE, "recur")
    text = generate(k)
    assert ONE_THREAD not in text and "a first-order linear recurrence over i" in text
    _accepted(k, text)


@pytest.mark.parametrize("block, parts", [((32, 2), 3), ((16, 1), 1024)])
def test_tiles_per_block_and_blocks_per_tile(tmp_path, block, parts):
    """Tiles of 64 pairs, at most 3 blocks: each block walks several tiles; tiles of 16 pairs:
    the one block across walks several tiles of the blocks' compositions.  An integer prefix sum
    (exact) and a floating recurrence."""
    options = DEFAULT.replace({"scans.block": block, "scans.parts": parts})
    for source, name in ((INTEGER_SUM, "isum"), (RECURRENCE.replace("MINI=3000", "MINI=700"), "recur")):
        k = _kernel(tmp_path, source, name)
        text = generate(k, options)
        assert ONE_THREAD not in text and f"blocks of {block[0]} threads ({block[1]} elements each)" in text
        _accepted(k, text)


@pytest.mark.parametrize("statement, form", [
    ("x[i] = x[i - 2] * a[i] + b[i]", "as chunked transfer maps"),   # second order: banded.py's
    ("x[i] = x[i - 1] * x[i - 1] * a[i] + b[i]", ONE_THREAD),       # not linear in x[i - 1]
    ("x[i] = x[i + 1] * x[i - 1] + b[i]", ONE_THREAD),              # A reads x
])
def test_other_recurrences_are_not_scans_and_stay_correct(tmp_path, statement, form):
    source = f"""\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: constraint n >= 3
 * t2c: array x[n] inout
 * t2c: array a[n] in
 * t2c: array b[n] in
 * t2c: domain x uniform(-1, 1)
 * t2c: domain a uniform(-0.5, 0.5)
 * t2c: domain b uniform(-0.5, 0.5)
 */
void other(int n, double *x, const double *a, const double *b)
{{
  for (int i = 2; i < n - 1; i++)
    {statement};
}}
"""
    k = _kernel(tmp_path, source, "other")
    assert _scans(k) == [None]
    text = generate(k)
    assert form in text
    _accepted(k, text)
