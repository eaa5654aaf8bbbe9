"""Arg-bests and bests under a guard (issue #35): `if (mask[i] && a[i] > best) { best = a[i];
idx = i; }`, the guard on either side of the comparison or as an `if` around it, over one loop
or a nest, and the best-value fold `if (a[i] > m && G) m = a[i];`.

Each ran on one GPU thread (`fold_of` read the whole condition as the comparison; a max took a
guard only before its comparison).  The
plan's reduction now has a best fold with its guard (`Fold.guard`): a thread takes a pair only
where the guard holds, so the result is the fold over those elements and, where none passes, the
initial values.  A guard reading the accumulator is not one (the `if` keeps its form)."""
import re

import numpy as np
import pytest
from pycparser import c_ast

from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.reduce import reduction_of
from t2c.ir.csyntax import cprint
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.ladder import ladder
from t2c.verify.reference import run_reference
from t2ctest import ROOT, accepted_on_emu, plan_records

MASKED = ROOT / "corpora" / "loops" / "idioms" / "masked_argmax.c"

EVEN_ARGMIN = """\
/* t2c: size n MINI=20 SMALL=2000 MEDIUM=20000 LARGE=400000
 * t2c: array out[2] out
 */
void even_argmin(int n, const double *a, double *out)
{
  double low = 0.25;
  int at = -1;
  for (int i = 0; i < n; i++)
    if (a[i] < low && i % 2 == 0) {
      at = i;
      low = a[i];
    }
  out[0] = at;
  out[1] = low;
}
"""

RECOMPUTED = """\
/* t2c: size n MINI=20 SMALL=2000 MEDIUM=20000 LARGE=400000
 * t2c: array x[n] in
 * t2c: array where[1] out
 * t2c: domain x integers(-3, 3)
 */
void last_nonneg_min(int n, const int *x, int *where)
{
  int m = 0;
  for (int i = 1; i < n; i++)
    if (x[i] >= 0)
      if (x[i] <= x[m])
        m = i;
  where[0] = m;
}
"""

NEST = """\
/* t2c: size n MINI=8 SMALL=60 MEDIUM=500 LARGE=2000
 * t2c: size m MINI=9 SMALL=70 MEDIUM=500 LARGE=2000
 * t2c: array best[3] out
 */
void banded_argmax(int n, int m, const float a[n][m], float best[3])
{
  float v = -1.0f;
  int bi = -1, bj = -1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      if (j >= i && a[i][j] < 0.75f) {
        if (a[i][j] > v) {
          v = a[i][j];
          bi = i;
          bj = j;
        }
      }
  best[0] = bi;
  best[1] = bj;
  best[2] = v;
}
"""

VALUE = """\
/* t2c: size n MINI=20 SMALL=2000 MEDIUM=20000 LARGE=400000
 * t2c: array out[1] out
 */
void positive_max(int n, const float *a, const float *w, float *out)
{
  float m = -2.0f;
  for (int i = 0; i < n; i++)
    if (a[i] > m && w[i] > 0.0f)
      m = a[i];
  out[0] = m;
}
"""

READS_ACC = """\
/* t2c: size n MINI=20 SMALL=2000 MEDIUM=20000 LARGE=400000
 * t2c: array out[1] out
 */
void climbing_argmax(int n, const float *a, int *out)
{
  float best = -0.5f;
  int idx = -1;
  for (int i = 0; i < n; i++)
    if (best < 0.5f && a[i] > best) {
      best = a[i];
      idx = i;
    }
  out[0] = idx;
}
"""

CASES = {   # name -> (file, text, kind, guard's C text)
    "masked": (MASKED, None, "best", "mask[i]"),
    "range_on_i": ("even_argmin.c", EVEN_ARGMIN, "best", "(i % 2) == 0"),
    "nested_recomputed": ("last_nonneg_min.c", RECOMPUTED, "best", "x[i] >= 0"),
    "nest": ("banded_argmax.c", NEST, "best", "(j >= i) && (a[i][j] < 0.75f)"),
    "value": ("positive_max.c", VALUE, "op", None),
}


def _kernel(tmp_path, name, text):
    if text is None:
        return read_kernel(name)
    path = tmp_path / name
    path.write_text(text)
    return read_kernel(path)


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_guarded_best_is_a_grid_reduction(tmp_path, case):
    """The plan's reduction (before: None for the arg-bests, one thread) has one fold of the kind,
    an arg-best's with the guard apart from its comparison."""
    name, text, kind, guard = CASES[case]
    k = _kernel(tmp_path, name, text)
    red, = plan_records(k, reduction_of)
    assert red is not None
    f, = red.folds
    assert f.kind == kind
    if kind == "best":
        assert cprint(f.guard) == guard and isinstance(f.node, c_ast.If) and f.node.cond.op in ("<", "<=", ">", ">=")
    else:
        assert (f.op, f.acc, f.guard) == ("max", "m", None)
    assert len(re.findall(r"\w+<<<poly_parts, 256>>>", generate(k))) == 1


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_emu_ladder_accepts_a_guarded_best(tmp_path, case):
    name, text, *_ = CASES[case]
    k = _kernel(tmp_path, name, text)
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("case", ["masked", "nest"])
def test_the_emu_ladder_accepts_a_guarded_best_at_small_on_three_blocks(tmp_path, case):
    """Three blocks: each thread folds many elements, some passing the guard, some not."""
    name, text, *_ = CASES[case]
    k = _kernel(tmp_path, name, text)
    few, n = re.subn(r"int poly_parts = .*;", "int poly_parts = 3;", generate(k))
    assert n == 1
    card = ladder(k, few, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


def test_a_guard_reading_the_accumulator_keeps_the_if(tmp_path):
    """`best < 0.5f && a[i] > best` stops taking elements once best passes 0.5: not a fold over
    the elements where a guard holds.  No reduction; the candidate is still right."""
    k = _kernel(tmp_path, "climbing_argmax.c", READS_ACC)
    assert plan_records(k, reduction_of) == [None]
    text = generate(k)
    assert "arg-best" not in text
    accepted_on_emu(k, text)


def _run(k, text, sizes, inputs):
    ref = run_reference(k, sizes, inputs)
    run = run_candidate(k, build_candidate(k, text, "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    return ref.outputs, run.outputs


def test_no_element_passing_the_guard_leaves_the_initial_values():
    """A mask of zeros over values far above the initial best: idx stays -1 and the value the initial one."""
    k = read_kernel(MASKED)
    n = 3000
    ref, got = _run(k, generate(k), {"n": n}, {"a": np.linspace(1, 9, n, dtype=np.float32),
                                              "mask": np.zeros(n, dtype=np.int32)})
    assert ref["where"].tolist() == got["where"].tolist() == [-1]
    assert ref["top"].tolist() == got["top"].tolist() == [np.float32(-3.0e38)]


def test_ties_among_passing_elements_go_to_the_first():
    """The maximum 7 at indices 5, 600, 1700 and 2900 on three blocks; 5 is masked out, so the
    reference and the candidate keep 600 (the first passing one), not 5 nor a later one."""
    k = read_kernel(MASKED)
    text, n_ = re.subn(r"int poly_parts = .*;", "int poly_parts = 3;", generate(k))
    assert n_ == 1
    n = 3000
    a, mask = np.zeros(n, dtype=np.float32), np.ones(n, dtype=np.int32)
    a[[5, 600, 1700, 2900]] = 7
    mask[5] = 0
    ref, got = _run(k, text, {"n": n}, {"a": a, "mask": mask})
    assert ref["where"].tolist() == got["where"].tolist() == [600]
