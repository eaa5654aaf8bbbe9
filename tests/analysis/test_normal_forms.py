"""Everyday C that the model reads as the form it means (issue #35, defects 5 and 6).

- flat subscripts of pointers annotated with several extents (`t2c: array a[n][m]`,
  `a[i*m + j]`) are their row-major indices where each inner index stays within its extent
  (analysis/delinearize.py);
- a write whose subscript depends on data read from an array leaves the model with one reason,
  whether the subscript reads the array itself or a local that holds its value
  (analysis/scopes.py, model.subscript), unless it is an atomic update: an addition into an
  array that its nest only adds into that way (model.atomic_update, model.updates_only);
- a name reused for another kind of variable in another scope is another variable.
"""
import re

import pytest

from t2c.analysis import NotAffine, analyze, build_program
from t2c.analysis.delinearize import row_major
from t2c.frontends.c import read_c
from t2c.ir.extents import Poly
from t2ctest import ROOT

def _kernel(tmp_path, text, name="k.c"):
    path = tmp_path / name
    path.write_text(text)
    return read_c(path)


def _accesses(prog, name):
    return sorted({a.index for st in prog.statements for a in st.accesses if a.name == name})


def _poly(terms):
    return Poly({tuple(sorted(m.split("*"))) if m else (): c for m, c in terms.items()})


@pytest.mark.parametrize("flat, extents, want", [
    ({"i*m": 1, "j": 1}, ["m"], [{"i": 1}, {"j": 1}]),
    ({"j": 1, "i*m": 1}, ["m"], [{"i": 1}, {"j": 1}]),                       # any operand order
    ({"i*m": 1, "m": 1, "j": 1}, ["m"], [{"i": 1, "": 1}, {"j": 1}]),         # (i + 1)*m + j
    ({"i*m": 1, "m": 1, "": -1, "j": -1}, ["m"], [{"i": 1}, {"m": 1, "": -1, "j": -1}]),   # reversed row
    ({"i*k*m": 1, "j*k": 1, "l": 1}, ["m", "k"], [{"i": 1}, {"j": 1}, {"l": 1}]),  # (i*m + j)*k + l
    ({"i*m": 1, "i": 2, "j": 1}, ["m + 2"], [{"i": 1}, {"j": 1}]),            # padded rows: i*(m+2) + j
    ({"i": 4, "j": 1}, ["4"], [{"i": 1}, {"j": 1}]),
])
def test_row_major_splits_a_flat_subscript_by_the_inner_extents(flat, extents, want):
    inner = [_poly({"m": 1, "": 2} if e == "m + 2" else {e: 1} if e.isalpha() else {"": int(e)}) for e in extents]
    # The indices this test's loops keep within their extents (the model asks isl instead).
    inside = [_poly({"j": 1}), _poly({"l": 1}), _poly({"m": 1, "": -1, "j": -1})]
    got = row_major(_poly(flat), inner, lambda index, extent: index in inside)
    assert got == [_poly(w) for w in want]


def test_row_major_keeps_a_subscript_that_crosses_rows_flat():
    # i*m + j - 1 at j = 0 is the last element of the row before: no row-major split
    assert row_major(_poly({"i*m": 1, "j": 1, "": -1}), [_poly({"m": 1})], lambda index, extent: False) is None
    # a stride that is not the inner extent
    assert row_major(_poly({"i*n": 1, "j": 1}), [_poly({"m": 1})], lambda index, extent: True) is None


DOCS_FLAT = """\
// t2c: array a[n][m] in
// t2c: array s[m] out
void colsum(int n, int m, const double *a, double *s)
{
    for (int j = 0; j < m; j++) {
        s[j] = 0;
        for (int i = 0; i < n; i++)
            s[j] += a[%s];
    }
}
"""
DOCS_2D = """\
void colsum(int n, int m, const double a[n][m], double s[m])
{
    for (int j = 0; j < m; j++) {
        s[j] = 0;
        for (int i = 0; i < n; i++)
            s[j] += a[i][j];
    }
}
"""


