"""The compaction statement `y[k], ..., n = compact(i: E, ... where P)` (compile.py, `compact`).

Checked as the other statement forms are: the parse tree, the reference at MINI against numpy
(kept values in increasing i at the front, the count, the cells past it untouched), the candidate
poly makes of it (the scan of compact.py, not one thread) accepted on emu, and the mistakes, each
an error at spec.md:LINE:COL that shows the form that works.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from t2c.errors import UserError
from t2c.frontends.prose import read_spec
from t2c.frontends.prose.language import Compact, parse
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference
from t2ctest import accepted_on_emu

ARRAYS = """\
  x: float[n] in
  w: float[m] in
  v: float[n] inout
  at: int[n] inout
  cnt: int[] out
"""
SCAN, ONE_THREAD = "is a stream compaction", "the whole reference runs in one GPU thread"


def write(tmp_path, body, arrays=ARRAYS, scalars=""):
    p = tmp_path / "k.md"
    p.write_text("---\nname: kern\nsizes:\n  n: {MINI: 1500, LARGE: 1000000}\n  m: {MINI: 7, LARGE: 1000}\n"
                 f"{scalars}arrays:\n{arrays}---\nProse.\n\n```t2c\n" + textwrap.dedent(body) + "```\n")
    return p


def first_line(p) -> int:
    """The spec line of the first statement."""
    return p.read_text().splitlines().index("```t2c") + 2


def run(p, seed):
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    r = run_reference(k, sizes, synthesize(k, sizes, seed=seed))
    return k, {n: np.asarray(v) for n, v in r.inputs.items()}, r.outputs


def test_parse():
    [s] = parse([(1, "v[k], at[k], cnt = compact(i in 0..n: 2.0 * x[i], i where x[i] > 0.5)\n")])
    assert isinstance(s, Compact) and [t.array for t in s.targets] == ["v", "at", "cnt"]
    assert s.targets[0].subs[0].expr.id == "k" and not s.targets[2].subs
    assert s.binder.name == "i" and s.binder.hi.id == "n" and len(s.values) == 2 and s.cond.op == ">"
    [s] = parse([(1, "v[k], cnt = compact(i: where(x[i] > 1.0, 1.0, x[i]) where (x[i] > 0.0) && i < 5)\n")])
    assert s.values[0].func == "where" and s.cond.op == "&&"     # the function, then the keyword


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_values_and_indices_in_order_the_rest_untouched(tmp_path, seed):
    p = write(tmp_path, "let t = max(j: w[j]) * 0.5\nv[k], at[k], cnt = compact(i: x[i] - t, i where x[i] > t)\n")
    _, ins, outs = run(p, seed)
    t = np.float32(ins["w"].max()) * np.float32(0.5)
    keep = np.flatnonzero(ins["x"] > t)
    assert 0 < len(keep) < len(ins["x"]) and outs["cnt"] == len(keep)
    np.testing.assert_array_equal(outs["at"][:len(keep)], keep)
    np.testing.assert_allclose(outs["v"][:len(keep)], ins["x"][keep] - t, rtol=1e-6)
    np.testing.assert_array_equal(outs["at"][len(keep):], ins["at"][len(keep):])
    np.testing.assert_array_equal(outs["v"][len(keep):], ins["v"][len(keep):])


def test_candidate_is_the_scan_and_accepted_on_emu(tmp_path):
    """A scalar temporary before it (HEAD), a statement after it reusing the name `i` (TAIL): the
    statement's own loop variable and counter are fresh names, so poly still finds its loop."""
    from t2c.generators.poly import generate
    arrays = ARRAYS + "  y: float[n] out\n"
    p = write(tmp_path, "let th = max(j: w[j]) * 0.5\nv[k], at[k], cnt = compact(i: x[i] - th, i where x[i] > th)\n"
                        "y[i] = x[i] + 1.0\n", arrays)
    k = read_spec(p)
    text = generate(k)
    assert SCAN in text and ONE_THREAD not in text and "keeping v[cmp_kept2], at[cmp_kept2]" in text
    accepted_on_emu(k, text)


def test_a_temporary_array_leaves_one_thread_still_correct(tmp_path):
    """compact.py keeps no local array on the device: with a `let` array the candidate is the one
    thread of the whole reference (docs/specs.md says so), and the ladder still accepts it."""
    from t2c.generators.poly import generate
    p = write(tmp_path, "let h[i] = 2.0 * x[i]\nv[k], at[k], cnt = compact(i: h[i], i where h[i] > 0.5)\n")
    k = read_spec(p)
    text = generate(k)
    assert ONE_THREAD in text and SCAN not in text
    accepted_on_emu(k, text)


def test_inside_a_loop_each_pass_compacts_again(tmp_path):
    p = write(tmp_path, "for r in 0..3:\n    v[k], at[k], cnt = compact(i: x[i] * r, i * r where x[i] > 0.0)\n")
    _, ins, outs = run(p, 5)
    keep = np.flatnonzero(ins["x"] > 0)
    assert outs["cnt"] == len(keep)
    np.testing.assert_array_equal(outs["at"][:len(keep)], keep * 2)
    np.testing.assert_allclose(outs["v"][:len(keep)], ins["x"][keep] * 2)


FORM = "y[k], n = compact(i: x[i] where x[i] > 0)"
BAD = {
    "no_count": ("v[k] = compact(i: x[i] where x[i] > 0.0)\n", 1, "needs an array target and the count"),
    "no_where": ("v[k], cnt = compact(i: x[i])\n", 28, "expected 'where'"),
    "out_target": ("y[k], cnt = compact(i: x[i] where x[i] > 0.0)\n", 1, "declare it `y: float[n] inout`"),
    "float_count": ("v[k], y = compact(i: x[i] where x[i] > 0.0)\n", 7, "declare `y: int[] out`"),
    "values_and_targets": ("v[k], at[k], cnt = compact(i: x[i] where x[i] > 0.0)\n", 31,
                           "one value per array target"),
    "in_an_expression": ("v[i] = 1.0 + compact(i: x[i] where x[i] > 0.0)\n", 14, "a whole statement"),
    "reads_its_target": ("v[k], cnt = compact(i: v[i] where x[i] > 0.0)\n", 24, "read its inputs only"),
    "range_past_extent": ("v[k], cnt = compact(i in 0..m: w[i] where w[i] > 0.0)\n", 21,
                          "ends at the targets' extent"),
    "per_row": ("B[r, k], cnt = compact(i: x[i] where x[i] > 0.0)\n", 1, "no per-row form"),
    "reduction": ("v[k], cnt = compact(i: x[i] where x[i] > max(j: x[j]))\n", 42, "`let m = max(j: x[j])`"),
    "same_index": ("v[i], cnt = compact(i: x[i] where x[i] > 0.0)\n", 21, "another index"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_located_with_the_form_that_works(case, tmp_path):
    body, col, words = BAD[case]
    p = write(tmp_path, body, ARRAYS + "  y: float[n] out\n  B: float[n, m] inout\n")
    line = first_line(p)
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}:{col}: "), msg
    assert words in msg and "; " in msg, msg
    if case in ("no_count", "no_where", "in_an_expression", "per_row"):
        assert "compact(i: x[i] where x[i] > 0)" in msg, msg


def test_reference_local_prefix_is_no_declared_name(tmp_path):
    p = write(tmp_path, "v[k], cnt = compact(i: x[i] where x[i] > 0.0)\n", ARRAYS + "  cmp_kept1: float[n] in\n")
    with pytest.raises(UserError, match="cmp_"):
        read_spec(p)
