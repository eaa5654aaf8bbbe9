"""The t2c tensor-expression language: parsing, compiling, and errors at spec.md:LINE:COL.

Parser tests check the tree (precedence, reductions and their ranges, loops in both
forms); compile tests check the C loop nest the C frontend receives; error tests
write malformed specs and assert the message and its exact location.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from t2c.errors import UserError
from t2c.frontends.prose import NeedsLLM, read_spec, spec_to_c
from t2c.frontends.prose.language import (Assign, BinOp, Call, For, Name, Num, Reduce, Ref,
                                          SpecSyntaxError, UnOp, parse)
from t2c.frontends.prose.spec import load_spec
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference


def stmts(text):
    return parse([(1, textwrap.dedent(text))])


def canon(e) -> str:
    """Fully parenthesized text of an expression tree."""
    if isinstance(e, Num):
        return e.text
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Ref):
        return f"{e.array}[{','.join(canon(s) for s in e.subs)}]"
    if isinstance(e, Call):
        return f"{e.func}({','.join(canon(a) for a in e.args)})"
    if isinstance(e, BinOp):
        return f"({canon(e.left)}{e.op}{canon(e.right)})"
    if isinstance(e, UnOp):
        return f"({e.op}{canon(e.operand)})"
    if isinstance(e, Reduce):
        bs = ",".join(b.name + (f" in {canon(b.lo)}..{canon(b.hi)}" if b.lo is not None else "")
                      for b in e.binders)
        return f"{e.op}({bs}: {canon(e.body)})"
    raise TypeError(e)


# -- parser ------------------------------------------------------------------------------------

@pytest.mark.parametrize("src, tree", [
    ("a + b * c", "(a+(b*c))"),
    ("a - b - c", "((a-b)-c)"),
    ("-a * b", "((-a)*b)"),
    ("a / b % c", "((a/b)%c)"),
    ("a < b + 1 && c >= d || !e", "(((a<(b+1))&&(c>=d))||(!e))"),
    ("(a + b) * c", "((a+b)*c)"),
    ("A[i, j+1] * 2.5e-3", "(A[i,(j+1)]*2.5e-3)"),
    ("where(x > 0.0, x, 0.1 * x)", "where((x>0.0),x,(0.1*x))"),
    ("max(a, b)", "max(a,b)"),
    ("max(k: A[k])", "max(k: A[k])"),
    ("min(a < b, c)", "min((a<b),c)"),
    ("sum(k < i: x[k])", "sum(k in 0..i: x[k])"),
    ("sum(k <= i: x[k])", "sum(k in 0..(i+1): x[k])"),
    ("sum(k in 1..n-1: x[k])", "sum(k in 1..(n-1): x[k])"),
    ("sum(k, l: A[k, l]) / sum(k: B[k])", "(sum(k,l: A[k,l])/sum(k: B[k]))"),
    ("exp(x - max(j: X[r, j]))", "exp((x-max(j: X[r,j])))"),
    # bit operations with C precedence: shifts below + and above comparisons; & ^ | below
    # comparisons, in that order, and above &&
    ("a | b ^ c & d", "(a|(b^(c&d)))"),
    ("p >> 8 & 255", "((p>>8)&255)"),
    ("a << n - 1", "(a<<(n-1))"),
    ("a < b << 1", "(a<(b<<1))"),
    ("a & b && c | d", "((a&b)&&(c|d))"),
    ("~a & -b", "((~a)&(-b))"),
    ("(a == b) | c", "((a==b)|c)"),
    ("0xFF000000u | 7u", "(0xFF000000u|7u)"),
    ("0x1e + 1e3", "(0x1e+1e3)"),
])
def test_expression_trees(src, tree):
    (s,) = stmts(f"y = {src}\n")
    assert canon(s.value) == tree


def test_indented_first_line_is_refused():
    with pytest.raises(SpecSyntaxError) as e:
        parse([(5, "  y = 1\n")])
    assert (e.value.line, e.value.col) == (5, 3) and "unexpected indentation" in e.value.message


def test_range_literal_is_not_a_float():
    (s,) = stmts("for t in 0..10: y[t] = 1.5\n")
    assert isinstance(s, For) and canon(s.lo) == "0" and canon(s.hi) == "10"


def test_statements_in_order_with_positions():
    s = stmts("""
        mx[r] = max(j: X[r, j])   # comment
        Y[r, j] = X[r, j] - mx[r]; Z[r] += 1.0
    """)
    assert [x.array for x in s] == ["mx", "Y", "Z"]
    assert (s[0].line, s[0].col) == (2, 1) and (s[2].line, s[2].col) == (3, 28)
    assert s[2].op == "+="


def test_time_loop_indented_and_braced():
    indented = stmts("""
        for t in 0..tsteps:
            B[i in 1..n-1] = A[i-1] + A[i+1]
            A[i in 1..n-1] = B[i]
        C[i] = A[i]
    """)
    braced = stmts("""
        for t in 0..tsteps {
          B[i in 1..n-1] = A[i-1] + A[i+1]
            A[i in 1..n-1] = B[i]
        }
        C[i] = A[i]
    """)
    for tree in (indented, braced):
        assert isinstance(tree[0], For) and len(tree[0].body) == 2 and isinstance(tree[1], Assign)
        lhs = tree[0].body[0].subs[0]
        assert lhs.expr.id == "i" and canon(lhs.lo) == "1" and canon(lhs.hi) == "(n-1)"


def test_nested_loops_and_continuation_lines():
    (s,) = stmts("""
        for t in 0..T:
            for i in 1..n:
                y[i] = (y[i-1] +
                  x[i])
    """)
    inner = s.body[0]
    assert isinstance(inner, For) and canon(inner.body[0].value) == "(y[(i-1)]+x[i])"


@pytest.mark.parametrize("src, line, col, words", [
    ("y[i] = (x[i] + 1\n", 1, 8, "'(' is never closed"),
    ("y[i] = x[i] +\n", 1, 14, "expected a number"),
    ("y[i] x[i]\n", 1, 6, "expected '='"),
    ("for t in 0..n\n  y[t] = 1\n", 1, 14, "expected ':'"),
    ("for t in 0..n:\n\ny = 1\n", 3, 1, "indented loop body"),
    ("y = sum(k x[k])\n", 1, 11, "expected ':'"),
    ("y = a < b < c\n", 1, 11, "do not chain"),
    ("y = x $ 2\n", 1, 7, "unexpected character '$'"),
    ("y = x & 1 == 0\n", 1, 11, "needs parentheses"),       # C: x & (1 == 0)
    ("y = a == b | c\n", 1, 7, "needs parentheses"),
    ("y = a ^ b < c\n", 1, 11, "needs parentheses"),
    ("for t in 0 10:\n  y = 1\n", 1, 12, "expected '..'"),
])
def test_syntax_errors_located(src, line, col, words):
    with pytest.raises(SpecSyntaxError) as e:
        stmts(src)
    assert (e.value.line, e.value.col) == (line, col), e.value.message
    assert words in e.value.message


# -- specs: compile and errors ------------------------------------------------------------------

HEAD = """\
---
name: kern
sizes:
  n: {MINI: 6, LARGE: 1000}
  m: {MINI: 5, LARGE: 1000}
