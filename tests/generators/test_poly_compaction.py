"""Stream compaction as a parallel scan (poly/compact.py).

A top-level `if (P(i)) X[k++] = E(i)` loop, which the model refuses (X's subscript is k), ran on
one GPU thread; it becomes block counts, one block scanning them from k's value before the loop,
and blocks that write each kept element at its position, in order.  Read from the reference
(`compaction_of`), accepted by the emu ladder at MINI, on several blocks and tiles, and refused
where the form does not hold: those stay one thread and correct."""
import pytest

from t2ctest import ROOT, accepted_on_emu as _accepted, c_kernel as _kernel
from t2c.frontends.c import read_c
from t2c.ir.csyntax import cprint
from t2c.generators.poly import generate
from t2c.generators.poly.compact import compaction_of
from t2c.generators.poly.options import DEFAULT

LOOPS = ROOT / "corpora" / "loops"
ONE_THREAD = "the whole reference runs in one GPU thread"
SCAN = "is a stream compaction"


def test_pack_positive_runs_as_a_compaction():
    k = read_c(LOOPS / "vectorizer" / "pack_positive.c")
    c = compaction_of(k)
    assert (c.var, cprint(c.lo), cprint(c.count), cprint(c.keep), c.counter) == ("i", "0", "n - 0", "a[i] > 0.0", "k")
    assert [(x, cprint(e)) for x, e in c.stores] == [("b", "a[i]")]
    assert c.shared == (("k", "int"),) and len(c.head) == 1 and len(c.tail) == 1
    text = generate(k)
    assert ONE_THREAD not in text and SCAN in text
    assert "_up<<<poly_parts, 256>>>" in text and "_across<<<1, 256>>>" in text
    _accepted(k, text)


def test_stream_compaction_off_keeps_one_thread():
    k = read_c(LOOPS / "vectorizer" / "pack_positive.c")
    assert ONE_THREAD in generate(k, DEFAULT.replace({"scans.compaction": False}))


SELECT = """\
/* t2c: description the values of a above t, times 2, after base kept ones; their count returned
 * t2c: size n MINI=3000 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: constraint n >= 4
 * t2c: array a[n] in
 * t2c: array x[n + 8] inout
 * t2c: domain a uniform(-1, 1)
 */
int pick(int n, double t, const double *a, double *x)
{
  int base = 3;
  double s = 2.0;
  int k = base + 1;
  for (int i = 1; i <= n - 2; i++)
    if (a[i] > t && a[i - 1] < a[i + 1])
      x[k++] = s * a[i];
  x[0] = k;
  return k;
}
"""


@pytest.mark.parametrize("block, parts", [(None, None), ((32, 2), 3), ((16, 1), 1024)])
def test_a_compaction_over_several_blocks(tmp_path, block, parts):
    """3000 elements: three blocks of one 1024-element tile at the default shape; tiles of 64
    with at most 3 blocks (each walks several tiles); tiles of 16 (the one block across walks
    several tiles of counts).  k starts from HEAD's value, the tail reads and returns it."""
    options = DEFAULT if block is None else DEFAULT.replace({"scans.block": block, "scans.parts": parts})
    k = _kernel(tmp_path, SELECT, "pick")
    c = compaction_of(k)
    assert (c.var, cprint(c.count), [x for x, _ in c.stores], c.counter) == ("i", "((n - 2) - 1) + 1", ["x"], "k")
    text = generate(k, options)
    assert ONE_THREAD not in text and SCAN in text
    _accepted(k, text)


WITH_INDEX = """\
/* t2c: size n MINI=3000 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array a[n] in
 * t2c: array v[n] inout
 * t2c: array at[n] inout
 * t2c: array count[1] out
 * t2c: domain a uniform(-1, 1)
 */
void select_with_index(int n, double t, const double *a, double *v, int *at, int *count)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    if (a[i] > t) {
      v[k] = 2.0 * a[i];
      at[k] = i;
      k++;
    }
  count[0] = k;
}
"""


def test_several_stores_at_one_position_run_as_one_compaction(tmp_path):
    """Values kept with their indices: both stores go to the kept element's one position."""
    k = _kernel(tmp_path, WITH_INDEX, "select_with_index")
    c = compaction_of(k)
    assert [(x, cprint(e)) for x, e in c.stores] == [("v", "2.0 * a[i]"), ("at", "i")] and c.counter == "k"
    text = generate(k)
    assert ONE_THREAD not in text and SCAN in text and "keeping v[k], at[k]" in text
    _accepted(k, text)


@pytest.mark.parametrize("body", [
    "if (a[i] > 0.0) { b[k] = a[i]; k++; } if (a[i] < -0.5) k++;",    # k also written elsewhere
    "if (a[i] > b[i]) b[k++] = a[i];",                                  # P reads X
    "if (a[i] > 0.0) { b[k] = a[i] + k; k++; }",                        # E reads k
    "if (a[i] > 0.0) { b[k] = a[i]; b[k] = 1.0; k++; }",                # two stores to one array
    "if (a[i] > 0.0) { b[k] = a[i]; count[0] = k; k++; }",              # a store at another cell
])
def test_other_loops_stay_one_thread_and_correct(tmp_path, body):
    source = f"""\
/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: array a[n] in
 * t2c: array b[n] inout
 * t2c: array count[1] out
 * t2c: domain a uniform(-1, 1)
 * t2c: domain b uniform(-1, 1)
 */
void other(int n, const double *a, double *b, int *count)
{{
  int k = 0;
  for (int i = 0; i < n; i++) {{
    {body}
  }}
  count[0] = k;
}}
"""
    k = _kernel(tmp_path, source, "other")
    assert compaction_of(k) is None
    text = generate(k)
    assert ONE_THREAD in text
    _accepted(k, text)
