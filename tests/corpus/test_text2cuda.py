"""corpora/text2cuda: every spec names its class of loop nest (issue #35), the class its
statements show, and poly maps no affine or gather spec's loops to one GPU thread.

The classes are corpora/loops'.  What the statements show, by the rule that corpus follows:
data-dependent where the data choose a write (a target subscript reading an array), an order
(sort, argsort, top-k), the kept elements (compact) or an exit (while); else gather where a
subscript or a range reads an array, or a subscript divides an index by a constant (i / 2,
i % 2); else affine.  Sizes divided by a constant (`kk / 2`, an extent `(d - 5) / 2 + 1`) are
constants once the sizes are known: affine, as gaussian_blur.c and maxpool_stride2.c are.
"""
import textwrap

import pytest

from t2ctest import ROOT
from t2c.errors import UserError
from t2c.frontends.prose import NeedsLLM, load_spec, read_spec
from t2c.frontends.prose.language import (SORTS, Assign, BinOp, Compact, For, Name, Reduce, Ref, While,
                                          parse, walk)
from t2c.frontends.prose.spec import NEST_CLASSES
from test_loops import _one_thread_loops

SPECS = sorted(p for p in (ROOT / "corpora" / "text2cuda").glob("*.md") if p.name != "README.md")
#: Prose-only specs have no statements to show a class: the class their prose describes.
PROSE_ONLY = {"histogram": "data-dependent",            # hist[x[i]] += 1
              "stream_compaction": "data-dependent"}    # the kept elements, in order


def _statements(nodes):
    """(statement, the expressions it reads, its ranges, its target's subscripts) of every
    statement, loop bodies included."""
    for s in nodes:
        if isinstance(s, For):
            yield s, (), (s.lo, s.hi), ()
            yield from _statements(s.body)
        elif isinstance(s, While):
            yield s, (s.cond,), (), ()
            yield from _statements(s.body)
        elif isinstance(s, Compact):
            yield s, (*s.values, s.cond), (s.binder.lo, s.binder.hi), ()
        elif isinstance(s, Assign):
            yield s, (s.value,), tuple(e for x in s.subs for e in (x.lo, x.hi)), tuple(x.expr for x in s.subs)


def shown_class(spec) -> str:
    """The class of a formal spec's statements (the rule above)."""
    params = set(spec.sizes) | set(spec.scalars)
    gather = False
    for s, reads, ranges, targets in _statements(parse(spec.blocks)):
        nodes = [n for e in (*reads, *ranges, *targets) if e is not None for n in walk(e)]
        if isinstance(s, (While, Compact)) or any(isinstance(n, Reduce) and n.op in SORTS for n in nodes):
            return "data-dependent"
        if any(isinstance(n, Ref) for e in targets for n in walk(e)):
            return "data-dependent"
        subs = [*targets, *(e for n in nodes if isinstance(n, Ref) for e in n.subs)]
        ranges = [*ranges, *(e for n in nodes if isinstance(n, Reduce) for b in n.binders for e in (b.lo, b.hi))]
        gather |= any(isinstance(n, Ref) for e in subs + ranges if e is not None for n in walk(e))
        gather |= any(isinstance(n, BinOp) and n.op in ("/", "%") and
                      any(isinstance(m, Name) and m.id not in params for m in walk(n))
                      for e in subs for n in walk(e))
    return "gather" if gather else "affine"


def test_every_spec_names_its_class():
    """Formal and prose-only specs alike: the corpora's classes are one list."""
    assert len(SPECS) >= 70
    missing = [p.stem for p in SPECS if load_spec(p).nest_class is None]
    assert not missing, f"specs without `class:` in their front matter: {missing}"
    assert {load_spec(p).nest_class for p in SPECS} == set(NEST_CLASSES)


@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_the_class_is_the_one_the_statements_show(path):
    spec = load_spec(path)
    shown = shown_class(spec) if spec.blocks else PROSE_ONLY[path.stem]
    assert spec.nest_class == shown, path.stem


def test_the_rule_tells_the_classes_apart(tmp_path):
    """The rule itself, on one statement of each kind (a spec that shows no class would pass
    the test above by mislabelling it)."""
    def shown(statement, arrays="x: float[n] in\n  ids: int[n] in\n  y: float[n] out"):
        p = tmp_path / "s.md"
        p.write_text(f"---\nname: s\nsizes:\n  n: {{MINI: 8}}\narrays:\n  {arrays}\n---\n```t2c\n{statement}\n```\n")
        return shown_class(load_spec(p))
    assert shown("y[i] = x[min(max(i - n / 2, 0), n - 1)]") == "affine"
    assert shown("y[i] = x[i / 2]") == "gather"
    assert shown("y[i] = x[ids[i]]") == "gather"
    assert shown("y[i] = 0.0\nfor i in 0..n:\n    y[ids[i]] += x[i]") == "data-dependent"
    assert shown("y[q] = sort(i: x[i])") == "data-dependent"


def _spec(tmp_path, front: str):
    p = tmp_path / "axpy.md"
    p.write_text(textwrap.dedent("""\
        ---
        name: axpy
        """) + front + textwrap.dedent("""\
        sizes:
          n: {MINI: 8}
        arrays:
          x: float[n] in
          y: float[n] inout
        ---
        ```t2c
        y[i] = 2.0 * x[i] + y[i]
        ```
        """))
    return p


def test_class_is_optional_and_checked(tmp_path):
    """A user's spec may leave the class out; a class that is none of the three is an error at
    its line that names the file and the allowed values."""
    assert load_spec(_spec(tmp_path, "")).nest_class is None
    assert read_spec(_spec(tmp_path, "")).name == "axpy"
    assert load_spec(_spec(tmp_path, "class: gather\n")).nest_class == "gather"
    with pytest.raises(UserError) as e:
        load_spec(_spec(tmp_path, "class: quasi-affine\n"))
    assert (e.value.file, e.value.line) == (str(tmp_path / "axpy.md"), 3)
    assert "'quasi-affine' is not one of affine, gather, data-dependent" in str(e.value)


def test_an_unused_size_is_reported_at_its_own_line(tmp_path):
    """The spec's line table reached the compiler as its name line (positional fields out of
    order): an error about a size pointed at line 1."""
    p = tmp_path / "axpy.md"
    p.write_text(_spec(tmp_path, "").read_text().replace("  n: {MINI: 8}\n", "  n: {MINI: 8}\n  m: {MINI: 3}\n"))
    assert load_spec(p).name_line == 2 and load_spec(p).lines["m"] == 5
    with pytest.raises(UserError) as e:
        read_spec(p)
    assert "size 'm' gives no array extent" in str(e.value) and e.value.line == 5


def test_no_affine_or_gather_spec_runs_a_loop_in_one_thread():
    """Issue #35's check on the text2cuda corpus, read from poly's plan (tests/corpus/test_loops.py
    says which launches count as one thread)."""
    seen = {}
    for p in SPECS:
        spec = load_spec(p)
        if spec.nest_class == "data-dependent":
            continue
        try:
            k = read_spec(p)
        except NeedsLLM:
            continue
        if got := _one_thread_loops(k):
            seen[p.stem] = got
    assert not seen, seen
