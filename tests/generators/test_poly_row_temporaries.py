"""Row folds through a temporary of the iteration (reduce.temporaries): `v = P ? j : c; m = (v <
m) ? v : m;`, the form a spec's `min(j: where(P, j, c))` lowers to and users write for the first
column where something holds, or the first column holding the row's maximum (an argmax with
ties to the first).  The temporary lives within one iteration of the row's loop (isl: its web is
private to the loop), so each lane runs it before its fold; an int's ternary min is `imin`.  One
loop takes the lanes-per-row form, several the block-per-row phases; a search (`P ? j : end`)
stops each lane at its first hit.  Read from the plan,
accepted by the emu ladder."""
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

FIRST_ABOVE = """
void first_col(int n, int m, double t, const double a[n][m], int first[n])
{
  for (int i = 0; i < n; i++) {
    int f = m;
    for (int j = 0; j < m; j++) {
      int v = a[i][j] > t ? j : m;
      f = v < f ? v : f;
    }
    first[i] = f;
  }
}
"""

ARGMAX = """
void argmax_col(int n, int m, const double a[n][m], int at[n])
{
  for (int i = 0; i < n; i++) {
    double best = a[i][0];
    for (int j = 1; j < m; j++)
      best = fmax(best, a[i][j]);
    int k = m;
    for (int j = 0; j < m; j++) {
      int v = a[i][j] == best ? j : m;
      k = v < k ? v : k;
    }
    at[i] = k;
  }
}
"""


def _kernel(source, tmp_path):
    return read_kernel(ROOT / source) if source.endswith(".md") else c_kernel(tmp_path, source, source.split()[1].split("(")[0])


@pytest.mark.parametrize("source", ["corpora/text2cuda/first_above.md", FIRST_ABOVE], ids=["spec", "c"])
def test_a_first_index_per_row_is_reduced_by_lanes(source, tmp_path):
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT)
    (launch,) = plan.launches
    assert launch.row is not None and launch.row.op == "imin" and len(launch.row.temps) == 1
    assert launch.row.search                     # `v = P ? j : end`: each lane stops at its first hit
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("source", ["corpora/text2cuda/argmax_rows.md", ARGMAX], ids=["spec", "c"])
def test_an_argmax_per_row_takes_a_block_per_row(source, tmp_path):
    k = _kernel(source, tmp_path)
    _, plan = final_plan(analyze(k), DEFAULT)
    (launch,) = [l for l in plan.launches if l.phases]
    folds = [ph for ph in launch.phases.phases if ph.kind == "fold"]
    assert [op for ph in folds for _, op, _ in ph.folds][-1] == "imin" and len(folds[-1].temps) == 1
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("path", ["corpora/loops/rodinia/nbody.c", "corpora/text2cuda/conv1d.md"])
def test_a_row_of_broadcast_reads_keeps_a_thread_per_row(path):
    """nbody's loop over j through temporaries (dx, r2, inv) reads p[j], m[j]; conv1d's over t
    reads w[t]: the same addresses for every i, a broadcast to a thread per i (conv1d's x[i + t]
    is coalesced across threads already), not a row that lanes would coalesce."""
    k = read_kernel(ROOT / path)
    _, plan = final_plan(analyze(k), DEFAULT)
    assert not any(l.row for l in plan.launches)
