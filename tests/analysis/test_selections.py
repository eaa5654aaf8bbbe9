"""One-hot selections written as the element they pick (analysis/selections.py): a loop whose one
update happens at the index equal to e becomes that update under `lo <= e && e < hi`; anything
that would not be exactly the loop's result is left as written."""
import pytest

from t2c.analysis import build_program
from t2c.analysis.isl_bridge import always_within
from t2c.analysis.selections import normalize_selections
from t2c.frontends import read_kernel
from t2c.ir.csyntax import cprint, kernel_definition, parse_c
from t2ctest import ROOT

SIZES = ["n", "c"]
HEAD = "void k(int n, int c, float X[n][c], int t[n], double out[n], long lab[n], unsigned u[n], float q[n])\n"


def _normalized(body: str) -> str:
    fn = kernel_definition(parse_c(HEAD + "{\n" + body + "\n}\n", "k.c"))
    normalize_selections(fn, SIZES, lambda loops, domain, e, low, high: always_within(
        SIZES, ["n >= 1", "c >= 1"], loops, domain, e, low, high))
    return " ".join(cprint(fn.body).split())


def _loop(var_body: str, before: str = "double a = 0.0;") -> str:
    return ("for (int r = 0; r < n; r++) { " + before + " " + var_body + " out[r] = a; }")


@pytest.mark.parametrize("loop, want", [
    # the spec compiler's `sum(j: where(j == t[r], X[r, j], 0.0))`
    ("for (int j = 0; j < c; j++) a += (j == t[r]) ? (X[r][j]) : (0.0f);",
     "if ((0 <= t[r]) && (t[r] < c)) a += X[r][t[r]];"),
    ("for (int j = 0; j < c; j++) a -= (t[r] == j) ? X[r][j] * 2 : 0;",
     "if ((0 <= t[r]) && (t[r] < c)) a -= X[r][t[r]] * 2;"),
    ("for (int j = 0; j < c; j++) if (j == t[r]) a += X[r][j];",
     "if ((0 <= t[r]) && (t[r] < c)) a += X[r][t[r]];"),
    # `=`, descending, a long index: the one index that matches sets it
    ("for (int j = c - 1; j >= 0; j--) { if (lab[r] == j) { a = X[r][j] + j; } }",
     "if ((lab[r] <= (c - 1)) && (lab[r] >= 0)) a = X[r][lab[r]] + lab[r];"),
    # a zero wider than the selected value: the ternary's type is double
    ("for (int j = 0; j < c; j++) a += (j == t[r]) ? X[r][j] : 0.0;",
     "if ((0 <= t[r]) && (t[r] < c)) a += (double) X[r][t[r]];"),
    # a range that may be empty (r = 0): t[r] is read only where the loop reads it
    ("for (int j = 0; j < r; j++) a += (j == t[r]) ? X[r][j] : 0.0f;",
     "if (((0 < r) && (0 <= t[r])) && (t[r] < r)) a += X[r][t[r]];"),
])
def test_a_one_hot_loop_becomes_the_update_at_its_index(loop, want):
    got = _normalized(_loop(loop))
    assert "for (int j" not in got and want in got


@pytest.mark.parametrize("loop, before", [
    ("for (int j = 0; j < c; j++) a += (j == u[r]) ? X[r][j] : 0.0f;", None),     # unsigned: converts j
    ("for (int j = 0; j < c; j++) a += (j == q[r]) ? X[r][j] : 0.0f;", None),     # a float index
    ("for (int j = 0; j < c; j++) a += (j == t[j]) ? X[r][j] : 0.0f;", None),     # e reads j
    ("for (int j = 0; j < c; j++) a += (j == (int) a) ? X[r][j] : 0.0f;", None),  # e reads what the loop writes
    ("for (int j = 0; j < c; j++) a += (j == t[r]) ? X[r][j] : 1.0f;", None),     # not a zero
    ("for (int j = 0; j < c; j++) a += (j == t[r]) ? X[r][j]++ : 0.0f;", None),   # f writes
    ("for (int j = 0; j < c; j++) a *= (j == t[r]) ? X[r][j] : 0.0f;", None),     # a product with zeros
    ("for (int j = 0; j < c; j++) if (j == t[r]) { a += X[r][j]; a += 1; }", None),
    ("for (int j = 0; j < c; j++) if (j == t[r]) out[r] = X[r][j];", None),       # not a local
    ("for (int j = 0; j < c; j++) if (j <= t[r]) a += X[r][j];", None),           # not one index
    ("for (int j = 0; j < c; j += 2) if (j == t[r]) a += X[r][j];", None),        # a step of 2
    # a floating sum that may enter at -0.0: adding +0.0 would turn it +0.0
    ("for (int j = 0; j < c; j++) a += (j == t[r]) ? X[r][j] : 0.0f;", "double a = out[r];"),
])
def test_anything_else_stays_a_loop(loop, before):
    assert "for (int j" in _normalized(_loop(loop, before or "double a = 0.0;"))


def test_a_loop_variable_read_after_its_loop_keeps_the_loop():
    got = _normalized("int j; for (int r = 0; r < n; r++) { double a = 0.0; "
                      "for (j = 0; j < c; j++) if (j == t[r]) a = X[r][j]; out[r] = a + j; }")
    assert "for (j = 0" in got


def test_an_integer_count_needs_no_literal_start_but_integer_zeros():
    got = _normalized("for (int r = 0; r < n; r++) { int m = t[r]; "
                      "for (int j = 0; j < c; j++) m += (j == t[r]) ? 1 : 0; out[r] = m; }")
    assert "if ((0 <= t[r]) && (t[r] < c)) m += 1;" in got
    # m += 0.0f is m = (int)((float)m + 0.0f): m rounded through float at every other index
    got = _normalized("for (int r = 0; r < n; r++) { int m = 0; "
                      "for (int j = 0; j < c; j++) m += (j == t[r]) ? X[r][j] : 0.0f; out[r] = m; }")
    assert "for (int j" in got


def test_cross_entropy_reads_the_target_logit_once_per_row():
    prog = build_program(read_kernel(ROOT / "corpora/text2cuda/cross_entropy.md"))
    picks = [st for st in prog.statements if "target[r]" in st.text]
    assert len(picks) == 1 and picks[0].loops == ("r",) and "X[r][target[r]]" in picks[0].text


@pytest.mark.parametrize("name, picked", [("nll_loss", "picked += logp[(i * c) + label[i]];"),
                                          ("multi_margin_loss", "picked = x[(i * c) + label[i]];")])
@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_one_hot_kernels_of_the_corpus_read_one_element_per_row_and_are_accepted(name, picked, dataset):
    """`+=` and `=` picks (corpora/loops/gpu): the candidate reads the label's element, no class
    loop is left for it, and the emu ladder accepts it."""
    from t2c.frontends.c import read_c
    from t2c.generators.poly import generate
    from t2c.verify.ladder import ladder
    k = read_c(ROOT / "corpora" / "loops" / "gpu" / f"{name}.c")
    text = generate(k)
    assert picked in text and "j == label[i]" not in text
    card = ladder(k, text, backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()