scalars:
  a: float
arrays:
  x: float[n] in
  A: float[n, m] in
  y: float[n] out
  z: float[n] inout
  s: float[] out
---
Prose.

```t2c
"""   # the first statement is on line 18


REST = "y[i] = x[i]\nz[i] = z[i] + 1.0\ns = 0.0\n"     # writes every output


def write(tmp_path, body, head=HEAD, name="k.md"):
    p = tmp_path / name
    p.write_text(head + textwrap.dedent(body) + "```\n")
    return p


def test_spec_compiles_to_expected_c(tmp_path):
    p = write(tmp_path, """\
        y[i] = a * sum(j: A[i, j]) + x[i]
        z[i] = z[i] / y[i]
        s = max(i: y[i])
    """)
    text, line = spec_to_c(load_spec(p))
    assert line == 18
    assert "void kern(int n, int m, float a, float x[n], float A[n][m], float y[n], float z[n], float *s)" in text
    assert "double acc_r1;" in text and "acc_r1 = 0.0;" in text and "acc_r2 = -INFINITY;" in text and "s[0] = acc_r2;" in text
    assert "t2c: array s out" in text and "t2c: size n MINI=6 LARGE=1000" in text
    k = read_spec(p)
    assert k.origin.where() == f"{p}:18:1" and k.description == "Prose."


