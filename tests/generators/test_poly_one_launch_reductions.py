"""Whole-loop reductions in one launch, and searches that stop near their first hit (poly/reduce.py).

Each block writes its partial and draws a ticket; the block drawing the last one combines the
partials in index order and resets the ticket.  A search (the least index where a condition
holds, or the greatest of a descending loop) also keeps the grid's best index so far in a
`__device__` int that every thread reads before each turn of 4 indices (reduce.search_turns).
The emu ladder calls a candidate several times in one process under shuffled block orders, so a
reset that is missing or a stop that skips the answer shows as a wrong result."""
import re

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.generators.poly.options import DEFAULT
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.ladder import ladder
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

LOOPS = ROOT / "corpora" / "loops"

# A search over `n` elements (MINI: 2000, eight blocks of 256) whose condition is COND; the
# domains keep a[i] below t, so COND alone says where the hits are.
SEARCH = """\
/* t2c: description the first i where COND, or -1
 * t2c: size n MINI=2000 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array a[n] in
 * t2c: array found[1] out
 * t2c: domain a uniform(0, 1)
 * t2c: domain t uniform(TLOW, THIGH)
 */
void search(int n, double t, const double *a, int *found)
{
  int r = -1;
  for (int i = 0; i < n; i++) {
    if (COND) {
      r = i;
      break;
    }
  }
  found[0] = r;
}
"""


def _search(tmp_path, cond: str, t: tuple[float, float], down: bool = False):
    text = SEARCH.replace("COND", cond).replace("TLOW", str(t[0])).replace("THIGH", str(t[1]))
    if down:                                # the greatest index: a descending loop
        text = text.replace("int i = 0; i < n; i++", "int i = n - 1; i >= 0; i--")
    return c_kernel(tmp_path, text, "search")


def test_first_index_runs_in_one_launch_and_stops_past_the_grids_first_hit():
    """first_index: one kernel; a hit lowers the grid's best (atomicMin) and every thread reads it
    before each turn, so no thread goes on past the first hit found; the last block resets both."""
    k = read_c(LOOPS / "vectorizer" / "first_index.c")
    text = generate(k)
    assert re.findall(r"(\w+)<<<", text) == ["first_index_reduce_found"]
    assert "_partial<<<" not in text and "_final" not in text
    assert "__device__ int first_index_reduce_found_best = 2147483647;" in text
    assert "while (poly_next < n && poly_next < found_at && poly_next < *poly_best) {" in text
    assert "poly_next += (int)(gridDim.x * blockDim.x);" in text
    assert "atomicMin(&first_index_reduce_found_best, i);" in text
    assert "atomicExch(&first_index_reduce_found_ticket, 0u);" in text
    assert "atomicExch(&first_index_reduce_found_best, 2147483647);" in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("cond, t, first", [
    ("a[i] > t || i == n - 1", (2.0, 3.0), lambda n: n - 1),     # the only hit is the last element
    ("a[i] > t", (2.0, 3.0), lambda n: -1),                      # no hit
    ("a[i] > t && i >= n / 2", (0.5, 0.9), None),                # hits in the later blocks only
    ("a[i] > t", (0.5, 0.9), None),                              # hits in every block
])
@pytest.mark.parametrize("blocks", [1024, 2])
def test_a_search_finds_exactly_the_least_index(tmp_path, cond, t, first, blocks):
    """Late, absent and many hits, on eight blocks (or two, whose threads take four steps each) in
    shuffled orders and several calls of one process: the candidate gives the reference's index."""
    k = _search(tmp_path, cond, t)
    n = k.dataset_sizes("MINI")["n"]
    if first:                               # the case is the one named (COND decides it)
        sizes = {"n": n}
        assert list(run_reference(k, sizes, synthesize(k, sizes, 1)).outputs["found"]) == [first(n)]
    text = generate(k, DEFAULT.replace({"reductions.partials": blocks}))
    assert "atomicMin(&search_reduce_found_best, i);" in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("cond, t, last", [
    ("a[i] > t || i == 0", (2.0, 3.0), lambda n: 0),             # the only hit is the first element
    ("a[i] > t", (2.0, 3.0), lambda n: -1),                      # no hit
    ("a[i] > t && i < n / 2", (0.5, 0.9), None),                 # hits in the earlier blocks only
])
@pytest.mark.parametrize("blocks", [1024, 2])
def test_a_descending_search_finds_exactly_the_greatest_index(tmp_path, cond, t, last, blocks):
    """The threads walk down from the top and stop past the greatest hit found so far (atomicMax)."""
    k = _search(tmp_path, cond, t, down=True)
    n = k.dataset_sizes("MINI")["n"]
    if last:
        sizes = {"n": n}
        assert list(run_reference(k, sizes, synthesize(k, sizes, 1)).outputs["found"]) == [last(n)]
    text = generate(k, DEFAULT.replace({"reductions.partials": blocks}))
    assert "while (poly_next >= 0 && poly_next > found_at && poly_next > *poly_best) {" in text
    assert "poly_next -= (int)(gridDim.x * blockDim.x);" in text
    assert "atomicMax(&search_reduce_found_best, i);" in text
    accepted_on_emu(k, text)


