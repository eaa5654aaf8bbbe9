"""Hand-tiled loops (frontends/c/bounds.py, ir/extents.loop_range): a loop bounded by the minimum
of its tile's end and the size, spelled with a MIN macro (`i < MIN(ii + T, n)`, a conditional
expression after cpp) or as a conjunction (`i < ii + T && i < n`), gets its pointers' extents
from the size-only bound, and the model reads the conjunction as the loop's bounds: a parallel
plan, an accepted candidate."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.generators.poly import generate
from t2c.ir.csyntax import kernel_definition, parse_c, walk

TILED = {
    "transpose_min": """\
/* t2c: size n MINI=20 SMALL=200
 * t2c: size m MINI=18 SMALL=180 */
#define TILE 8
#define MIN(a, b) ((a) < (b) ? (a) : (b))
void transpose_min(int n, int m, const double *restrict A, double *restrict B)
{
    for (int ii = 0; ii < n; ii += TILE)
        for (int jj = 0; jj < m; jj += TILE)
            for (int i = ii; i < MIN(ii + TILE, n); i++)
                for (int j = jj; j < MIN(jj + TILE, m); j++)
                    B[j * n + i] = A[i * m + j];
}
""",
    "scale_and": """\
/* t2c: size n MINI=37 SMALL=3000 */
void scale_and(int n, float s, const float *x, float *y)
{
    for (int b = 0; b < n; b += 16)
        for (int i = b; i < b + 16 && i < n; i++)
            y[i] = s * x[i];
}
""",
    "reverse_max": """\
/* t2c: size n MINI=37 SMALL=3000 */
#define MAX(a, b) ((a) > (b) ? (a) : (b))
void reverse_max(int n, const float *x, float *y)
{
    for (int b = n - 1; b >= 0; b -= 8)
        for (int i = b; i > MAX(b - 8, -1); i--)
            y[n - 1 - i] = x[i];
}
""",
}

EXTENTS = {"transpose_min": {"A": ("n", "m"), "B": ("m", "n")},   # rows of a flat pointer
           "scale_and": {"x": ("n",), "y": ("n",)}, "reverse_max": {"x": ("n",), "y": ("n",)}}


@pytest.mark.parametrize("name", sorted(TILED))
def test_a_tile_loop_bounded_by_a_minimum_has_its_extents_and_runs(tmp_path, name):
    k = c_kernel(tmp_path, TILED[name], name)
    shapes = {a.name: a.shape for a in k.arrays}
    for array, shape in EXTENTS[name].items():
        assert shapes[array] == shape
    conds = [n.cond for n in walk(kernel_definition(parse_c(k.reference, "ref"))) if type(n).__name__ == "For"]
    assert not any(type(c).__name__ == "TernaryOp" for cond in conds for c in walk(cond))
    text = generate(k)
    assert "runs in one GPU thread" not in text
    accepted_on_emu(k, text)


def test_a_conditional_that_is_no_minimum_stays(tmp_path):
    k = c_kernel(tmp_path, """\
/* t2c: array y[n] out
 * t2c: array x[n] in */
void odd_bound(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
    for (int i = 0; i < (n > 4 ? n - 4 : n); i++)
        y[i] = 2.0f * x[i];
}
""", "odd_bound")
    assert "?" in k.reference


WHOLE = """\
#define TS 16
void tiled_t(int n, int m, const float *in, float *out) {
  for (int ii = 0; ii < n; ii += TS)
    for (int jj = 1; jj < m; jj += TS)
      for (int i = ii; i < ii + TS; i++)
        for (int j = jj; j < jj + TS; j++)
          out[j * n + i] = in[i * m + j];
}
"""


def test_tiles_without_a_last_tile_guard_assume_whole_tiles(tmp_path):
    # `i < ii + TS` alone: the code is right only where TS divides n (and m - 1); t2c reads the
    # bound as `i < ii + TS && i < n` under that constraint, so the extents are n x m, not
    # n x m + 15 more, the verifier draws sizes that meet it, and the nest is read untiled
    from t2c.analysis import analyze
    from t2c.verify.synth import random_points
    k = c_kernel(tmp_path, WHOLE)
    assert {a.name: a.shape for a in k.arrays} == {"in": ("n * m",), "out": ("m * n",)} or \
        {a.name: a.shape for a in k.arrays} == {"in": ("n", "m"), "out": ("m", "n")}
    assert "(n % 16) == 0" in k.constraints and "((m - 1) % 16) == 0" in k.constraints
    assert all(s["n"] % 16 == 0 and (s["m"] - 1) % 16 == 0 for _, s in random_points(k, 7, 8))
    assert not {"ii", "jj"} & {v for s in analyze(k).program.statements for v in s.loops}
    accepted_on_emu(k, generate(k))


def test_whole_tiles_of_a_bound_the_sizes_give_are_a_constraint_in_c_arithmetic(tmp_path):
    # h = n / 2 (integer division, as C): the tiles fill [0, h) where 8 divides n / 2, so n = 17
    # is as valid as n = 16; the verifier judges the constraint with C's division
    from t2c.verify.reference import check_constraints
    k = c_kernel(tmp_path, """