def test_reduction_hoisted_to_outer_loop(tmp_path):
    """sum(j: A[i, j]) depends on i only: computed once per row, not once per element."""
    head = HEAD.replace("  y: float[n] out", "  y: float[n] out\n  B: float[n, m] out")
    p = write(tmp_path, "B[i, j] = A[i, j] / sum(l: A[i, l])\n" + REST, head)
    text, _ = spec_to_c(load_spec(p))
    body = text[text.index("{"):]
    assert body.index("acc_r1 = 0.0;") < body.index("for (j = 0")


def test_sequential_loop_semantics(tmp_path):
    """In-place recurrences are written with a sequential loop and run in order."""
    p = write(tmp_path, textwrap.dedent("""\
        y[0] = x[0]
        for i in 1..n:
            y[i] = y[i-1] + x[i]
    """) + REST.replace("y[i] = x[i]\n", ""))
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=1))
    np.testing.assert_allclose(run.outputs["y"], np.cumsum(run.inputs["x"]), rtol=1e-5)


def test_triangular_range_and_explicit_range(tmp_path):
    p = write(tmp_path, """\
        y[i] = sum(k <= i: x[k])
        z[i in 1..n-1] = x[i-1] + x[i+1]
        s = 0.0
    """)
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    ins = synthesize(k, sizes, seed=2)
    run = run_reference(k, sizes, ins)
    x = run.inputs["x"]
    np.testing.assert_allclose(run.outputs["y"], np.cumsum(x), rtol=1e-5)
    want = run.inputs["z"].copy()
    want[1:-1] = x[:-2] + x[2:]
    np.testing.assert_allclose(run.outputs["z"], want, rtol=1e-6)


def test_a_read_outside_the_written_range_is_not_a_recurrence(tmp_path):
    """`z[i in j+1..n] = z[i] - x[i] * z[j]` in a loop over j (a column of a triangular solve)
    writes only the elements past j, so its read of z[j] sees one value for the whole statement,
    as the reference's order gives it; the range's end is excluded, so `z[n]` past it is too."""
    p = write(tmp_path, textwrap.dedent("""\
        for j in 0..n:
            z[i in j+1..n] = z[i] - x[i] * z[j]
    """) + "y[i] = x[i]\ns = 0.0\n")
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=3))
    want, x = run.inputs["z"].astype(np.float64), run.inputs["x"]
    for j in range(sizes["n"]):
        want[j + 1:] -= x[j + 1:] * want[j]
    np.testing.assert_allclose(run.outputs["z"], want, rtol=1e-4)


