"""Linear recurrences of order W as chunked transfer maps (poly/banded.py).

A one-thread loop `s = B(i); for (d = 1; d <= W ...; d++) s -= C(i, d) * X[i - d]; X[i] = s`
ran on one block, a barrier per i; it becomes a thread per chunk finding its chunk's affine
map of the window of the last W values, one thread carrying the window across the chunks, and
a thread per chunk rerunning from its window.  Read from the plan (`banded_of`), accepted by
the emu ladder at MINI (one chunk, and many through a small `scans.banded.chunk`) and at SMALL, with
a constant order whose window before the loop is read from X, and with a run-time W above
`scans.banded.order` (the one-thread loop of the same candidate).  Other forms are refused."""
import pytest

from t2ctest import ROOT, accepted_on_emu as _accepted, c_kernel as _kernel, plan_records
from t2c.frontends.c import read_c
from t2c.ir.csyntax import cprint
from t2c.generators.poly import generate
from t2c.generators.poly.banded import banded_of
from t2c.generators.poly.options import DEFAULT
from t2c.verify.ladder import ladder

BANDED = ROOT / "corpora" / "loops" / "livermore" / "banded_solve.c"
CHUNKED = "as chunked transfer maps"


def _banded(k):
    return plan_records(k, banded_of)


def _record(bd):
    return bd.array, bd.loop.var, bd.inner.var, bd.order, bd.op, cprint(bd.b), cprint(bd.term), cprint(bd.prev)


def test_banded_solve_runs_as_chunk_maps():
    k = read_c(BANDED)
    assert [_record(b) for b in _banded(k)] == [
        ("x", "i", "d", "w", "-", "y[i]", "band[i][d - 1] * x[i - d]", "x[i - d]")]
    text = generate(k)
    assert CHUNKED in text and "_across<<<1, 64>>>" in text and "_serial<<<1, 1>>>" in text
    _accepted(k, text)
    for chunk in (64, 8):      # 63 chunks, one a group of NAME_across; 500, eight a group
        card = ladder(k, generate(k, DEFAULT.replace({"scans.banded.chunk": chunk})), backend="emu", dataset="SMALL", seed=5)
        assert card.accepted, card.summary()


@pytest.mark.parametrize("chunk", [1, 4])
def test_many_chunks(chunk):
    """MINI's 40 elements in chunks of 4 (more chunks than the order) and of 1 (shorter than
    the window: a chunk's map passes the older values through)."""
    k = read_c(BANDED)
    text = generate(k, DEFAULT.replace({"scans.banded.chunk": chunk}))
    assert CHUNKED in text and f"poly_len < {chunk})" in text
    _accepted(k, text)


@pytest.mark.parametrize("order", [2, 3])
def test_an_order_above_the_maximum_runs_the_loop(order):
    """MINI's w is 3: a maximum of 2 takes the one-thread loop at run time, 3 the chunks."""
    k = read_c(BANDED)
    text = generate(k, DEFAULT.replace({"scans.banded.order": order, "scans.banded.chunk": 4}))
    assert CHUNKED in text and f"if ((w) > {order})" in text
    _accepted(k, text)


CONSTANT_ORDER = """\
/* t2c: description an order-3 filter: x[i] = b[i] + c[0] x[i-1] + c[1] x[i-2] + c[2] x[i-3], from x[0..2]
 * t2c: size n MINI=50 SMALL=3000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: constraint n >= 4
 * t2c: array x[n] inout
 * t2c: array b[n] in
 * t2c: array c[3] in
 * t2c: domain c uniform(-0.3, 0.3)
 */
void filter3(int n, float *x, const float *b, const float *c)
{
  for (int i = 3; i < n; i++) {
    float s = b[i];
    for (int d = 1; d <= 3; d++)
      s = s + c[d - 1] * x[i - d];
    x[i] = s;
  }
}
"""


