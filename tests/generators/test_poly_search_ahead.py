"""A grid search with an early exit keeps several loads in flight (`reduce.loads_first`,
`reduce.search_turns`).

A one-loop search (`for (i ...) if (C) { r = i; break; }`, after searches.py the least, or for a
descending loop the greatest, index where C holds) ran as a grid-stride loop whose every step read
the grid's volatile best beside its one element, and whose compare decided whether the next step
ran: one element in flight per thread.  Its plan (`Reduction.ahead`) now names the reads loaded
first, as a flat nest's: arrays the launch never writes, subscripts isl proves inside the array
over the loop's whole range.  Each turn of a thread reads the best once, takes its next 4 indices,
issues their loads, then tests them in order up to its own hit.  A guarded read that would leave
the array stays where it is.  The emu returns the reference's index with the hit first, in the
middle, last and absent, also with threads taking several turns (2 blocks)."""
import re

import numpy as np
import pytest

from t2ctest import ROOT, c_kernel, plan_records
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.reduce import AHEAD, reduction_of, search_order
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.ladder import ladder
from t2c.verify.reference import run_reference

FIRST_INDEX = ROOT / "corpora" / "loops" / "vectorizer" / "first_index.c"

# (sizes not a multiple of anything; domains where a hit is rare, as first_index's: the ladder's
# mutants that skip an index must meet inputs whose answer they change)
HEAD = """/* t2c: size n MINI=37 SMALL=3001 MEDIUM=300007 LARGE=16000057 EXTRALARGE=64000031
 * t2c: array a[n] in
 * t2c: array found[1] out
 * t2c: domain a uniform(0, n)
 * t2c: domain %s */
"""

# descending: the greatest index below t, each thread walking down
LAST_BELOW = HEAD % "t uniform(0, 2)" + """void last_below(int n, double t, const double *a, int *found)
{
  int r = -1;
  for (int i = n - 1; i >= 0; i--) {
    if (a[i] < t) {
      r = i;
      break;
    }
  }
  found[0] = r;
}
"""

# two arrays, both loaded first
FIRST_ABOVE = HEAD % "b uniform(n - 2, n)" + """void first_above(int n, const float *a, const float *b, int *found)
{
  int r = -1;
  for (int i = 0; i < n; i++) {
    if (a[i] > b[i]) {
      r = i;
      break;
    }
  }
  found[0] = r;
}
"""

# a loop from 3: the range isl checks the read against starts there too
FROM_THREE = HEAD % "t uniform(n - 2, n)" + """void from_three(int n, double t, const double *a, int *found)
{
  int r = -1;
  for (int i = 3; i < n; i++) {
    if (a[i] > t) {
      r = i;
      break;
    }
  }
  found[0] = r;
}
"""

# a[i - 1] only where i > 0 (a[-1] at i = 0): it stays under its guard; a[i] loads first
FIRST_RISE = HEAD % "t uniform(n - 2, n)" + """void first_rise(int n, double t, const double *a, int *found)
{
  int r = -1;
  for (int i = 0; i < n; i++) {
    if (i > 0 && a[i - 1] < t && a[i] > t) {
      r = i;
      break;
    }
  }
  found[0] = r;
}
"""


def _hit_above(x, i):            # a[i] > t (t = 0.5 over zeros)
    x["a"][i] = 1


def _hit_below(x, i):            # a[i] < t (t = 0.5 over ones)
    x["a"][i] = 0


# name -> (source or None for first_index, order, first and last index the loop may hit,
#          the inputs without a hit, what makes index i a hit, reads loaded first)
CASES = {
    "first_index": (None, "least", lambda n: (0, n - 1),
                    lambda n: {"a": np.zeros(n), "t": np.float64(0.5)}, _hit_above, (("a[i]", "double"),)),
    "last_below": (LAST_BELOW, "greatest", lambda n: (n - 1, 0),
                   lambda n: {"a": np.ones(n), "t": np.float64(0.5)}, _hit_below, (("a[i]", "double"),)),
    "first_above": (FIRST_ABOVE, "least", lambda n: (0, n - 1),
                    lambda n: {"a": np.zeros(n, np.float32), "b": np.full(n, 0.5, np.float32)}, _hit_above,
                    (("a[i]", "float"), ("b[i]", "float"))),
    "from_three": (FROM_THREE, "least", lambda n: (3, n - 1),
                   lambda n: {"a": np.r_[np.ones(3), np.zeros(n - 3)], "t": np.float64(0.5)}, _hit_above,
                   (("a[i]", "double"),)),      # (hits below 3 the loop never sees)
    "first_rise": (FIRST_RISE, "least", lambda n: (1, n - 1),
                   lambda n: {"a": np.zeros(n), "t": np.float64(0.5)}, _hit_above,
                   (("a[i]", "double"),)),
}