BAD = {
    # name: (body, line, col, words)
    "in_place": ("z[i] = z[i-1] + x[i]\n", 18, 8, "reads it at another element"),
    "in_place_inside_range": ("for j in 0..n:\n    z[i in j..n] = z[i] - z[j]\n", 19, 27, "reads it at another element"),
    "unbound": ("y[i] = x[k]\n", 18, 10, "'k' is bound nowhere"),
    "rank": ("y[i] = A[i]\n", 18, 8, "'A' has rank 2"),
    "writes_in": ("x[i] = 1.0\n", 18, 1, "declared in"),
    "undeclared": ("w[i] = x[i]\n", 18, 1, "not a declared array"),
    "ambiguous_range": ("y[i] = sum(k: A[k, k])\n", 18, 12, "ambiguous"),
    "no_range": ("y[i] = sum(k: x[i+k])\n", 18, 12, "cannot infer the range of 'k'"),
    "out_read_first": ("z[i] = y[i]\ny[i] = x[i]\n", 18, 8, "before any statement writes it"),
    "unknown_function": ("y[i] = sigmoid(x[i])\n", 18, 8, "unknown function 'sigmoid'"),
    "unknown_reduction": ("y[i] = mean(k: A[i, k])\n", 18, 8, "unknown reduction 'mean' in `mean(k: A[i, k])`"),
    "arity": ("y[i] = max(x[i])\n", 18, 8, "takes 2 arguments"),
    "syntax": ("y[i] = x[i] +* 2\n", 18, 14, "expected a number"),
    "data_dependent_write": ("y[int(x[0])] = 1.0\n", 18, 7, "data-dependent subscript"),
    "shadow": ("y[i] = sum(i: x[i])\n", 18, 12, "already bound"),
    "float_subscript": ("y[i] = x[a]\n", 18, 10, "not an integer"),
    "never_written": ("y[i] = x[i]\n", 12, 1, "'z' is declared inout but no statement writes it"),
    "modulo_float": ("y[i] = x[i] % 2\n", 18, 13, "needs integer operands"),
    "xor_float": ("y[i] = x[i] ^ 2\n", 18, 13, "for a power write pow(x, 2)"),
    "shift_float": ("y[i] = float(n << a)\n", 18, 16, "'<<' needs integer operands"),
    "not_float": ("y[i] = float(~int(x[i]) + ~x[i])\n", 18, 27, "'~' needs an integer operand"),
    "isnan_int": ("y[i] = where(isnan(n), 0.0, x[i])\n", 18, 14, "isnan() needs a real operand"),
    "huge_literal": ("y[i] = float(n + 0x1ffffffffffffffff)\n", 18, 18, "fits none of int, uint32, int64"),
    "wide_unsigned_literal": ("y[i] = float(n + 4294967296u)\n", 18, 18, "fits none of"),
    "constant_as_index": ("y[INFINITY] = 1.0\n", 18, 3, "name of a declared parameter or function"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_spec_errors_located(case, tmp_path):
    body, line, col, words = BAD[case]
    if case != "never_written":
        body += "z[i] = z[i] + 1.0\ns = 0.0\n"
    else:
        body += "s = 0.0\n"
    p = write(tmp_path, body)
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}:{col}: "), msg
    assert words in msg and "; " in msg, msg          # message; hint


FRONT_BAD = {
    "no_front": ("no front matter\n", 1, 1, "starts with YAML front matter"),
    "unknown_key": ("---\nname: k\nsizez: {}\n---\n", 3, 1, "unknown front matter key 'sizez'"),
    "bad_type": ("---\nname: k\nsizes:\n  n: {MINI: 2}\narrays:\n  x: float8[n] in\n---\n",
                 6, 6, "unknown element type 'float8'"),
    "bad_extent": ("---\nname: k\nsizes:\n  n: {MINI: 2}\narrays:\n  x: float[q] in\n---\n",
                   6, 6, "q is not a size"),
    "bad_preset": ("---\nname: k\nsizes:\n  n: {TINY: 2}\narrays:\n  x: float[n] in\n---\n",
                   4, 7, "unknown preset 'TINY'"),
    "bad_domain": ("---\nname: k\nsizes:\n  n: {MINI: 2}\narrays:\n  x: float[n] in\n"
                   "domains:\n  x: normal(0, 1)\n---\n", 8, 6, "cannot read the domain"),
    "bad_yaml": ("---\nname: k\nsizes: [\n---\n", 3, 9, "not valid YAML"),
    "keyword_name": ("---\nname: float\nsizes:\n  n: {MINI: 2}\narrays:\n  x: float[n] in\n---\n",
                     2, 7, "not a usable name"),
    "presets_differ": ("---\nname: k\nsizes:\n  m: {MINI: 2, SMALL: 64}\n  n: {MINI: 3}\narrays:\n"
                       "  x: float[m, n] in\n---\n", 5, 3, "size 'n' has no SMALL preset, which m has"),
    "extent_call": ("---\nname: k\nsizes:\n  m: {MINI: 2}\n  n: {MINI: 3}\narrays:\n  x: float[n, min(m, n)] in\n"
                    "---\n", 7, 6, "extent 'min(m, n)' calls min(), but an extent takes no functions"),
    "extent_call_shape": ("---\nname: k\nsizes:\n  m: {MINI: 2}\n  n: {MINI: 3}\narrays:\n"
                          "  x: {type: float, shape: [max(m, n), n]}\n---\n", 7, 6,
                          "extent 'max(m, n)' calls max(), but an extent takes no functions"),
    "constraint_call": ("---\nname: k\nsizes:\n  m: {MINI: 2}\n  n: {MINI: 3}\n"
                        "constraints: [m >= 1, m <= max(n, 2)]\narrays:\n  x: float[m] in\n---\n", 6, 14,
                        "constraint 'm <= max(n, 2)' must be a C condition over the sizes; it calls max()"),
}


@pytest.mark.parametrize("case", sorted(FRONT_BAD))
def test_front_matter_errors_located(case, tmp_path):
    text, line, col, words = FRONT_BAD[case]
    p = tmp_path / "f.md"
    p.write_text(text)
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}:{col}: "), msg
    assert words in msg, msg


