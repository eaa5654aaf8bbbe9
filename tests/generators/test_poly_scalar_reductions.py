"""Whole-loop reductions in the forms people write them (issue #35): several statistics in one
pass, `if (a[i] > m) m = a[i];`, counters under a condition, argmax/argmin with the index.

A one-thread launch of accumulator inits, loops of one header whose statements each fold into
their own locals, and statements reading the results becomes block partials and one combining
block (poly/reduce.py).  Read from the plan (`reduction_of`), accepted by the emu ladder; ties
of an arg-best resolve as the loop does, which a candidate with the other tie rule shows."""
import re

import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.reduce import reduction_of
from t2c.verify.ladder import ladder

LOOPS = ROOT / "corpora" / "loops"

STATS = """\
/* t2c: description statistics of a and x in one loop, with ties everywhere
 * t2c: size n MINI=700 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array a[n] in
 * t2c: array x[n] in
 * t2c: array idx[4] out
 * t2c: array val[3] out
 * t2c: domain a integers(0, 3)
 */
void stats(int n, const int *a, const double *x, int *idx, double *val)
{
  int first = 0, last = 0, low = 0, big = a[0], count = 0;
  double s = 0.0, hi = x[0], lo = 1e300;
  for (int i = 1; i < n; i++) {
    if (a[i] > big) { big = a[i]; first = i; }
    if (a[i] >= a[last]) last = i;
    if (a[i] < a[low]) low = i;
    if (a[i] == 2) count++;
    if (x[i] > hi) hi = x[i];
    if (lo > x[i]) lo = x[i];
    s += x[i] * a[i];
  }
  idx[0] = first; idx[1] = last; idx[2] = low; idx[3] = count + big;
  val[0] = s; val[1] = hi; val[2] = lo;
}
"""


def _folds(k):
    an = analyze(k)
    plan = planned(an, DEFAULT)
    reds = [reduction_of(an, plan.storage, launch) for launch in plan.launches]
    return [[(f.kind, f.op) for f in r.folds] if r else None for r in reds]


@pytest.mark.parametrize("path, folds", [
    ("vectorizer/sum_product.c", [("op", "+="), ("op", "+="), ("op", "+=")]),
    ("vectorizer/argmax.c", [("best", ">")]),
    ("livermore/first_minimum.c", [("best", "<")]),
    ("vectorizer/first_index.c", [("op", "imin")]),
])
def test_reductions_in_the_forms_people_write_run_as_block_partials(path, folds):
    """Each ran on one GPU thread: three statistics in one loop (distributed into three loops of one
    header: one grid-stride loop again), a maximum with its index, the first minimum's index, and a
    search with an early exit (analysis/searches.py: the least index where the condition holds)."""
    k = read_c(LOOPS / path)
    assert _folds(k) == [folds]
    text = generate(k)
    assert len(re.findall(r"\w+<<<poly_parts, 256>>>", text)) == 1 and "nothing here is parallel" not in text
    assert "_final" not in text and "_ticket, 1u) == gridDim.x - 1;" in text    # one launch: the last block combines
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def test_arg_best_ties_resolve_as_the_loop_does(tmp_path):
    """Values 0..3 over 700 elements (three blocks): every maximum and minimum is tied.  A strict
    comparison keeps the first index, `>=` the last; the candidate with the other rule is rejected."""
    path = tmp_path / "stats.c"
    path.write_text(STATS)
    k = read_c(path)
    assert _folds(k) == [[("best", ">"), ("best", ">="), ("best", "<"), ("op", "+="), ("op", "max"),
                          ("op", "min"), ("op", "+=")]]
    text = generate(k)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()
    tie = r"(poly_red_first\[threadIdx\.x \+ poly_s\]) < (poly_red_first\[threadIdx\.x\])"
    wrong, n = re.subn(tie, r"\1 > \2", text)
    assert n == 2
    card = ladder(k, wrong, backend="emu", dataset="MINI", seed=3)
    assert not card.accepted and "idx[0]" in card.summary()


