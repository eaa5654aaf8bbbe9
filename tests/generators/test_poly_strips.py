"""Strips (strips.py, `grid.strips`): a launch of one thread per grid index whose loops walk the
thread's own row (`A[g][j]`, strided by a row across a warp) or column (`A[j][g]`) copies each
strip of the loop's cells through shared memory, coalesced, the next strip's inputs ahead.
The plan's records on PolyBench (adi, deriche), the loops corpus and a spec; the
loops and arrays it leaves alone; the candidates on the emu; and the emu catching each missing
barrier or wait."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel, mutant_rejected_on_emu
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

ADI = "corpora/polybench/stencils/adi/adi.c"
DERICHE = "corpora/polybench/medley/deriche/deriche.c"
CORRELATION = "corpora/polybench/datamining/correlation/correlation.c"
TRIDIAGONAL = "corpora/loops/solvers/batched_tridiagonal.c"
IIR = "corpora/text2cuda/iir2_rows.md"
#: several blocks and strips at MINI; no one-block loop (adi's launches run as launches)
SMALL = DEFAULT.replace({"grid.strips.threads": 8, "grid.strips.width": 8, "one_block": None})


def _strips(k, options=DEFAULT) -> dict:
    _, plan = final_plan(analyze(k), options)
    return {l.name: l.strips for l in plan.launches if l.strips}


def _tiles(strips) -> list:
    """Each walk's tiles as (array, copied in: 'ahead' | 'in' | '', copied out, down, d, e)."""
    return [[(t.array, "ahead" if t.ahead else "in" if t.loaded else "", t.stored, t.down, t.d, t.e)
             for t in w.tiles] for w in strips.walks]


@pytest.mark.parametrize("path, launch, walks", [
    # the column sweep: p, q written along the thread's row, u read down its columns i-1..i+1;
    # then p, q read back (v's stores down the column are coalesced already: global)
    (ADI, "adi_update_v_p_q", [[("p", "", True, False, (0, 0), (0, 0)), ("q", "", True, False, (0, 0), (0, 0)),
                                ("u", "ahead", False, True, (-1, 1), (0, 0))],
                               [("p", "ahead", False, False, (0, 0), (0, 0)), ("q", "ahead", False, False, (0, 0), (0, 0))]]),
    # the row sweep: v's rows i-1..i+1; u written from the last column back
    (ADI, "adi_update_u_p_q", [[("p", "", True, False, (0, 0), (0, 0)), ("q", "", True, False, (0, 0), (0, 0)),
                                ("v", "ahead", False, False, (-1, 1), (0, 0))],
                               [("p", "ahead", False, False, (0, 0), (0, 0)), ("q", "ahead", False, False, (0, 0), (0, 0)),
                                ("u", "", True, False, (0, 0), (0, 0))]]),
    # y1 read back in the iteration that wrote it: no copy in
    (DERICHE, "deriche_update_y1_y2_1", [[("imgIn", "ahead", False, False, (0, 0), (0, 0)), ("y1", "", True, False, (0, 0), (0, 0))],
                                         [("imgIn", "ahead", False, False, (0, 0), (0, 0)), ("y2", "", True, False, (0, 0), (0, 0))]]),
    (DERICHE, "deriche_update_y1_y2_2", [[("imgOut", "ahead", False, True, (0, 0), (0, 0))]] * 2),
    # c and d updated in place: copied in and out each strip
    (TRIDIAGONAL, "batched_tridiagonal_update_c_d_x",
     [[("a", "ahead", False, False, (0, 0), (0, 0)), ("b", "ahead", False, False, (0, 0), (0, 0)),
       ("c", "in", True, False, (0, 0), (0, 0)), ("d", "in", True, False, (0, 0), (0, 0))],
      [("c", "ahead", False, False, (0, 0), (0, 0)), ("d", "ahead", False, False, (0, 0), (0, 0)),
       ("x", "", True, False, (0, 0), (0, 0))]]),
    # Y[r, j-2]: the two cells before the strip copied in with it (Y[r, j-1] is a register)
    (IIR, "iir2_rows_update_Y", [[("X", "ahead", False, False, (0, 0), (-1, 0)), ("Y", "in", True, False, (0, 0), (-2, 0))]]),
])
def test_walks(path, launch, walks):
    assert _tiles(_strips(read_kernel(ROOT / path))[launch]) == walks


