"""A block per row (poly/phases.py, issue #35): a 1-d grid whose threads run several loops along
their row in turn (folds into row scalars, loops that carry nothing) takes a block of threads per
row, on kernels of corpora/loops and on specs.  Read from the plan, accepted by the emu ladder.
The pooling specs' window bands (inside parallel loops) keep their order: a wavefront there lost
an index when printed."""
import re

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.forms import formed
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT


def _phases(k):
    an = analyze(k)
    plan = formed(an, planned(an, DEFAULT), DEFAULT)
    return [tuple(ph.kind for ph in launch.phases.phases) if launch.phases else None for launch in plan.launches]


@pytest.mark.parametrize("path, kinds", [
    ("corpora/loops/gpu/softmax.c", ("stmt", "fold", "stmt", "map", "fold", "map")),
    ("corpora/loops/gpu/layernorm.c", None),
    ("corpora/text2cuda/log_softmax.md", None),
])
def test_a_threads_loops_along_its_row_take_a_block_per_row(path, kinds):
    k = read_kernel(ROOT / path)
    got = [p for p in _phases(k) if p]
    assert got and (kinds is None or got == [kinds]), got
    text = generate(k)
    assert re.search(r"a block of (256|128) threads per", text)   # 128 where rows are kept in registers
    accepted_on_emu(k, text)


# A local array written and read only in its own row (a spec's `let mx[r] = max(j: ...)`, a C
# `double s[n]` of row values) is global scratch like an output array: the rows still take blocks.
ROW_SCRATCH = """
void rownorm(int n, int m, const double x[n][m], double y[n][m])
{
  double s[n];
  for (int i = 0; i < n; i++) {
    double a = 0.0;
    for (int j = 0; j < m; j++)
      a += x[i][j] * x[i][j];
    s[i] = sqrt(a) + 1.0;
  }
  for (int i = 0; i < n; i++) {
    double b = 0.0;
    for (int j = 0; j < m; j++)
      b += x[i][j] / s[i];
    y[i][0] = b;
  }
}
"""


@pytest.mark.parametrize("path", ["corpora/text2cuda/softmax_let.md", "corpora/text2cuda/layer_norm_let.md", None])
def test_row_values_in_a_local_array_keep_a_block_per_row(path, tmp_path):
    k = read_kernel(ROOT / path) if path else c_kernel(tmp_path, ROW_SCRATCH, "rownorm")
    assert [p for p in _phases(k) if p] == [("stmt", "fold", "stmt", "stmt", "fold", "stmt")]
    accepted_on_emu(k, generate(k))


BATCHED = """
/* t2c: size nb MINI=2 SMALL=8
 * t2c: size n MINI=3 SMALL=16
 * t2c: size m MINI=9 SMALL=70
 */
void batched_lse(int nb, int n, int m, const double x[nb][n][m], double lse[nb][n])
{
  for (int b = 0; b < nb; b++)
    for (int i = 0; i < n; i++) {
      double mx = x[b][i][0];
      for (int j = 1; j < m; j++)
        mx = fmax(mx, x[b][i][j]);
      double s = 0.0;
      for (int j = 0; j < m; j++)
        s += exp(x[b][i][j] - mx);
      lse[b][i] = mx + log(s);
    }
}
"""


@pytest.mark.parametrize("path", ["corpora/text2cuda/attention.md", None], ids=["spec", "c"])
def test_rows_of_a_two_dimensional_grid_take_a_block_each(path, tmp_path):
    """A box of rows (attention's (h, i), a batch of rows): a block per row, the block indices
    of the grid's axes striding the rows' loops."""
    k = read_kernel(ROOT / path) if path else c_kernel(tmp_path, BATCHED, "batched_lse")
    an = analyze(k)
    plan = formed(an, planned(an, DEFAULT), DEFAULT)
    (launch,) = [l for l in plan.launches if l.phases]
    assert len(launch.grid) == 2 and [ph.kind for ph in launch.phases.phases].count("fold") == 2
    accepted_on_emu(k, generate(k))


def test_row_phases_off_keeps_a_thread_per_row():
    k = read_kernel(ROOT / "corpora/loops/gpu/softmax.c")
    assert "threads per i runs its phases" not in generate(k, DEFAULT.replace({"reductions.row_blocks": False}))


def test_a_window_band_inside_parallel_loops_keeps_its_order():
    k = read_kernel(ROOT / "corpora/text2cuda/avgpool2d.md")
    text = generate(k)
    assert "wave" not in text and "loops dy, dx run in order inside each thread" in text
    accepted_on_emu(k, text)
