"""Loops the model keeps whole, and loops whose condition is a conjunction (issue #35).

- an innermost loop that leaves the model only through its own control (bounds read from `in`
  arrays, a data-dependent break or continue) and writes only local scalars is one statement
  (model._Builder.opaque): the loops around it stay parallel, each thread runs it in order;
- `for (d = 1; d <= w && d <= i; d++)` is an affine loop: its domain has every bound.
"""
import pytest

from t2c.analysis import NotAffine, analyze, build_program
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT
from t2ctest import ROOT

LOOPS = ROOT / "corpora" / "loops"


def _kernel(tmp_path, text, name="k.c"):
    path = tmp_path / name
    path.write_text(text)
    return read_c(path)


@pytest.mark.parametrize("path", ["gpu/spmv_csr.c", "gpu/mandelbrot.c", "vectorizer/halvings.c"])
def test_a_loop_kept_whole_runs_in_each_thread_of_a_grid(path):
    """Bounds read from inputs (CSR rows), an escape-time exit, a while loop per element."""
    from t2c.verify.ladder import ladder
    k = read_c(LOOPS / path)
    an = analyze(k)
    opaque = [s for s in an.program.statements if type(s.node).__name__ in ("For", "While")]
    assert len(opaque) == 1 and opaque[0].conditional          # its writes are may-writes
    plan = planned(an, DEFAULT)
    assert plan.launches and all(l.grid for l in plan.launches)
    assert all(plan.storage[w] == "local" for w in an.webs)    # s, zr, zi, it: a register per thread
    text = generate(k)
    card = ladder(k, text, backend="emu", dataset="MINI", seed=3)
    assert card.accepted, card.summary()


def test_spmv_reads_its_row_bounds_and_gathers_the_rest():
    prog = build_program(read_c(LOOPS / "gpu" / "spmv_csr.c"))
    st = next(s for s in prog.statements if type(s.node).__name__ == "For")
    assert st.loops == ("i",)
    assert sorted((a.name, a.index, a.write) for a in st.accesses) == [
        ("row_ptr", ("(i + 1)",), False), ("row_ptr", ("i",), False), ("s", (), False), ("s", (), True)]


def test_a_kept_loop_with_no_loop_around_it_stays_one_thread_and_says_why(tmp_path):
    k = _kernel(tmp_path, CSR_HEAD.format(v="in") + """\
void f(int n, int nnz, const int *p, const double *v, double *y)
{
  double s = 0.0;
  for (int k = p[0]; k < p[1]; k++)
    s += v[k];
  y[0] = s;
}
""")
    assert "kept whole, loop 'k' would still run in one thread: no loop encloses it" in generate(k)


def test_a_conjunction_bound_is_an_affine_loop():
    k = read_c(LOOPS / "livermore" / "banded_solve.c")
    prog = build_program(k)
    st = next(s for s in prog.statements if "band" in s.text)
    assert {"d <= w", "d <= i"} <= set(st.domain)
    text = generate(k)
    assert "(d <= w) && (d <= i)" in text                      # the loop printed as written
    assert "In order: loop i carries a flow dependence: S1 reads x after S2 writes it" in text


CSR_HEAD = """\
/* t2c: size n MINI=8
 * t2c: size nnz MINI=20
 * t2c: array p[n + 1] in
 * t2c: array v[nnz] {v}
 * t2c: array y[nnz] out
 * t2c: domain p integers(0, nnz)
 */
"""


def test_a_kept_loop_that_writes_an_array_at_its_own_variable_is_refused(tmp_path):
    k = _kernel(tmp_path, CSR_HEAD.format(v="in") + """\
void f(int n, int nnz, const int *p, const double *v, double *y)
{
  for (int i = 0; i < n; i++)
    for (int k = p[i]; k < p[i + 1]; k++)
      y[k] = 2.0 * v[k];
}
""")
    with pytest.raises(NotAffine, match="loop start 'p\\[i\\]' is not affine"):
        build_program(k)


def test_a_bound_read_from_an_array_the_kernel_writes_is_refused(tmp_path):
    k = _kernel(tmp_path, CSR_HEAD.format(v="in").replace("p[n + 1] in", "p[n + 1] inout") + """\
void f(int n, int nnz, int *p, const double *v, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = p[i]; k < p[i + 1]; k++)
      s += v[k];
    y[i] = s;
    p[i] = 0;
  }
}
""")
    with pytest.raises(NotAffine, match="loop start 'p\\[i\\]' is not affine"):
        build_program(k)


def test_an_early_exit_that_leaves_its_value_to_the_next_iteration_keeps_the_loop_in_order(tmp_path):
    """`last` is written only when the search finds something: its value may cross iterations of
    i, so the kept loop's writes are may-writes and i carries them (no privatization)."""
    k = _kernel(tmp_path, """\
/* t2c: size n MINI=6
 * t2c: size m MINI=5
 * t2c: array a[n][m] in
 * t2c: array y[n] out
 */
void f(int n, int m, const double *a, int *y)
{
  int last = -1;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      if (a[i * m + j] > 0.5) {
        last = j;
        break;
      }
    y[i] = last;
  }
}
""")
    an = analyze(k)
    assert not next(l for l in an.loops if l.var == "i").parallel