EXTENT_HEAD = """\
---
name: diag
sizes:
  m: {MINI: 7, SMALL: 64}
  n: {MINI: 9, SMALL: 80}
constraints: CONSTRAINTS
arrays:
  A: float[m, n] in
  dg: DECL
---
```t2c
dg[i] = A[i, i]
```
"""


@pytest.mark.parametrize("decl", ["float[min(m, n)] out", "{type: float, shape: [min(m, n)], intent: out}",
                                  "float[min(m,n)] out"])
def test_an_extent_that_calls_a_function_is_quoted_whole_with_the_forms_that_work(tmp_path, decl):
    """An extent with a comma inside parentheses is one extent (was cut at the comma: "extent
    'min(m'"), in both forms of the declaration (YAML cuts the flow list `[min(m, n)]` too).
    Extents take no functions: the hint gives the size the constraints already say is the
    smaller, else a size of its own under a constraint; both forms then read."""
    p = tmp_path / "diag.md"
    p.write_text(EXTENT_HEAD.replace("CONSTRAINTS", "[m >= 1, n >= m]").replace("DECL", decl))
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    whole = "min(m, n)" if ", " in decl else "min(m,n)"
    assert msg.startswith(f"{p}:9:7: array 'dg': extent '{whole}' calls min(), but an extent takes no "
                          "functions"), msg
    assert "the constraints say `m <= n`, so the extent is `m`: write `[m]`" in msg
    p.write_text(EXTENT_HEAD.replace("CONSTRAINTS", "[m >= 1]").replace("DECL", decl))
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    assert "`constraints: [m <= n]`, then `[m]`" in msg and "`constraints: [dg_len <= m, dg_len <= n]`" in msg
    assert read_spec(write_text(p, EXTENT_HEAD.replace("CONSTRAINTS", "[m >= 1, n >= m]").replace(
        "DECL", "float[m] out"))).array("dg").shape == ("m",)
    k = read_spec(write_text(p, EXTENT_HEAD.replace("CONSTRAINTS", "[dg_len <= m, dg_len <= n]").replace(
        "DECL", "float[dg_len] out").replace("  n: {MINI: 9, SMALL: 80}\n",
                                              "  n: {MINI: 9, SMALL: 80}\n  dg_len: {MINI: 7, SMALL: 64}\n")))
    assert k.array("dg").shape == ("dg_len",)


def write_text(p, text):
    p.write_text(text)
    return p


def test_an_unknown_reduction_names_the_reductions_and_the_form_that_works(tmp_path):
    """`mean(j: X[r, j])` was a syntax error ("expected ')', found ':'"); any NAME(k: body) is
    read as a reduction, and one the language lacks is refused by name, quoted, with the
    reductions there are and the same reduction written with them, its count from the ranges."""
    head = HEAD.replace("  y: float[n] out", "  y: float[n] out\n  I: int[n, m] in")
    rest = REST.replace("y[i] = x[i]\n", "")
    cases = [  # (statement, its refusal, the form it gives, the statement with that form)
        ("y[i] = mean(k: A[i, k])", "unknown reduction 'mean' in `mean(k: A[i, k])`", "sum(k: A[i, k]) / m",
         "y[i] = sum(k: A[i, k]) / m"),
        ("y[i] = 2.0 * avg(k in 1..m: A[i, k])", "unknown reduction 'avg'", "sum(k in 1..m: A[i, k]) / (m - 1)",
         "y[i] = 2.0 * (sum(k in 1..m: A[i, k]) / (m - 1))"),
        ("y[i] = mean(k: I[i, k])", "unknown reduction 'mean'", "sum(k: I[i, k]) / float(m)",
         "y[i] = sum(k: I[i, k]) / float(m)"),
        ("y[i] = float(count(k: A[i, k] > 0.0))", "unknown reduction 'count'",
         "sum(k: where(A[i, k] > 0.0, 1, 0))", "y[i] = float(sum(k: where(A[i, k] > 0.0, 1, 0)))"),
        ("y[i] = median(k: A[i, k])", "unknown reduction 'median'", "a mean as `sum(k: A[i, k]) / m",
         "y[i] = sum(k: A[i, k]) / m")]
    for statement, message, form, fixed in cases:
        p = write(tmp_path, statement + "\n" + rest, head)
        with pytest.raises(UserError) as e:
            read_spec(p)
        msg = str(e.value)
        assert msg.startswith(f"{p}:19:") and message in msg, msg
        assert "the reductions are sum, prod, max, min" in msg and f"{form}`" in msg, msg
        read_spec(write(tmp_path, fixed + "\n" + rest, head))


