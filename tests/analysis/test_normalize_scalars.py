"""Integer locals whose value is affine in the loops, written as that value (analysis/scalars.py):
index temporaries, induction scalars and wrap-around variables; anything else stays as written."""
import pytest

from t2ctest import ROOT
from t2c.analysis import NotAffine, analyze, build_program
from t2c.frontends.c import read_c
from t2c.generators.poly import generate

LOOPS = ROOT / "corpora" / "loops"


def _kernel(tmp_path, text, name="k.c"):
    path = tmp_path / name
    path.write_text(text)
    return read_c(path)


def _accepted(k):
    from t2c.verify.ladder import ladder
    text = generate(k)
    assert "why:" not in text
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def _texts(prog):
    return [(st.loops, st.text.strip()) for st in prog.statements]


HEADER = """/* t2c: size n MINI=20 SMALL=200 MEDIUM=2000 LARGE=20000 EXTRALARGE=40000
 * t2c: array a[2*n + 4] inout
 * t2c: array b[n] in
 */
"""

TEMPORARY = HEADER + """void f(int n, double *a, const double *b)
{
  for (int i = 0; i < n; i++) {
    int r = i + 1;
    a[r] = b[i];
  }
}
"""

TEMPORARY_REASSIGNED = HEADER + """void f(int n, double *a, const double *b)
{
  for (int i = 0; i < n; i++) {
    int r = i + 1;
    a[r] = b[i];
    r = 2 * i;
    a[r] += 1.0;
  }
}
"""

INDUCTION = HEADER + """void f(int n, double *a, const double *b)
{
  int k = 3;
  for (int i = n - 1; i >= 0; i--) {
    a[k] = b[i];
    k = k + 2;
    a[k] += b[i];
  }
}
"""

INDUCTION_UNDER_IF = HEADER + """void f(int n, double *a, const double *b)
{
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (i > 3)
      k += 2;
    a[k] = b[i];
  }
}
"""

WRAP_AROUND = HEADER + """void f(int n, double *a, const double *b)
{
  int v = n - 1;
  for (int i = 0; i < n; i++) {
    a[i] = b[i] - b[v];
    v = i;
  }
}
"""

WRAP_AROUND_NOT_LAST = HEADER + """void f(int n, double *a, const double *b)
{
  int v = n - 1;
  for (int i = 0; i < n; i++) {
    v = i;
    a[i] = b[i] - b[v];
  }
  a[n] = v;
}
"""


def test_an_index_temporary_is_its_expression_and_its_loop_stays_parallel(tmp_path):
    prog = build_program(_kernel(tmp_path, TEMPORARY))
    assert _texts(prog) == [(("i",), "a[i + 1] = b[i]")] and "r" not in prog.locals
    assert [l.parallel for l in analyze(_kernel(tmp_path, TEMPORARY)).loops] == [True]


def test_a_temporary_assigned_twice_stays_as_written(tmp_path):
    with pytest.raises(NotAffine, match="depends on 'r'"):
        build_program(_kernel(tmp_path, TEMPORARY_REASSIGNED))


def test_an_induction_scalar_is_its_value_before_and_after_its_step(tmp_path):
    """k = 3 + 2*t before the step and 3 + 2*(t + 1) after it, t = n - 1 - i (a descending loop)."""
    prog = build_program(_kernel(tmp_path, INDUCTION))
    assert _texts(prog) == [(("i",), "a[((2 * n) + 1) - (2 * i)] = b[i]"),
                            (("i",), "a[((2 * n) + 3) - (2 * i)] += b[i]")]
    assert "k" not in prog.locals
    _accepted(_kernel(tmp_path, INDUCTION))


def test_an_induction_step_under_an_if_stays_refused(tmp_path):
    with pytest.raises(NotAffine, match="depends on 'k'"):
        build_program(_kernel(tmp_path, INDUCTION_UNDER_IF))
    with pytest.raises(NotAffine, match="subscript of 'b' 'k' depends on 'k'"):   # packing: b[k++] under an if
        build_program(read_c(LOOPS / "vectorizer" / "pack_positive.c"))


def test_a_wrap_around_variable_peels_the_first_iteration(tmp_path):
    prog = build_program(_kernel(tmp_path, WRAP_AROUND))
    assert _texts(prog) == [((), "a[0] = b[0] - b[n - 1]"), (("i",), "a[i] = b[i] - b[i - 1]")]
    assert prog.body[1].lower == "1" and "v" not in prog.locals
    _accepted(_kernel(tmp_path, WRAP_AROUND))


def _kept(k):
    """v stays a scalar read through b (an input: the read orders nothing, the model holds), and
    the value it carries from one iteration to the next keeps the loop in order."""
    prog = build_program(k)
    assert "v" in prog.locals and any("b[v]" in st.text for st in prog.statements)
    assert not any(l.parallel for l in analyze(k).loops)


def test_a_wrap_around_assignment_that_is_not_last_stays_as_written(tmp_path):
    _kept(_kernel(tmp_path, WRAP_AROUND_NOT_LAST))


def test_a_loop_that_may_run_no_iteration_is_not_peeled(tmp_path):
    """From i = 2 the loop may run no iteration (n >= 1 is all that is known): nothing to peel."""
    _kept(_kernel(tmp_path, WRAP_AROUND.replace("for (int i = 0; i < n; i++)", "for (int i = 2; i < n; i++)")))


@pytest.mark.parametrize("path", ["vectorizer/induction_scalar.c", "vectorizer/wrap_around.c", "gpu/conv5x5.c"])
def test_the_corpus_idioms_run_in_parallel_and_are_accepted(path):
    k = read_c(LOOPS / path)
    assert any(l.parallel for l in analyze(k).loops)
    _accepted(k)