def _kernel(tmp_path, name):
    source = CASES[name][0]
    return read_kernel(FIRST_INDEX) if source is None else c_kernel(tmp_path, source, name)


def _search(k):
    red, = [r for r in plan_records(k, reduction_of) if r is not None]
    return red


def _best_reads(text):
    """The kernel's reads of the grid's best through its volatile view (not its declaration)."""
    return re.findall(r"(?<!int )\*poly_best\b", text)


def test_first_index_plans_its_read_first():
    """first_index (before: no `ahead`, one element and one read of the best per step) is a
    one-loop least-index search that loads a[i] at its next 4 indices each turn."""
    red = _search(read_kernel(FIRST_INDEX))
    assert search_order(red) == "least" and not red.flat
    assert red.ahead == (AHEAD, (("a[i]", "double"),)) and AHEAD == 4


def test_first_index_reads_the_best_once_a_turn_and_loads_before_its_compares():
    """The kernel's one volatile read of the best heads its turn; the loads of a turn's indices
    come before their compares, which read the registers; each index runs only up to the thread's
    own hit."""
    text = generate(read_kernel(FIRST_INDEX))
    assert len(_best_reads(text)) == 1
    assert re.search(r"while \(poly_next < n && poly_next < found_at && poly_next < \*poly_best\)", text)
    loads = text.index("poly_h0[poly_u] = a[i];")
    compare = text.index("if ((poly_h0[poly_u] > t) && (i < found_at))")
    assert text.index("their loads first") < loads < text.index("then each index's body") < compare
    assert "if (i < n && i < found_at) {" in text
    assert not re.search(r"a\[i\] > t", text)               # the compare reads only the register


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_first_index_is_accepted_on_emu(dataset):
    k = read_kernel(FIRST_INDEX)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=7)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("name", ["last_below", "first_above", "from_three", "first_rise"])
def test_the_plan_of_each_search_loads_its_inbound_reads_first(tmp_path, name):
    """Descending (the greatest index, threads walking down), two arrays, a loop from 3: every read
    loads first.  first_rise's a[i - 1] would read a[-1] at i = 0: it stays a plain read under its
    guard, and the sanitized emu ladder accepts."""
    _, order, _, _, _, reads = CASES[name]
    k = _kernel(tmp_path, name)
    red = _search(k)
    assert search_order(red) == order and red.ahead == (AHEAD, reads)
    text = generate(k)
    assert len(_best_reads(text)) == 1 and text.index("their loads first") < text.index("then each index's body")
    if order == "greatest":
        assert "poly_next > found_at && poly_next > *poly_best" in text and "poly_next -= " in text
    if name == "first_rise":
        assert re.search(r"\(i > 0\) && \(a\[i - 1\] < t\)\) && \(poly_h0\[poly_u\] > t\)", text)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    # from_three's hits are rare (t within 2 of n): its stop-one-early mutant differs only where the
    # only hit is the last index, which random draws seldom make. The gate's even-size probes see a
    # draw that tells it apart and the suite's draws do not, so it says "weakly tested" rather than
    # "equivalent"; the next test checks the last index directly.
    weak = name == "from_three" and "weakly tested" in card.summary() and "off_by_one" in card.summary()
    assert card.accepted or weak, card.summary()


@pytest.mark.parametrize("name", list(CASES))
def test_each_search_finds_the_references_index_wherever_the_hit_lies(tmp_path, name):
    """On 2 blocks (each thread takes several turns, the last one short), with hits where the loop
    looks first, in the middle, at its last index and nowhere; the hit's neighbour (but in
    first_rise) and a later index (in the loop's order) hit too, so a turn holds hits past the
    first.  The sanitized emu build reports any read outside an array."""
    _, order, ends, clean, hit, _ = CASES[name]
    k = _kernel(tmp_path, name)
    few, subs = re.subn(r"int poly_parts = extent > .*;", "int poly_parts = 2;", generate(k))
    assert subs == 1
    build = build_candidate(k, few, "emu", sanitize=True)
    n = 5003                                # 512 threads: 9 or 10 indices each, in 3 turns
    sizes = {"n": n}
    start, end = ends(n)
    step = 1 if order == "least" else -1
    for where in (start, (start + end) // 2, end, None):
        inputs = {**synthesize(k, sizes, 1), **clean(n)}
        if where is not None:
            for i in (where, where + step, where + 517 * step):
                if min(start, end) <= i <= max(start, end):
                    hit(inputs, i)
        ref = run_reference(k, sizes, inputs)
        assert ref.outputs["found"][0] == (-1 if where is None else where)
        run = run_candidate(k, build, sizes, ref.inputs, mode="device", timeout=120)
        assert run.process.ok, run.process.stderr[-2000:]
        assert run.outputs["found"][0] == ref.outputs["found"][0], (name, where)