def test_a_reduction_that_reads_the_array_it_writes_suggests_a_temporary(tmp_path):
    """An in-place row normalization reads X at other elements of its row through the norm: the
    hint is the form that works (the reduction into a `let` temporary first, then the
    statement reading it), not a recurrence; the suggested statements compute it."""
    head = ("---\nname: norm\nsizes:\n  b: {MINI: 5}\n  d: {MINI: 7}\narrays:\n  X: float[b, d] inout\n"
            "  v: float[d] inout\n  W: float[d, d] in\n---\n```t2c\n")
    p = write(tmp_path, "X[r, j] = X[r, j] / sqrt(sum(l: X[r, l] * X[r, l]))  # in place\nv[i] = v[i]\n", head)
    with pytest.raises(UserError) as e:
        read_spec(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:12:33: this statement writes 'X' over its whole index domain and reads it at "
                          "other elements in `sum(l: X[r, l] * X[r, l])`"), msg
    assert "`let sum_X[r] = sum(l: X[r, l] * X[r, l])`, then `X[r, j] = X[r, j] / sqrt(sum_X[r])`" in msg
    assert "for r in" not in msg
    p = write(tmp_path, "let sum_X[r] = sum(l: X[r, l] * X[r, l])\nX[r, j] = X[r, j] / sqrt(sum_X[r])\n"
              "v[i] = v[i]\n", head)
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=2))
    X = run.inputs["X"].astype(np.float64)
    np.testing.assert_allclose(run.outputs["X"], X / np.linalg.norm(X, axis=1, keepdims=True), rtol=1e-5)
    # another array's row (a matrix-vector product in place): the same form
    p = write(tmp_path, "X[r, j] = X[r, j]\nv[i] = 0.5 * v[i] + sum(k: W[i, k] * v[k])\n", head)
    with pytest.raises(UserError, match=r"`let sum_v\[i\] = sum\(k: W\[i, k\] \* v\[k\]\)`, then "
                                        r"`v\[i\] = 0.5 \* v\[i\] \+ sum_v\[i\]`"):
        read_spec(p)


def test_sizes_with_different_presets_are_refused_where_declared(tmp_path):
    """A dataset gives every size a value: `n: {MINI: 9}` beside `m: {MINI: 7, SMALL: 256}` passed
    `t2c gen` and failed only at verify ("no SMALL preset (presets: MINI)", no file, no size)."""
    p = tmp_path / "k.md"
    p.write_text("---\nname: k\nsizes:\n  m: {MINI: 7, SMALL: 256, LARGE: 4096}\n  n: {MINI: 9, LARGE: 8}\n"
                 "arrays:\n  A: float[m, n] in\n  B: float[m, n] out\n---\n"
                 "```t2c\nB[i, j] = 2.0 * A[i, j]\n```\n")
    with pytest.raises(UserError) as e:
        read_spec(p)
    assert str(e.value) == (f"{p}:5:3: size 'n' has no SMALL preset, which m has (presets of n: MINI, LARGE): a "
                            "dataset gives every size a value; give n a SMALL value too, or remove SMALL from m")


def test_prose_only_raises_needs_llm(tmp_path):
    p = tmp_path / "p.md"
    p.write_text("---\nname: k\nsizes:\n  n: {MINI: 2}\narrays:\n  x: float[n] in\n---\n"
                 "Some prose.\n\n```python\nprint('not formal')\n```\n")
    with pytest.raises(NeedsLLM) as e:
        read_spec(p)
    assert isinstance(e.value, UserError) and "needs an LLM backend" in str(e.value)