def test_a_fold_that_reads_another_accumulator_is_no_reduction():
    """The largest running sum folds `run` into `m`: not a reduction of independent folds (their
    order matters); its own form takes it (kadane.py: tuples combined in order)."""
    k = read_c(LOOPS / "vectorizer" / "max_running_sum.c")
    assert _folds(k) == [None]
    assert "a maximum of running sums (Kadane) over i as an ordered reduction" in generate(k)


SEARCH = """\
/* t2c: description the last i where a[i] > t, and twice a[i] there
 * t2c: size n MINI=700 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array a[n] in
 * t2c: array where[1] out
 * t2c: array val[1] out
 * t2c: domain a uniform(0, 1)
 * t2c: domain t uniform(0.2, 0.9)
 */
void search(int n, double t, const double *a, int *where, double *val)
{
  int last = -1;
  double v = 0.0;
  for (int i = n - 1; i >= 0; i--)
    if (a[i] > t) {
      last = i;
      v = a[i] * 2.0;
      break;
    }
  where[0] = last;
  val[0] = v;
}
"""


def test_a_search_that_exits_early_is_the_index_it_finds(tmp_path):
    """A descending search is the greatest index where its condition holds; the assignments before
    its break run once after the reduction, at that index.  A loop that does other work before its
    exit is not a search: it stays in order."""
    from t2c.analysis.model import build_program
    path = tmp_path / "search.c"
    path.write_text(SEARCH)
    k = read_c(path)
    assert _folds(k) == [[("op", "imax")]]
    text = generate(k)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()
    # descending, each thread walks down and stops at its first hit or past the grid's greatest so
    # far, which it reads once a turn of 4 indices (reduce.search_turns)
    assert "int poly_next = n - 1 - (int)(blockIdx.x * blockDim.x + threadIdx.x);" in text
    assert "while (poly_next >= 0 && poly_next > found_at && poly_next > *poly_best) {" in text
    assert "poly_next -= (int)(gridDim.x * blockDim.x);" in text
    assert "atomicMax(&search_reduce_where_val_best, i);" in text
    busy = tmp_path / "busy.c"
    busy.write_text(SEARCH.replace("    if (a[i] > t) {", "  {\n    v += a[i];\n    if (a[i] > t) {").replace(
        "      break;\n    }", "      break;\n    }\n  }"))
    with pytest.raises(Exception, match="early exit"):
        build_program(read_c(busy))


TEMPORARIES = """\
/* t2c: description clamped squares' sum and the largest shifted square, through temporaries
 * t2c: size n MINI=700 SMALL=5000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: array x[n] in
 * t2c: array out[2] out
 * t2c: domain x uniform(-2, 2)
 */
void clamped(int n, const double *x, double *out)
{
  double s = 0.0, m = -1e300;
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i];
    if (v > 1.0)
      v = 1.0;
    s += v;
    double u = x[i] - 0.5;
    m = fmax(m, u * u);
  }
  out[0] = s;
  out[1] = m;
}
"""


