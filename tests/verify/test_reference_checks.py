"""The reference checks itself when a suite is drawn (issue 36): integer accumulators wide
enough for their output, signed overflow and reads through data out of bounds reported as
the spec's fault, and a candidate's UBSan finding named in its rejection."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from t2c.frontends.prose import read_spec
from t2c.runtime.process import ProcessResult
from t2c.verify.inputs import synthesize
from t2c.verify.reference import ReferenceFault, run_reference
from t2c.verify.runs import failure
from t2c.verify.synth import build_suite

PREFIX = """\
---
name: best_prefix
sizes:
  n: {{MINI: 6}}
arrays:
  x: int[n] in
  best: {out}[] out
domains:
  x: integers(1000000000, 1100000000)
---
The largest prefix sum of `x`.

```t2c
best = max(i < n: sum(k <= i: x[k]))
```
"""

GATHER = """\
---
name: gconv
sizes:
  n: {MINI: 4}
  d: {MINI: 3}
  f: {MINI: 5}
arrays:
  X: float[n, f] in
  nbr: int[n, d] in
  Y: float[n, f] out
domains:
  nbr: integers(0, 7)
---
The mean of every node's neighbours' features.

```t2c
Y[i, c] = sum(j: X[nbr[i, j], c]) / d
```
"""


def spec(tmp_path: Path, name: str, text: str):
    (tmp_path / name).write_text(text)
    return read_spec(tmp_path / name)


def test_an_int64_result_accumulates_in_int64(tmp_path):
    k = spec(tmp_path, "p.md", PREFIX.format(out="int64"))
    sizes = {"n": 6}
    x = synthesize(k, sizes, 1)["x"]
    got = run_reference(k, sizes, {"x": x}).outputs["best"]
    assert int(got) == int(np.cumsum(x.astype(np.int64)).max()) > 2**31


def test_long_converts_before_the_arithmetic(tmp_path):
    text = PREFIX.format(out="int64").replace("best = max(i < n: sum(k <= i: x[k]))",
                                              "best = max(i < n: long(x[i]) * x[i])")
    k = spec(tmp_path, "sq.md", text)
    x = synthesize(k, {"n": 6}, 2)["x"]
    got = run_reference(k, {"n": 6}, {"x": x}).outputs["best"]
    assert int(got) == int((x.astype(np.int64) ** 2).max())


def test_an_overflow_in_the_reference_is_the_specs_fault_naming_the_statement(tmp_path):
    k = spec(tmp_path, "p.md", PREFIX.format(out="int"))
    with pytest.raises(ReferenceFault) as e:
        build_suite(k, 1, dataset="MINI", backend="emu", points=1)
    text = str(e.value)
    assert "signed integer overflow" in text and "acc_r2 += x[k]" in text, text
    assert text.startswith(str(tmp_path / "p.md")) and "no candidate's fault" in text


def test_a_read_out_of_bounds_when_the_suite_is_drawn_is_the_specs_fault(tmp_path):
    k = spec(tmp_path, "g.md", GATHER)
    with pytest.raises(ReferenceFault) as e:
        build_suite(k, 1, dataset="MINI", backend="emu", points=1)
    text = str(e.value)
    assert "reads X[nbr[i][j]][c] out of bounds" in text and "dimension 0" in text, text
    assert "the domain of 'nbr' (integers(0, 7)) allows values past the extent" in text
    ok = spec(tmp_path, "ok.md", GATHER.replace("integers(0, 7)", "integers(0, 0)"))
    assert build_suite(ok, 1, dataset="MINI", backend="emu", points=1).cases


def test_a_candidates_signed_overflow_is_named_as_such():
    err = ("/tmp/b/candidate.cu:24:13: runtime error: signed integer overflow: 2147483647 + 1 "
           "cannot be represented in type 'int'\n")
    run = SimpleNamespace(build=SimpleNamespace(exe="/tmp/b/prog"), backend="emu", filename="maxsub.cu")
    reason, feedback = failure(run, ProcessResult(("prog",), 93, "", err, 0.1))
    assert reason == "undefined behaviour (signed integer overflow)"
    assert "maxsub.cu:24" in feedback and "2147483647 + 1" in feedback


def test_a_fault_points_at_the_spec_statement_not_the_compiled_c(tmp_path):
    # the overflow sits in the second statement: the error's line is that statement's
    text = PREFIX.format(out="int").replace(
        "best = max(i < n: sum(k <= i: x[k]))",
        "top = max(i: x[i])\nbest = max(i < n: sum(k <= i: x[k]))").replace(
        "  best: int[] out", "  top: int[] out\n  best: int[] out")
    path = tmp_path / "two.md"
    path.write_text(text)
    line = text.splitlines().index("best = max(i < n: sum(k <= i: x[k]))") + 1
    with pytest.raises(ReferenceFault) as e:
        build_suite(read_spec(path), 1, dataset="MINI", backend="emu", points=1)
    msg = str(e.value)
    assert e.value.line == line and e.value.file == str(path), msg
    assert "signed integer overflow in the reference" in msg, msg
    assert "the statement `best = max(i < n: sum(k <= i: x[k]))`" in msg, msg

    gather = GATHER.replace("Y: float[n, f] out", "Y: float[n, f] out\n  Z: float[n, f] out").replace(
        "Y[i, c] = sum(j: X[nbr[i, j], c]) / d", "Z[i, c] = X[i, c]\nY[i, c] = X[nbr[i, 0], c]")
    g = tmp_path / "g2.md"
    g.write_text(gather)
    with pytest.raises(ReferenceFault) as e:
        build_suite(read_spec(g), 1, dataset="MINI", backend="emu", points=1)
    assert e.value.line == gather.splitlines().index("Y[i, c] = X[nbr[i, 0], c]") + 1, str(e.value)
    assert "the statement `Y[i, c] = X[nbr[i, 0], c]`" in str(e.value)


def test_the_reference_is_instrumented_once_per_kernel(tmp_path, monkeypatch):
    """Every checked reference run (each draw of a suite, hundreds in a ladder) asks for the
    checked C; it is a pure function of the kernel, parsed once per process."""
    from t2c.ir import csyntax
    from t2c.verify import checked
    k = spec(tmp_path, "g.md", GATHER.replace("gconv", "gconv_once"))
    parsed = []
    real = csyntax.parse_c
    monkeypatch.setattr(csyntax, "parse_c", lambda *a: parsed.append(a[1]) or real(*a))
    first = checked.instrument(k)
    assert parsed and "X[t2c_ix(nbr[i][j], n, 0, 0)]" in first[0]
    n = len(parsed)
    assert checked.instrument(spec(tmp_path, "again.md", GATHER.replace("gconv", "gconv_once"))) is first
    assert len(parsed) == n


HALVES = """
/* t2c: size n MINI=9
 * t2c: array a[n] in
 * t2c: array b[n] out */
void halves(int n, const double *a, double *b)
{
  for (int i = 0; i < n; i++)
    if (i % 2 == 0)
      b[i] = 2.0 * a[i];
}
"""


def test_an_out_array_the_reference_leaves_partly_unwritten_is_the_annotations_fault(tmp_path):
    """The checked reference starts its floating `out` arrays at the candidate's poison; an element
    it never writes is an annotation error naming the element, the file and the fix, not a
    rejected candidate ("unwritten output elements" against the reference's zeros)."""
    from t2c.frontends.c import read_c
    src = tmp_path / "halves.c"
    src.write_text(HALVES)
    k = read_c(src)
    with pytest.raises(ReferenceFault) as e:
        build_suite(k, 1, dataset="MINI")
    assert "b[1] unwritten" in str(e.value) and "inout" in str(e.value) and e.value.file == str(src)
    fixed = tmp_path / "fixed.c"
    fixed.write_text(HALVES.replace("b[n] out", "b[n] inout"))
    assert build_suite(read_c(fixed), 1, dataset="MINI").of("random")