def test_a_spec_gather_with_an_index_domain_over_the_sizes_runs_a_thread_per_element(tmp_path):
    """An embedding lookup `out[i, k] = table[ids[i], k]`: the index domain `integers(0, v - 1)`
    is read (was refused: numbers only), and the read through ids of a table the kernel never
    writes keeps both loops parallel (was one GPU thread)."""
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    p = tmp_path / "embedding.md"
    p.write_text(textwrap.dedent("""\
        ---
        name: embedding
        sizes:
          n: {MINI: 12, SMALL: 256, MEDIUM: 4096, LARGE: 65536, EXTRALARGE: 262144}
          v: {MINI: 9, SMALL: 100, MEDIUM: 1000, LARGE: 10000, EXTRALARGE: 50000}
          d: {MINI: 8, SMALL: 64, MEDIUM: 128, LARGE: 256, EXTRALARGE: 256}
        arrays:
          ids: int[n] in
          table: float[v, d] in
          out: float[n, d] out
        domains:
          ids: integers(0, v - 1)
        ---
        # Embedding lookup

        ```t2c
        out[i, k] = table[ids[i], k]
        ```
        """))
    k = read_spec(p)
    ids = synthesize(k, {"n": 50, "v": 9, "d": 2}, 1)["ids"]
    assert ids.min() >= 0 and ids.max() == 8
    text = generate(k)
    assert "one thread per (i, k)" in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def test_a_spec_adds_through_data_and_poly_makes_it_atomic(tmp_path):
    """`h[x[i]] += 1` inside a loop: additions commute, so a write through data is expressible as
    an accumulation (was "data-dependent subscript"); an `=` through data still is not."""
    from t2c.generators.poly import generate
    p = tmp_path / "hist.md"
    p.write_text("---\nname: hist\nsizes:\n  n: {MINI: 50}\n  b: {MINI: 5}\narrays:\n  x: int[n] in\n"
                 "  w: float[n] in\n  h: float[b] out\ndomains:\n  x: integers(0, b - 1)\n---\n"
                 "```t2c\nh[v] = 0.0\nfor i in 0..n:\n    h[x[i]] += w[i]\n```\n")
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=4))
    want = np.zeros(5)
    np.add.at(want, run.inputs["x"].astype(int), run.inputs["w"])
    np.testing.assert_allclose(run.outputs["h"], want, rtol=1e-5)
    assert "atomicAdd(&h[x[i]], w[i]);" in generate(k)
    p.write_text(p.read_text().replace("h[x[i]] += w[i]", "h[x[i]] = w[i]"))
    with pytest.raises(UserError, match="or adds through data"):
        read_spec(p)


SORTS_HEAD = ("---\nname: k\nsizes:\n  b: {MINI: 3}\n  c: {MINI: 13}\narrays:\n  X: float[b, c] in\n"
              "  Y: float[b, c] out\n  I: int[b, c] out\ndomains:\n  X: integers(0, 5)\n---\n")


def test_sorts_are_stable_networks_that_poly_runs_as_radix_sorts(tmp_path):
    """`sort`, `sort_desc`, `argsort`, `argsort_desc` as a statement: the values (or the indices,
    ties by the smaller index) along the target's last dimension, for any length; the reference
    runs the network, poly a radix sort of each (sorts.py)."""
    from t2c.generators.poly import generate
    p = tmp_path / "k.md"
    p.write_text(SORTS_HEAD + "```t2c\nY[r, q] = sort_desc(i: X[r, i])\nI[r, q] = argsort(i: X[r, i])\n```\n")
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=5))
    X = run.inputs["X"]
    assert (run.outputs["Y"] == -np.sort(-X, axis=1)).all()
    assert (run.outputs["I"] == np.argsort(X, axis=1, kind="stable")).all()
    text = generate(k)
    assert "k_sort0_rows<<<" in text and "k_sort1_rows<<<" in text and "one thread" not in text


@pytest.mark.parametrize("body, words", [
    ("Y[r, q] = 1.0 + sort(i: X[r, i])\nI[r, q] = 0\n", "is a whole statement"),
    ("Y[r, q] = sort(i in 0..3: X[r, i])\nI[r, q] = 0\n", "the target's last extent"),
    ("I[r, q] = argsort(i: X[r, i])\nY[r, q] = argsort(i: X[r, i])\n", "gives indices"),
    ("Y[r, q] = sort(i: X[r, i] - max(j: X[r, j]))\nI[r, q] = 0\n", "takes no reduction"),
])
def test_sort_errors_say_the_form_that_works(tmp_path, body, words):
    p = tmp_path / "k.md"
    p.write_text(SORTS_HEAD + "```t2c\n" + body + "```\n")
    with pytest.raises(UserError, match=words):
        read_spec(p)


BITS_HEAD = """\
---
name: bits
sizes:
  n: {MINI: 40, LARGE: 1000}
arrays:
  r: uint8[n] in
  g: uint8[n] in
  x: float[n] in
  p: uint32[n] out
  q: uint8[n] out
  h: uint32[n] out
  c: int8[n] out
  w: int64[n] out
  f: float[n] out
domains:
  r: integers(0, 255)
  g: integers(0, 255)
  x: uniform(-3, 3)
---
Bits.

```t2c
"""