@pytest.mark.parametrize("reset", ["atomicExch(&search_reduce_found_ticket, 0u);",
                                   "atomicExch(&search_reduce_found_best, 2147483647);"])
def test_the_last_block_resets_the_ticket_and_the_best_for_the_next_call(tmp_path, reset):
    """Without a reset the next call in the process counts from a stale ticket (no block or the
    wrong one combines) or stops at the last call's hit: the ladder rejects it."""
    k = _search(tmp_path, "a[i] > t && i >= n / 2", (0.5, 0.9))
    text = generate(k)
    assert text.count("\n    " + reset) == 1
    card = ladder(k, text.replace("\n    " + reset, ""), backend="emu", dataset="MINI", seed=3)
    assert not card.accepted


def test_several_searches_of_one_loop_stop_only_past_all_their_hits(tmp_path):
    """Two least indices in one loop: a thread goes on while either search may still improve, so
    the second finds its hit past the first's (one block of 256 threads walks 2000 elements: the
    rarer hit is usually in a later step of a thread that has had the other one; stopping at the
    first hit of either, as before, missed it on three of these four inputs)."""
    k = c_kernel(tmp_path, """\
/* t2c: description the first i with a[i] > t and the first with a[i] < u
 * t2c: size n MINI=2000 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array a[n] in
 * t2c: array found[2] out
 * t2c: domain a uniform(0, 1)
 * t2c: domain t uniform(0.5, 0.9)
 * t2c: domain u uniform(0.001, 0.002)
 */
void two(int n, double t, double u, const double *a, int *found)
{
  int r = n, s = n;
  for (int i = 0; i < n; i++) {
    if (a[i] > t && i < r) r = i;
    if (a[i] < u && i < s) s = i;
  }
  found[0] = r;
  found[1] = s;
}
""", "two")
    text = generate(k, DEFAULT.replace({"reductions.partials": 1}))
    assert re.search(r"while \(poly_next < n && \(\(poly_next < r && poly_next < \*poly_best_\w+\) \|\| "
                     r"\(poly_next < s && poly_next < \*poly_best_\w+\)\)\) \{", text), re.findall(r"while \(.*", text)
    assert "if (i < n && ((i < r) || (i < s))) {" in text        # each index of a turn, while either may improve
    build, sizes = build_candidate(k, text, "emu"), k.dataset_sizes("MINI")
    for seed in range(4):
        ref = run_reference(k, sizes, synthesize(k, sizes, seed))
        run = run_candidate(k, build, sizes, ref.inputs, mode="device", timeout=120)
        assert run.process.ok, run.process.stderr[-2000:]
        assert list(run.outputs["found"]) == list(ref.outputs["found"]), seed
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("path", ["vectorizer/sum_product.c", "vectorizer/argmax.c", "livermore/inner_product.c",
                                  "livermore/first_minimum.c"])
def test_other_whole_loop_reductions_run_in_one_launch(path):
    """Sums and arg-bests take the same single launch (no early stop: every element counts)."""
    k = read_c(LOOPS / path)
    text = generate(k)
    assert len(re.findall(r"\w+<<<poly_parts, 256>>>", text)) == 1 and "_final" not in text
    assert text.count("__threadfence();") == 2 and "poly_best" not in text
    accepted_on_emu(k, text)
