"""Statement forms of the t2c language beyond assignments: temporaries (`let`), geometric
level loops (`halving`, `doubling`) and bounded `while` loops.

Each is checked three ways: the parse tree, the reference it compiles to (run at MINI
against numpy), and where it matters what the poly generator makes of it (a temporary or a
while loop must leave the element loops parallel) with the candidate accepted on emu.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from t2c.errors import UserError
from t2c.frontends.prose import read_spec, spec_to_c
from t2c.frontends.prose.language import Assign, For, While, parse
from t2c.frontends.prose.spec import load_spec
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

HEAD = """\
---
name: kern
sizes:
  n: {MINI: 13, LARGE: 1000}
  m: {MINI: 7, LARGE: 1000}
arrays:
  x: float[n] in
  A: float[n, m] in
  k: int[n] in
  y: float[n] out
  B: float[n, m] out
domains:
  k: integers(1, 50)
---
Prose.

```t2c
"""   # the first statement is on line 18


def write(tmp_path, body):
    p = tmp_path / "k.md"
    p.write_text(HEAD + textwrap.dedent(body) + "```\n")
    return p


def run(p, seed=3):
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    r = run_reference(k, sizes, synthesize(k, sizes, seed=seed))
    f64 = lambda v: np.asarray(v, dtype=np.float64) if np.asarray(v).dtype.kind == "f" else np.asarray(v)
    return k, {n: f64(v) for n, v in r.inputs.items()}, r.outputs


# -- parser -------------------------------------------------------------------------------------

def test_let_halving_doubling_and_while_parse():
    s = parse([(1, textwrap.dedent("""\
        let mx[r] = max(j: X[r, j])
        let z: double = 0.0
        for s in n/2..0 halving:
            y[i in 0..s] = 1.0
        for h in 1..n doubling { y[0] = 2.0 }
        while z < 4.0 && it < maxit:
            z = z + 1.0
            it += 1
    """))])
    assert isinstance(s[0], Assign) and s[0].let and s[0].array == "mx" and s[0].dtype is None
    assert s[1].let and s[1].dtype == "double" and not s[1].subs
    assert isinstance(s[2], For) and s[2].step == "halving" and isinstance(s[3], For) and s[3].step == "doubling"
    assert isinstance(s[4], While) and [b.array for b in s[4].body] == ["z", "it"]
    assert not parse([(1, "y[i] = x[i]\n")])[0].let


# -- temporaries --------------------------------------------------------------------------------

