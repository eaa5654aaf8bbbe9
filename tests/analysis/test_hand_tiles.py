"""Hand-tiled (strip-mined) loop nests (analysis/tiles.py): tile loops `for (ii = L; ii < U; ii += T)`
around point loops `for (i = ii; i < MIN(ii + T, U); i++)` are modelled as the untiled nest where
the tiled order keeps every dependence of the untiled one: a tiled transpose gets the untiled
transpose's plan, a tiled matrix product the gemm family's tiled form, a tiled in-place sweep
(dependences along +i and +j only) its wavefront; a nest whose untiling would reverse a dependence
is kept as written, and `--explain` says why. Refusals of the shape leave the nest as written."""
import pytest

from t2c.analysis import analyze
from t2c.generators.poly import explanation, generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.verify.ladder import ladder
from t2ctest import ROOT, c_kernel

IDIOMS = ROOT / "corpora" / "loops" / "idioms"

HEAD = """\
/* t2c: size n MINI=40 SMALL=100
 * t2c: size m MINI=37 SMALL=90
 * t2c: array a[n][m] inout
 * t2c: array b[m][n] inout
 */
#define MIN(x, y) ((x) < (y) ? (x) : (y))
"""

TRANSPOSE = """\
void t(int n, int m, double a[n][m], double b[m][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      b[j][i] = a[i][j];
}
"""

#: The tiled transposes: MIN as the macro, as the conjunction, tile and point loops interleaved,
#: the point loops in the other order, tile variables declared apart, tile sizes that differ.
TILED = {
    "macro": """\
void t(int n, int m, double a[n][m], double b[m][n])
{
  for (int ii = 0; ii < n; ii += 32)
    for (int jj = 0; jj < m; jj += 32)
      for (int i = ii; i < MIN(ii + 32, n); i++)
        for (int j = jj; j < MIN(jj + 32, m); j++)
          b[j][i] = a[i][j];
}
""",
    "conjunction": """\
void t(int n, int m, double a[n][m], double b[m][n])
{
  int ii, jj, i, j;
  for (ii = 0; ii < n; ii = ii + 16)
    for (jj = 0; jj < m; jj += 8) {
      for (i = ii; i < n && i < ii + 16; ++i)
        for (j = jj; j < 8 + jj && j < m; j++)
          b[j][i] = a[i][j];
    }
}
""",
    "interleaved": """\
void t(int n, int m, double a[n][m], double b[m][n])
{
  for (int ii = 0; ii < n; ii += 32)
    for (int i = ii; i < MIN(ii + 32, n); i++)
      for (int jj = 0; jj < m; jj += 32)
        for (int j = jj; j < MIN(jj + 32, m); j++)
          b[j][i] = a[i][j];
}
""",
}

GEMM = """\
/* t2c: size n MINI=40 SMALL=100
 * t2c: array A[n][n] in
 * t2c: array B[n][n] in
 * t2c: array C[n][n] inout
 */
#define MIN(x, y) ((x) < (y) ? (x) : (y))
void g(int n, const double A[n][n], const double B[n][n], double C[n][n])
{
  for (int ii = 0; ii < n; ii += 32)
    for (int jj = 0; jj < n; jj += 32)
      for (int kk = 0; kk < n; kk += 32)
        for (int i = ii; i < MIN(ii + 32, n); i++)
          for (int j = jj; j < MIN(jj + 32, n); j++)
            for (int k = kk; k < MIN(kk + 32, n); k++)
              C[i][j] += A[i][k] * B[k][j];
}
"""

#: In place, reading a[i - 1][j] and a[i][j - 1]: dependences along +i and +j only, which the tiled
#: order keeps (tiling it was legal, so is untiling it).
SWEEP = """\
void s(int n, int m, double a[n][m], double b[m][n])
{
  for (int ii = 1; ii < n; ii += 32)
    for (int jj = 1; jj < m; jj += 32)
      for (int i = ii; i < MIN(ii + 32, n); i++)
        for (int j = jj; j < MIN(jj + 32, m); j++)
          a[i][j] = 0.5 * (a[i - 1][j] + a[i][j - 1]);
}
"""