@pytest.mark.parametrize("sub", ["i * m + j", "j + m * i", "(i * m) + j"])
def test_a_flat_subscript_of_an_annotated_pointer_is_the_2d_model(tmp_path, sub):
    flat = analyze(_kernel(tmp_path, DOCS_FLAT % sub))
    two_d = analyze(_kernel(tmp_path, DOCS_2D, "two_d.c"))
    assert _accesses(flat.program, "a") == _accesses(two_d.program, "a") == [("i", "j")]
    facts = lambda an: [(l.var, l.depth, l.parallel, l.reduction) for l in an.loops]
    assert facts(flat) == facts(two_d) and facts(flat)[0][2]                 # j: parallel


def test_a_flat_subscript_that_may_leave_its_row_stays_outside_the_model(tmp_path):
    """`a[i*m + j - 1]` reaches the row before: not a row-major index.  Of an array the nest writes
    it leaves the model; of an input it orders nothing, so the model holds without that access."""
    text = """\
// t2c: array a[n][m] inout
void shift(int n, int m, double *a)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] = (i + j > 0) ? a[i * m + j - 1] : 0.0;
}
"""
    with pytest.raises(NotAffine, match="subscript of 'a' .* multiplies two variables"):
        build_program(_kernel(tmp_path, text))
    text = text.replace("a[n][m] inout", "a[n][m] in\n// t2c: array s[n][m] out").replace(
        "double *a)", "const double *a, double *s)").replace("a[i * m + j] =", "s[i * m + j] =")
    prog = build_program(_kernel(tmp_path, text))
    assert [(a.name, a.index) for a in prog.statements[0].accesses] == [("s", ("i", "j"))]


def test_an_array_indexed_both_flat_and_row_major_is_refused_by_the_model(tmp_path):
    text = """\
/* t2c: array a[n][m] inout */
void mixed(int n, int m, double *a)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] = a[i * m + j] + a[i];
}
"""
    with pytest.raises(NotAffine, match="'i' of 'a' is not a row-major index into its extents"):
        build_program(_kernel(tmp_path, text))


SCATTER_DIRECT = """\
// t2c: array ip[n] in
// t2c: domain ip integers(0, 7)
// t2c: array a[8] inout
void scatter(int n, const int *ip, const double *x, double *a)
{
  for (int i = 0; i < n; i++)
    a[ip[i]] = x[i];
}
"""
SCATTER_LOCAL = """\
// t2c: array ip[n] in
// t2c: domain ip integers(0, 7)
// t2c: array a[8] inout
void scatter(int n, const int *ip, const double *x, double *a)
{
  for (int i = 0; i < n; i++) {
    int k = ip[i];
    a[k] = x[i];
  }
}
"""
HISTOGRAM = (ROOT / "tests/analysis/samples/histogram.c").read_text()   # also the generator test's


def _reason(k) -> str:
    with pytest.raises(NotAffine) as e:
        analyze(k)
    return re.sub(r"^line \d+: ", "", str(e.value))


def test_a_data_dependent_write_has_one_reason_whatever_its_spelling(tmp_path):
    direct = _reason(_kernel(tmp_path, SCATTER_DIRECT, "direct.c"))
    through_local = _reason(_kernel(tmp_path, SCATTER_LOCAL, "local.c"))
    assert direct == through_local
    assert "data-dependent write" in direct and "'a'" in direct and "'ip'" in direct


def test_a_histogram_is_an_atomic_update_not_a_reused_name(tmp_path):
    """Its fallback named a reused name ("loop variable 'b' has an initializer"); the two b's are two
    variables, and `hist[b] += 1` at a b read from data is an atomic update: the loop is parallel."""
    an = analyze(_kernel(tmp_path, HISTOGRAM))
    update, = [st for st in an.program.statements if st.atomic]
    assert update.atomic == "hist" and {a.index for a in update.accesses if a.name == "hist"} == {("t2c_cell0",)}
    assert all(l.parallel for l in an.loops), [(l.var, l.parallel) for l in an.loops]