def test_temporaries_are_locals_of_the_reference_not_outputs(tmp_path):
    p = write(tmp_path, """\
        let mx[r] = max(j: A[r, j])
        let den[r] = sum(j: exp(A[r, j] - mx[r]))
        B[r, j] = exp(A[r, j] - mx[r]) / den[r]
        let t = sum(i: x[i])
        y[i] = x[i] / t + float(k[i])
    """)
    text, _ = spec_to_c(load_spec(p))
    assert "float mx[n];" in text and "float den[n];" in text and "float t;" in text
    assert "void kern(int n, int m, float x[n], float A[n][m], int k[n], float y[n], float B[n][m])" in text
    k, ins, outs = run(p)
    assert [a.name for a in k.arrays] == ["x", "A", "k", "y", "B"] and set(outs) == {"y", "B"}
    e = np.exp(ins["A"] - ins["A"].max(axis=1, keepdims=True))
    np.testing.assert_allclose(outs["B"], e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(outs["y"], ins["x"] / ins["x"].sum() + ins["k"], rtol=1e-4)


def test_temporary_type_stated_and_extent_stated(tmp_path):
    p = write(tmp_path, """\
        let c: double[i in 0..n] = 0.5
        let w[i] = double(x[i]) * 2.0
        y[i] = float(c[i] + w[i])
        B[i, j] = A[i, j]
    """)
    text, _ = spec_to_c(load_spec(p))
    assert "double c[n];" in text and "double w[n];" in text
    _, ins, outs = run(p)
    np.testing.assert_allclose(outs["y"], 0.5 + 2 * ins["x"], rtol=1e-6)


def test_softmax_with_temporaries_stays_parallel_and_is_accepted_on_emu(tmp_path):
    """The row maxima and denominators are local arrays of size b that only their rows read: the
    folds and B run in one block per row, mx and den in every thread's registers (no device
    buffer); y stays a thread per element.  A's values reach +-100, where a softmax without its
    row maximum overflows float: the mutant gate needs inputs on which that subtraction matters."""
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    p = write(tmp_path, """\
        let mx[r] = max(j: A[r, j])
        let den[r] = sum(j: exp(A[r, j] - mx[r]))
        B[r, j] = exp(A[r, j] - mx[r]) / den[r]
        y[i] = x[i] + float(k[i])
    """)
    p.write_text(p.read_text().replace("  k: integers(1, 50)\n", "  k: integers(1, 50)\n  A: uniform(-100, 100)\n"))
    k = read_spec(p)
    assert any(d.target == "A" for d in k.domains)
    text = generate(k)
    assert "a block of 256 threads per r" in text and "one thread per (i)" in text and "_seq" not in text
    assert "one thread per (r, j)" not in text and "dev_mx" not in text and "mx[r], den[r] in every thread's registers" in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


# -- level loops --------------------------------------------------------------------------------

def test_halving_and_doubling_loops(tmp_path):
    """Haar averages over halving levels, and a pairwise tree sum over doubling strides."""
    p = write(tmp_path, """\
        let a[i] = x[i]
        let t[i in 0..n] = 0.0
        for s in n/2..0 halving:
            t[i in 0..s] = (a[2*i] + a[2*i + 1]) * 0.5
            a[i in 0..s] = t[i]
        y[i] = a[i]
        let b[i] = x[i]
        let c[i in 0..n] = 0.0
        for h in 1..n doubling:
            c[i] = where(i % (2 * h) == 0 && i + h < n, b[i] + b[i + h], b[i])
            b[i] = c[i]
        B[i, j] = b[0] + 0.0 * A[i, j]
    """)
    text, _ = spec_to_c(load_spec(p))
    assert "for (s = (n / 2); s > 0; s /= 2) {" in text and "for (h = 1; h < n; h *= 2) {" in text
    _, ins, outs = run(p)
    want, s = ins["x"].copy(), len(ins["x"]) // 2
    while s > 0:
        want[:s] = (want[0:2 * s:2] + want[1:2 * s:2]) * 0.5
        s //= 2
    np.testing.assert_allclose(outs["y"], want, rtol=1e-5)
    np.testing.assert_allclose(outs["B"], np.full((13, 7), ins["x"].sum()), rtol=1e-5)


# -- while loops --------------------------------------------------------------------------------

def test_bounded_while_runs_per_element_in_parallel(tmp_path):
    """Collatz steps per element: the while loop stays whole inside each element's thread."""
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    p = write(tmp_path, """\
        for i in 0..n:
            let v: long = k[i]
            let it = 0
            while v != 1 && it < 40:
                let half = v / 2
                v = where(v % 2 == 0, half, 3 * v + 1)
                it += 1
            y[i] = float(it)
        B[i, j] = A[i, j]
    """)
    text, _ = spec_to_c(load_spec(p))
    assert "while (((v != 1) && (it < 40))) {" in text and "long half = (v / 2);" in text
    kern, ins, outs = run(p)

    def steps(v):
        it = 0
        while v != 1 and it < 40:
            v, it = (v // 2 if v % 2 == 0 else 3 * v + 1), it + 1
        return it
    np.testing.assert_array_equal(outs["y"], [steps(int(v)) for v in ins["k"]])
    cand = generate(kern)
    assert "one thread per (i)" in cand and "_seq" not in cand
    card = ladder(kern, cand, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


# -- errors -------------------------------------------------------------------------------------

BAD = {
    "unbounded_while": ("let z = 0.0\nwhile z < 4.0:\n    z = z + 1.0\n", 19, 1, "has no bound"),
    "while_counter_not_stepped": ("let it = 0\nwhile it < 4:\n    it = 2\n", 19, 1, "has no bound"),
    "while_counter_reset": ("let it = 0\nwhile it < 4:\n    it += 1\n    it = 0\n", 19, 1, "has no bound"),
    "while_writes_array": ("let it = 0\nwhile it < 4:\n    y[0] = 1.0\n    it += 1\n", 20, 5,
                           "assigns scalar temporaries only"),
    "while_reduction": ("let it = 0\nlet z = 0.0\nwhile it < 4:\n    z = sum(i: x[i])\n    it += 1\n",
                        21, 9, "a reduction inside a while loop"),
    "let_twice": ("let t = 1.0\nlet t = 2.0\n", 19, 1, "'t' is already a temporary"),
    "let_size_name": ("let n = 1.0\n", 18, 1, "name of a declared parameter"),
    "let_fixed_subscript": ("let t[0] = 1.0\n", 18, 7, "its own new indices"),
    "let_range_not_extent": ("let t[i in 1..n] = 1.0\n", 18, 7, "0..E with E over sizes"),
    "let_scope_ends_with_body": ("for q in 0..3:\n    let t = 1.0\ny[i] = t\n", 20, 8, "'t' is bound nowhere"),
    "halving_stop_negative": ("for s in n..-1 halving:\n    y[0] = 1.0\n", 18, 13, "stop >= 0"),
    "doubling_from_zero": ("for s in 0..n doubling:\n    y[0] = 1.0\n", 18, 10, "start >= 1"),
    "let_compound": ("let t += 1.0\n", 18, 7, "expected '='"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_statement_errors_located(case, tmp_path):
    body, line, col, words = BAD[case]
    p = write(tmp_path, body + "y[i] = x[i]\nB[i, j] = A[i, j]\n")
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}:{col}: "), msg
    assert words in msg and "; " in msg, msg