#: In place, reading a[i - 1][j + 1]: a dependence of distance (1, -1), which the tiled order
#: reverses at each tile's first column (the cell to its upper right lies in the next jj tile, run
#: later): the tiled nest computes something else than the untiled one.
SKEWED = """\
void s(int n, int m, double a[n][m], double b[m][n])
{
  for (int ii = 1; ii < n; ii += 32)
    for (int jj = 0; jj < m - 1; jj += 32)
      for (int i = ii; i < MIN(ii + 32, n); i++)
        for (int j = jj; j < MIN(jj + 32, m - 1); j++)
          a[i][j] = 0.5 * (a[i - 1][j + 1] + a[i][j]);
}
"""


def _loops(an) -> set[str]:
    return {v for s in an.program.statements for v in s.loops}


def _grids(k) -> list:
    _, plan = final_plan(analyze(k), DEFAULT)
    return [([l.var for l in launch.grid], launch.axes, bool(launch.transposed)) for launch in plan.launches]


@pytest.mark.parametrize("name", TILED)
def test_a_tiled_transpose_has_the_untiled_transposes_plan(tmp_path, name):
    k = c_kernel(tmp_path, HEAD + TILED[name], "t")
    an = analyze(k)
    assert _loops(an) == {"i", "j"}
    assert any("read untiled" in n for n in an.program.notes)
    assert _grids(k) == _grids(c_kernel(tmp_path, HEAD + TRANSPOSE, "u"))


def test_a_tiled_matrix_product_becomes_the_gemm_form(tmp_path):
    k = c_kernel(tmp_path, GEMM, "g")
    assert _loops(analyze(k)) == {"i", "j", "k"}
    _, plan = final_plan(analyze(k), DEFAULT)
    (launch,) = plan.launches
    assert [l.var for l in launch.grid] == ["i", "j"] and launch.tile and launch.staged


def test_a_tiled_sweep_whose_dependences_the_tiles_keep_is_untiled(tmp_path):
    an = analyze(c_kernel(tmp_path, HEAD + SWEEP, "s"))
    assert _loops(an) == {"i", "j"}


def test_a_tiled_nest_whose_untiling_reverses_a_dependence_is_kept(tmp_path):
    k = c_kernel(tmp_path, HEAD + SKEWED, "s")
    an = analyze(k)
    assert _loops(an) == {"ii", "jj", "i", "j"}
    (note,) = an.program.notes
    assert "kept as written" in note and "a dependence on a" in note
    assert note in explanation(k)


@pytest.mark.parametrize("body", [
    # the tile variable read in the body
    "for (int ii = 0; ii < n; ii += 32)\n    for (int i = ii; i < MIN(ii + 32, n); i++)\n      a[i][0] = ii;",
    # a statement between the tile loop and its point loop
    "for (int ii = 0; ii < n; ii += 32) {\n    a[ii][0] = 1.0;\n    for (int i = ii; i < MIN(ii + 32, n); i++)\n"
    "      b[0][i] = 2.0;\n  }",
    # a point loop bounded by another size than its tile loop
    "for (int ii = 0; ii < n; ii += 32)\n    for (int i = ii; i < MIN(ii + 32, m); i++)\n      b[i][0] = 1.0;",
    # a point loop shorter than its tile
    "for (int ii = 0; ii < n; ii += 32)\n    for (int i = ii; i < MIN(ii + 16, n); i++)\n      a[i][0] = 1.0;",
    # the body steps a point variable
    "for (int ii = 0; ii < n; ii += 32)\n    for (int i = ii; i < MIN(ii + 32, n); i++) {\n      a[i][0] = 1.0;\n"
    "      if (a[i][0] > 2.0) i++;\n    }",
    # `i < ii + T` alone, where nothing proves the last tile whole
    "for (int ii = 0; ii < n - 31; ii += 32)\n    for (int i = ii; i < ii + 32; i++)\n      a[i][0] = 1.0;",
])
def test_a_nest_that_is_no_strip_mined_pair_stays_as_written(tmp_path, body):
    k = c_kernel(tmp_path, HEAD + f"void f(int n, int m, double a[n][m], double b[m][n])\n{{\n  {body}\n}}\n", "f")
    try:
        an = analyze(k)
    except Exception:               # outside the model as before: nothing untiled either
        return
    assert "ii" in _loops(an) and not an.program.notes