@pytest.mark.parametrize("chunk, order", [(64, 8), (5, 8), (1, 3)])
def test_a_constant_order_reads_its_window_before_the_loop(tmp_path, chunk, order):
    """Order 3 in float, from i = 3: the window before the loop is x[2], x[1], x[0]; also
    with the windows exactly W long."""
    k = _kernel(tmp_path, CONSTANT_ORDER, "filter3")
    assert [_record(b) for b in _banded(k)] == [
        ("x", "i", "d", "3", "+", "b[i]", "c[d - 1] * x[i - d]", "x[i - d]")]
    text = generate(k, DEFAULT.replace({"scans.banded.chunk": chunk, "scans.banded.order": order}))
    assert CHUNKED in text and "poly_q[poly_k] = (d <= 3) ? x[i - d] : (float)0;" in text
    _accepted(k, text)


BIQUAD = """\
/* t2c: description a biquad: y[i] = b0 x[i] + b1 x[i-1] + b2 x[i-2] - a1 y[i-1] - a2 y[i-2], from y[0], y[1]
 * t2c: size n MINI=60 SMALL=3000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: constraint n >= 3
 * t2c: array y[n] inout
 * t2c: array x[n] in
 * t2c: domain a1 uniform(-0.5, 0.5)
 * t2c: domain a2 uniform(-0.3, 0.3)
 */
void biquad(int n, double b0, double b1, double b2, double a1, double a2, const double *x, double *y)
{
  for (int i = 2; i < n; i++)
    y[i] = STATEMENT;
}
"""
TERMS = "b0 * x[i] + b1 * x[i - 1] + b2 * x[i - 2] - a1 * y[i - 1] - a2 * y[i - 2]"


def test_explicit_terms_run_as_chunk_maps(tmp_path):
    """The biquad's order is its farthest term; its linear part is printed for M's columns."""
    k = _kernel(tmp_path, BIQUAD.replace("STATEMENT", TERMS), "biquad")
    bd, = _banded(k)
    assert (bd.order, [(c, cprint(a)) for c, a in bd.linear]) == ("2", [(1, "-a1"), (2, "-a2")])
    for chunk in (64, 4):
        text = generate(k, DEFAULT.replace({"scans.banded.chunk": chunk}))
        assert CHUNKED in text and "poly_v = (-a1) * poly_win[0] + (-a2) * poly_win[1];" in text
        _accepted(k, text)
    card = ladder(k, generate(k, DEFAULT.replace({"scans.banded.chunk": 4})), backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("statement", [
    "x[i] - a1 * y[i - 1] * y[i - 2]",               # a product of terms
    "x[i] - y[i - 1] * y[i + 1] - a2 * y[i - 2]",    # a coefficient reads y
    "x[i] - a1 * y[i - 1]",                          # first order: scan.py's
])
def test_other_explicit_terms_are_refused(tmp_path, statement):
    k = _kernel(tmp_path, BIQUAD.replace("STATEMENT", statement).replace("i < n", "i < n - 1"), "biquad")
    assert _banded(k) == [None]
    assert CHUNKED not in generate(k)


def test_banded_scans_off_keeps_the_block():
    assert CHUNKED not in generate(read_c(BANDED), DEFAULT.replace({"scans.banded": None}))


@pytest.mark.parametrize("inner, update", [
    ("d <= i", "s -= a[i] * x[i - d]"),              # no order: a full triangle
    ("d <= w && d <= 2 * i", "s -= a[i] * x[i - d]"),   # a start that moves faster than i
    ("d <= w", "s -= a[i] * x[i - d] + 1.0"),        # a constant part in the update
    ("d <= w", "s -= x[i - d] * x[i - d]"),          # not linear
    ("d <= w", "s -= s * x[i - d]"),                 # reads s
])
def test_other_loops_are_refused_and_stay_correct(tmp_path, inner, update):
    source = f"""\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: size w MINI=3 SMALL=3 MEDIUM=3 LARGE=3 EXTRALARGE=3
 * t2c: constraint n > w && w >= 1
 * t2c: array x[n] inout
 * t2c: array a[n] in
 * t2c: array y[n] in
 * t2c: domain x uniform(-0.5, 0.5)
 * t2c: domain a uniform(-0.2, 0.2)
 */
void other(int n, int w, double *x, const double *a, const double *y)
{{
  for (int i = w; i < n; i++) {{
    double s = y[i];
    for (int d = 1; {inner}; d++)
      {update};
    x[i] = s;
  }}
}}
"""
    k = _kernel(tmp_path, source, "other")
    assert _banded(k) == [None]
    text = generate(k)
    assert CHUNKED not in text
    _accepted(k, text)