void half(int n, float *x) {
  int h = n / 2;
  for (int ii = 0; ii < h; ii += 8)
    for (int i = ii; i < ii + 8; i++)
      x[i] = 0.0f;
}""")
    assert "((n / 2) % 8) == 0" in k.constraints
    check_constraints(k, {"n": 17})
    with pytest.raises(Exception, match="break the constraint"):
        check_constraints(k, {"n": 18})
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("text, constraint, extents", [
    # two rows a step, no remainder: right only for even n, which becomes a constraint; A has n rows
    ("""void mv2(int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; i += 2) {
    double s0 = 0, s1 = 0;
    for (int j = 0; j < n; j++) {
      s0 += A[i * n + j] * x[j];
      s1 += A[(i + 1) * n + j] * x[j];
    }
    y[i] = s0; y[i + 1] = s1;
  }
}""", "(n % 2) == 0", {"A": ("n", "n"), "y": ("n",)}),
    # pairs over 2 * n: always whole, no constraint; the extents are 2 n, not 2 n + 1
    ("""void pairs(int n, const double *a, double *y) {
  for (int i = 0; i < 2 * n; i += 2) {
    y[i] = a[i] + a[i + 1];
    y[i + 1] = a[i] - a[i + 1];
  }
}""", None, {"a": ("2 * n",), "y": ("2 * n",)}),
    # every other element: right for any n, nothing assumed
    ("""void evens(int n, const float *x, float *y) {
  for (int i = 0; i < n; i += 2)
    y[i] = 2.0f * x[i];
}""", None, {"x": ("n",), "y": ("n",)}),
])
def test_steps_indexed_up_to_their_width_assume_whole_steps(tmp_path, text, constraint, extents):
    k = c_kernel(tmp_path, text)
    assert [c for c in k.constraints if "%" in c] == ([constraint] if constraint else [])
    assert {a.name: a.shape for a in k.arrays if a.name in extents} == extents
    accepted_on_emu(k, generate(k))


def test_a_tile_end_kept_in_a_local_is_the_minimum_it_holds(tmp_path):
    # `int iend = MIN(ii + B, n); for (i = ii; i < iend; i++)`: the bound is the minimum, as inline
    from t2c.analysis import analyze
    k = c_kernel(tmp_path, """
#define B 64
#define MIN(a,b) ((a)<(b)?(a):(b))
void scale_tiled(int n, int m, const double *x, double *y) {
  for (int ii = 0; ii < n; ii += B) {
    int iend = MIN(ii + B, n);
    for (int jj = 0; jj < m; jj += B) {
      int jend = MIN(jj + B, m);
      for (int i = ii; i < iend; i++)
        for (int j = jj; j < jend; j++)
          y[j * n + i] = 2.0 * x[i * m + j];
    }
  }
}""")
    assert {a.name: a.shape for a in k.arrays} == {"x": ("n", "m"), "y": ("m", "n")}
    assert {v for s in analyze(k).program.statements for v in s.loops} == {"i", "j"}
    accepted_on_emu(k, generate(k))


def test_a_step_whose_body_minds_the_edge_assumes_nothing(tmp_path):
    k = c_kernel(tmp_path, """
void pairs_clamped(int n, const float *a, float *y) {
  for (int i = 0; i < n; i += 2)
    y[i] = a[i] + a[i + 1 < n ? i + 1 : i];
}""")
    assert not any("%" in c for c in k.constraints)