@pytest.mark.parametrize("name,dataset", [("macro", "MINI"), ("interleaved", "SMALL"), ("gemm", "MINI"),
                                          ("gemm", "SMALL"), ("sweep", "MINI"), ("sweep", "SMALL"),
                                          ("skewed", "MINI")])
def test_an_untiled_or_kept_nest_computes_what_the_tiled_reference_does(tmp_path, name, dataset):
    text = {"gemm": GEMM, "sweep": HEAD + SWEEP, "skewed": HEAD + SKEWED}.get(name) or HEAD + TILED.get(name)
    k = c_kernel(tmp_path, text, "x")
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()


@pytest.mark.parametrize("name", ["tiled_transpose", "tiled_matmul"])
def test_the_corpus_tiled_nests_map_untiled(name):
    from t2c.frontends.c import read_c
    k = read_c(IDIOMS / f"{name}.c")
    assert not {"ii", "jj", "kk"} & _loops(analyze(k))
    for dataset in ("MINI", "SMALL"):
        card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=5)
        assert card.accepted, card.summary()


#: ikj with the A element hoisted above the innermost point loop, as CPU code holds it in a register
HOISTED = """\
/* t2c: size n MINI=40 SMALL=100 */
#define TS 32
#define MIN(a, b) ((a) < (b) ? (a) : (b))
void mm(int n, const double *A, const double *B, double *C) {
  for (int ii = 0; ii < n; ii += TS)
    for (int kk = 0; kk < n; kk += TS)
      for (int jj = 0; jj < n; jj += TS)
        for (int i = ii; i < MIN(ii + TS, n); i++)
          for (int k = kk; k < MIN(kk + TS, n); k++) {
            double a = A[i * n + k];
            for (int j = jj; j < MIN(jj + TS, n); j++)
              C[i * n + j] += a * B[k * n + j];
          }
}
"""


def test_a_declaration_hoisted_between_point_loops_is_untiled_with_them(tmp_path):
    # the tiled nest computes `a` again in each jj tile, from A, which the nest never writes: once
    # per (i, k) is the same value; the untiled nest is the matrix product, on the tensor cores
    k = c_kernel(tmp_path, HOISTED, "mm")
    an = analyze(k)
    assert _loops(an) == {"i", "j", "k"} and any("read untiled" in n for n in an.program.notes)
    _, plan = final_plan(an, DEFAULT)
    assert any(launch.tile and launch.staged for launch in plan.launches)
    for dataset in ("MINI", "SMALL"):
        card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
        assert card.accepted, card.summary()


@pytest.mark.parametrize("change", [
    # the declaration reads C, which the nest writes: another tile may see another value
    ("double a = A[i * n + k];", "double a = A[i * n + k] + C[k];"),
    # a declaration between a tile loop and the next loop: the tile loop goes
    ("      for (int jj = 0; jj < n; jj += TS)\n", "      for (int jj = 0; jj < n; jj += TS) {\n        double z = 1.0;\n"),
])
def test_a_hoisted_declaration_the_tiles_could_change_keeps_the_nest(tmp_path, change):
    text = HOISTED.replace(*change)
    if "double z" in text:
        text = text.replace("C[i * n + j] += a * B[k * n + j];\n          }\n}", "C[i * n + j] += a * z * B[k * n + j];\n          }\n        }\n}")
    k = c_kernel(tmp_path, text, "mm")
    assert {"ii", "kk", "jj"} <= _loops(analyze(k))