@pytest.mark.parametrize("source", [
    TEMPORARIES,                                                    # set, then updated under an if
    (LOOPS / "gpu" / "nll_loss.c").read_text(),                     # a one-hot pick: t = 0; if (...) t += ...
], ids=["clamped", "nll_loss"])
def test_a_fold_through_temporaries_of_its_iteration_runs_on_a_grid(tmp_path, source):
    """Locals that each iteration sets (and may update, under an `if` too) before its folds read
    them: each thread runs them in its own iteration, then folds (reduce.temporaries)."""
    path = tmp_path / "k.c"
    path.write_text(source)
    k = read_c(path)
    folds = _folds(k)
    assert folds in ([[("op", "+="), ("op", "max")]], [[("op", "-=")]])
    text = generate(k)
    assert len(re.findall(r"\w+<<<poly_parts, 256>>>", text)) == 1 and "nothing here is parallel" not in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("change", [
    ("double v = x[i] * x[i];", "double v = x[i] * s;"),         # a temporary reading an accumulator
    ("double s = 0.0, m = -1e300;", "double s = 0.0, m = -1e300, w = 2.0;"),   # one reading a local set
], ids=["accumulator", "local"])
def test_temporaries_that_read_other_locals_keep_the_loop_in_order(tmp_path, change):
    """A thread's partial accumulator is not the loop's, and the statements before the loop run
    after it (in the last block): a temporary reading either is no part of a grid reduction."""
    source = TEMPORARIES.replace(*change)
    if "w = 2.0" in source:
        source = source.replace("double u = x[i] - 0.5;", "double u = x[i] - w;")
    path = tmp_path / "k.c"
    path.write_text(source)
    k = read_c(path)
    assert all(f is None for f in _folds(k))
    card = ladder(k, generate(k), backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_cross_entropy_loss_is_a_grid_reduction_reading_the_target_once_per_row(dataset):
    """The spec's `sum(r: lse[r] - sum(j: where(j == target[r], X[r, j], 0.0)))`: the one-hot sum is
    one read (analysis/selections.py), a temporary of r's iteration, which the grid runs."""
    from t2c.frontends import read_kernel
    k = read_kernel(ROOT / "corpora" / "text2cuda" / "cross_entropy.md")
    assert _folds(k)[-1] == [("op", "+=")]
    text = generate(k)
    assert "cross_entropy_reduce_loss: a reduction (+=) over r" in text
    assert "acc_r4 += X[(r * c) + target[r]];" in text
    card = ladder(k, text, backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()


MAP_THEN_SUM = """\
double scale_sum(int n, const double *x, double *y)
{
  double sum = 0;
  for (int i = 0; i < n; i++) {
    y[i] = 2.0 * x[i];
    sum += y[i];
  }
  return sum;
}
"""


STORED_THEN_SUMMED = """\
double scale_sum(int n, const double *x, double *y)
{
  double sum = 0;
  for (int i = 0; i < n; i++) {
    double s = 2.0 * x[i];
    y[i] = s;
    sum += s * s;
  }
  return sum;
}
"""


@pytest.mark.parametrize("text", [MAP_THEN_SUM, MAP_THEN_SUM.replace("    sum += y[i];\n  }", "  }\n  for (int i = 0; i < n; i++)\n    sum += y[i];"),
                                  STORED_THEN_SUMMED], ids=["one_loop", "two_loops", "stored_then_summed"])
def test_an_accumulators_init_runs_beside_its_loop(text, tmp_path):
    """`sum = 0` before a loop that does not touch it (or one distributed from the loop that also
    writes y): it runs beside its reduction loop (transform.sink_inits), so the loop is the
    reduction form, not one thread walking i. A local stored and then summed (`y[i] = s; sum +=
    s * s`) is summed as the stored element (frontends/c/stored.py), so the loop splits there."""
    path = tmp_path / "scale_sum.c"
    path.write_text(text)
    k = read_c(path)
    source = generate(k)
    assert "scale_sum_reduce_scalars: a reduction (+=) over i" in source and "one thread runs loop i" not in source
    card = ladder(k, source, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


POWER_STEP = """\
#include <math.h>
void power_step(int n, int iters, const double *A, double *v, double *w)
{
  for (int it = 0; it < iters; it++) {
    double nrm = 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += A[i * n + j] * v[j];
      w[i] = s;
      nrm += s * s;
    }
    nrm = sqrt(nrm);
    for (int i = 0; i < n; i++) v[i] = w[i] / nrm;
  }
}
"""


def test_a_product_and_its_norm_in_one_loop_split(tmp_path):
    """Power iteration's `w[i] = s; nrm += s * s;`: the norm reads w[i], so the matrix-vector
    product leaves the loop the norm keeps in order: its rows run in parallel (they ran in one
    thread with the norm)."""
    path = tmp_path / "power_step.c"
    path.write_text(POWER_STEP)
    k = read_c(path)
    assert "nrm += w[i] * w[i];" in k.reference
    source = generate(k)
    assert "power_step_update_w" in source and "power_step_seq_w" not in source
    card = ladder(k, source, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()