ATOMIC_UPDATE = """\
// t2c: array ip[n] in
// t2c: domain ip integers(0, 7)
// t2c: array a[8] inout
// t2c: array h[8] inout
void scatter(int n, const int *ip, const double *x, double *a, int *h)
{
  for (int i = 0; i < n; i++)
    %s
}
"""


@pytest.mark.parametrize("body, atomic", [
    ("a[ip[i]] -= x[i];", "a"),
    ("{ int k = ip[i]; h[k]++; }", "h"),
    ("if (x[i] > 0.0) a[ip[i]] += x[i];", "a"),
    ("{ h[ip[i]] += 2; h[ip[n - 1 - i]] -= 1; }", "h"),
])
def test_additions_at_cells_computed_from_data_are_atomic_updates(tmp_path, body, atomic):
    an = analyze(_kernel(tmp_path, ATOMIC_UPDATE % body))
    assert {st.atomic for st in an.program.statements} - {None} == {atomic}
    assert an.loops[0].parallel


@pytest.mark.parametrize("body, why", [
    ("a[ip[i]] *= x[i];", "a data-dependent write: 'a' is written at a subscript"),
    ("h[ip[i]] += x[i];", "the value added to its integers may not be an integer"),
    ("{ a[ip[i]] += x[i]; a[i] = 0.0; }", "also writes it in the same loop nest"),
    ("{ a[ip[i]] += x[i]; h[0] += (int) a[0]; }", "also reads it in the same loop nest"),
])
def test_other_writes_at_cells_computed_from_data_stay_refused(tmp_path, body, why):
    assert why in _reason(_kernel(tmp_path, ATOMIC_UPDATE % body))


def test_a_loop_variables_name_reused_for_a_local_elsewhere_is_another_variable(tmp_path):
    text = """\
void twice(int n, double *x, double *y)
{
  for (int t = 0; t < n; t++)
    x[t] = 2.0 * x[t];
  for (int i = 0; i < n; i++) {
    double t = x[i];
    y[i] = t * t;
  }
}
"""
    an = analyze(_kernel(tmp_path, text))
    assert [(l.var, l.parallel) for l in an.loops] == [("t", True), ("i", True)]
    assert set(an.program.locals) == {"t_1"}          # the local, renamed apart from loop t


def test_divisions_and_modulos_by_constants_are_quasi_affine(tmp_path):
    """`b[i % 2][i / 2]` (a de-interleave) and a bound `(h - 3) / 2 + 1` (a strided pooling's
    extent) were "not affine": one GPU thread.  Of a value that is never negative, C's division
    is isl's floor, so both are in the model; the kernels plan grids.  A dividend that may be
    negative rounds the other way in C: it stays outside, with that reason."""
    from t2c.generators.poly.lower import planned
    from t2c.generators.poly.options import DEFAULT
    loops = ROOT / "corpora" / "loops"
    split = read_c(loops / "vectorizer" / "even_odd_split.c")
    assert _accesses(build_program(split), "b") == [("(i mod 2)", "floor(i / 2)")]
    for k in (split, read_c(loops / "gpu" / "maxpool_stride2.c")):
        assert all(launch.grid for launch in planned(analyze(k), DEFAULT).launches), k.name
    text = """\
/* t2c: array a[n] in
 * t2c: array b[n] out
 */
void back(int n, const double *a, double *b)
{
  for (int i = 0; i < n; i++)
    b[(i - 3) / 2 + 1] = a[i];
}
"""
    with pytest.raises(NotAffine, match=r"divides '\(?i - 3\)?', which may be negative"):
        build_program(_kernel(tmp_path, text))