def test_strips_shorten_to_fit_static_shared_memory():
    k = read_kernel(ROOT / TRIDIAGONAL)
    st = _strips(k)["batched_tridiagonal_update_c_d_x"]
    assert (st.width, st.bytes) == (16, 26112)          # at 32 wide its first walk's copies take 50 KiB
    st = _strips(k, DEFAULT.replace({"grid.strips.ahead": False}))["batched_tridiagonal_update_c_d_x"]
    assert st.width == 32 and not any(t.ahead for w in st.walks for t in w.tiles)
    assert not _strips(k, DEFAULT.replace({"grid.strips": None}))


def test_what_strips_leave(tmp_path):
    # a loop whose bounds move with the grid index: threads would meet different barriers
    k = c_kernel(tmp_path, """
void tri(int m, int n, const double x[m][n], double y[m][n])
{
  for (int s = 0; s < m; s++)
    for (int i = 1; i < s && i < n; i++)
      y[s][i] = 0.5 * y[s][i - 1] + x[s][i];
}""")
    assert not _strips(k)
    # y named at a constant column too (y[s + 1][0]): it stays in global memory, x and z are copied
    # (a recurrence no scan takes: it divides)
    k = c_kernel(tmp_path, """
void other_row(int m, int n, const double x[m][n], const double y[m][n], double z[m][n])
{
  for (int s = 0; s < m - 1; s++)
    for (int i = 1; i < n; i++)
      z[s][i] = x[s][i] / (1.0 + z[s][i - 1] * z[s][i - 1]) + y[s + 1][0] * y[s][i];
}""")
    st, = _strips(k).values()
    assert _tiles(st) == [[("x", "ahead", False, False, (0, 0), (0, 0)), ("z", "", True, False, (0, 0), (0, 0))]]
    text = generate(k, SMALL)
    assert "y[((s + 1) * n) + 0]" in text and "y[(s * n) + i]" in text
    accepted_on_emu(k, text)


def test_a_column_summed_into_a_register_stays_as_it_is():
    # correlation's column statistics: coalesced loads in a loop that stores nothing, which the
    # compiler issues ahead itself (copies measured 0.80x: reports/h100-strips-20)
    assert not _strips(read_kernel(ROOT / CORRELATION))


def test_rows_only_read_stay_with_the_slab(tmp_path):
    # rows the launch only reads, along its rows: the slab copies them whole, once
    k = c_kernel(tmp_path, """
void rows_read(int m, int n, const double x[m][n], double y[m])
{
  for (int s = 0; s < m; s++) {
    y[s] = 0.0;
    for (int i = 1; i < n; i++)
      y[s] = 0.5 * y[s] + x[s][i] - x[s][i - 1];
  }
}""")
    assert not _strips(k)
    assert "poly_staged" in generate(k)


@pytest.mark.parametrize("path", [ADI, DERICHE, TRIDIAGONAL, IIR])
def test_candidates_on_the_emu(path):
    k = read_kernel(ROOT / path)
    text = generate(k, SMALL)
    assert "in strips of 8 iterations" in text and "__pipeline_memcpy_async" in text
    accepted_on_emu(k, text)


MUTANTS = {   # each removes what one ordering needs: (old, new)
    "the barrier after the copies in": ("are in */\n      __syncthreads();", "are in */"),
    "the barrier before the copies out": ("      }\n      __syncthreads();\n      for (int poly_e", "      }\n      for (int poly_e"),
    "the wait for the copies ahead": ("__pipeline_wait_prior(1);", ""),
    "the second buffer": ("((poly_k + 1) & 1)", "(poly_k & 1)"),
}


@pytest.mark.parametrize("mutant", MUTANTS)
def test_the_emu_catches_a_missing_order(mutant):
    k = read_kernel(ROOT / IIR)
    mutant_rejected_on_emu(k, generate(k, SMALL), MUTANTS[mutant], "SMALL", r"unwritten|NaN|mismatch")
