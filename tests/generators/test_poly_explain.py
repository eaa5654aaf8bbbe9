"""`t2c gen --explain` (issue #35): how poly maps a kernel, and for each loop of the reference
why it runs in parallel or in order: the dependence it carries (kind, array, statements, lines
of the user's file, as the numbered reference shows them, distance).  Nothing is written."""
from click.testing import CliRunner

from t2ctest import ROOT
from t2c.cli import main

LOOPS = ROOT / "corpora" / "loops"


def _explain(path) -> str:
    res = CliRunner().invoke(main, ["gen", str(path), "--explain"])
    assert res.exit_code == 0, res.output
    return res.output


def test_explain_names_the_dependence_that_keeps_a_loop_in_order():
    text = _explain(LOOPS / "vectorizer" / "linear_recurrence.c")
    assert "as a parallel scan" in text and "  13      a[i] = (a[i - 1] * b[i]) + c[i];" in text
    assert ("loop i: carries a flow dependence: S0 reads a after S0 writes it (S0 `a[i] = (a[i - 1] * b[i]) "
            "+ c[i]` line 13), distance 1 along i") in text
    text = _explain(LOOPS / "vectorizer" / "statement_reorder.c")
    assert "loop i: carries an anti dependence: S0 overwrites a after S1 reads it" in text


def test_explain_says_parallel_reduction_or_outside_the_model(tmp_path, tmp_path_factory):
    text = _explain(ROOT / "corpora" / "polybench" / "linear-algebra" / "solvers" / "lu" / "lu.c")
    assert "  loop j: parallel\n    loop k: carries only a reduction (the order of an accumulation)\n" in text
    text = _explain(LOOPS / "gpu" / "bitonic_sort.c")             # outside the model, an exchange network
    assert "outside the polyhedral model: line 11: loop step of 'size' is not +1 or -1" in text
    assert "bitonic_sort_exchange0: loop i, a thread per i" in text
    src = tmp_path_factory.mktemp("src") / "leaky.c"              # outside the model, no parallel form
    src.write_text("/* t2c: size p MINI=4\n * t2c: array x[1 << p] inout */\nvoid leaky(int p, double *x)\n{\n"
                   "  int n = 1 << p;\n  for (int h = 1; h < n; h *= 2)\n    for (int i = 0; i < n; i++) {\n"
                   "      int j = i ^ h;\n      double u = x[i];\n      if (j > i)\n        x[j] = u + x[j];\n    }\n}\n")
    text = _explain(src)
    assert "outside the polyhedral model: line 6: loop step of 'h' is not +1 or -1" in text
    assert "`t2c gen --generator llm` or `hybrid`" in text      # the candidate's why: the route on
    assert not list(tmp_path.iterdir())