def test_bit_operations_and_width_casts_follow_c(tmp_path):
    """Packing two 8-bit channels into a 32-bit word and taking one back out, an unsigned
    hash that wraps modulo 2^32, narrowing casts modulo 2^width, and int64 arithmetic."""
    p = write(tmp_path, """\
        p[i] = uint32(r[i]) | uint32(g[i]) << 8 | 0xFF000000u
        q[i] = uint8(p[i] >> 8 & 255)
        h[i] = (p[i] ^ p[i] >> 16) * 0x45d9f3bu + ~p[i]
        c[i] = int8(int32(r[i]) + 100)
        w[i] = int64(p[i]) << 20 | int64(i)
        f[i] = float(uint8(g[i] + 1)) + float32(r[i] % 3)
    """, BITS_HEAD)
    text, _ = spec_to_c(load_spec(p))
    assert "((unsigned char) ((p[i] >> 8) & 255))" in text and "(~p[i])" in text
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=3))
    r, g = (run.inputs[a].astype(np.uint64) for a in "rg")
    pk = (r | g << 8 | 0xFF000000) & 0xFFFFFFFF
    o = run.outputs
    np.testing.assert_array_equal(o["p"], pk)
    np.testing.assert_array_equal(o["q"], g)
    np.testing.assert_array_equal(o["h"], ((pk ^ pk >> 16) * 0x45d9f3b + (~pk & 0xFFFFFFFF)) & 0xFFFFFFFF)
    np.testing.assert_array_equal(o["c"], (r.astype(np.int64) + 100).astype(np.uint8).view(np.int8))
    np.testing.assert_array_equal(o["w"], (pk.astype(np.int64) << 20) | np.arange(40))
    np.testing.assert_array_equal(o["f"], ((g + 1) % 256).astype(np.float32) + (r % 3))


def test_math_functions_constants_and_classifiers(tmp_path):
    """The float forms in a float kernel; INFINITY and NAN of the real type; isnan/isinf/
    isfinite give 1 or 0 (glibc's isinf gives -1 for -inf)."""
    head = BITS_HEAD.replace("  c: int8[n] out\n", "  c: int[n] out\n")
    p = write(tmp_path, """\
        f[i] = where(x[i] > 0.0, log1p(x[i]), expm1(x[i])) + erfc(x[i]) + copysign(2.0, x[i]) \\
            + fmod(x[i], 1.25) + round(x[i]) + trunc(x[i]) + hypot(x[i], 2.0) + atan2(x[i], 2.0) \\
            + cbrt(x[i]) + log2(4.0 + x[i]) + exp2(x[i]) + log10(4.0 + x[i]) + sinh(x[i]) \\
            + cosh(x[i]) + atan(x[i]) + asin(x[i] / 3.0) + acos(x[i] / 3.0) + tan(x[i] / 3.0)
        c[i] = isnan(sqrt(x[i])) + 2 * isinf(where(x[i] > 0.0, INFINITY, -INFINITY)) \\
            + 4 * isfinite(x[i]) + 8 * isnan(NAN)
        p[i] = 0; q[i] = 0; h[i] = 0; w[i] = 0
    """.replace("\\\n", ""), head)
    text, _ = spec_to_c(load_spec(p))
    assert "log1pf(" in text and "expm1f(" in text and "(isnan(sqrtf(x[i])) != 0)" in text
    k = read_spec(p)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=4))
    x = run.inputs["x"].astype(np.float64)
    erfc = np.vectorize(math.erfc)
    want = (np.where(x > 0, np.log1p(np.maximum(x, 0)), np.expm1(x)) + erfc(x) + np.copysign(2, x)
            + np.fmod(x, 1.25) + np.trunc(x + np.copysign(0.5, x)) + np.trunc(x) + np.hypot(x, 2)
            + np.arctan2(x, 2) + np.cbrt(x) + np.log2(4 + x) + np.exp2(x) + np.log10(4 + x)
            + np.sinh(x) + np.cosh(x) + np.arctan(x) + np.arcsin(x / 3) + np.arccos(x / 3)
            + np.tan(x / 3))
    np.testing.assert_allclose(run.outputs["f"], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(run.outputs["c"], (x < 0) + 2 + 4 + 8)
