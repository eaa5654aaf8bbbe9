"""Row-wise normalizations (poly/rows.py, issue #36): a row's folds and the elementwise outputs
that read them run in one launch of a block per row; row cells the statements of the row set
(`let mx[r]`, `rinv[r]`) are registers of every thread; an array several phases read along the
row is held in shared memory.  Read from the final plan, accepted by the emu ladder at MINI
and SMALL, with rows that are no multiple of the block, rows longer than what is held, and
rows of one element."""
import textwrap

import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.frontends.prose import read_spec
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.verify.ladder import ladder


def _plan(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return plan


# path -> (phase kinds of the one launch, its row cells (array, stored), its held arrays)
CLASS = {
    "corpora/text2cuda/softmax_let.md": (("stmt", "fold", "stmt", "stmt", "fold", "stmt", "map"),
                                         (("mx", False), ("den", False)), ("X",)),
    "corpora/text2cuda/layer_norm_let.md": (("stmt", "fold", "stmt", "stmt", "fold", "stmt", "map"),
                                            (("mean", False), ("rstd", False)), ("X",)),
    "corpora/text2cuda/rms_norm.md": (("stmt", "fold", "stmt", "map"), (("rinv", True),), ("X",)),
    "corpora/text2cuda/log_softmax.md": (("stmt", "fold", "stmt", "stmt", "fold", "stmt", "map"),
                                         (("mx", True), ("lse", True)), ("X",)),
    "corpora/loops/gpu/layernorm.c": (("stmt", "stmt", "fold", "stmt", "fold", "stmt", "map"), (), ("x",)),
}


@pytest.mark.parametrize("path", list(CLASS))
def test_a_rows_folds_and_the_outputs_reading_them_are_one_launch(path):
    kinds, cells, held = CLASS[path]
    plan = _plan(read_kernel(ROOT / path))
    (launch,) = plan.launches
    rp = launch.phases
    assert rp is not None and tuple(ph.kind for ph in rp.phases) == kinds
    assert rp.cells == cells
    assert tuple(h.array for h in rp.held) == held and all(h.elements == 4096 for h in rp.held)


def test_the_scratch_of_a_let_has_no_device_buffer():
    text = generate(read_kernel(ROOT / "corpora/text2cuda/softmax_let.md"))
    assert "dev_mx" not in text and "dev_den" not in text and "poly_local_" not in text
    assert text.count("__global__") == 2 and "poly_row_X[j] = poly_v_X" in text   # one launch: a block kernel, a warp kernel


def test_row_joins_off_keeps_the_outputs_launch():
    plan = _plan(read_kernel(ROOT / "corpora/text2cuda/softmax_let.md"),
                 DEFAULT.replace({"reductions.row_joins": False}))
    assert len(plan.launches) == 2


def test_a_nest_that_reads_nothing_the_rows_wrote_stays_apart(tmp_path):
    """Two nests over the rows that share nothing: no join (each keeps its own mapping)."""
    k = c_kernel(tmp_path, """
void two(int n, int m, const double x[n][m], double s[n], double y[n][m])
{
  for (int i = 0; i < n; i++) {
    double a = 0.0;
    for (int j = 0; j < m; j++)
      a += x[i][j];
    s[i] = a;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i][j] = 2.0 * x[i][j];
}
""", "two")
    assert len(_plan(k).launches) == 2


@pytest.mark.parametrize("path", ["corpora/text2cuda/softmax_let.md", "corpora/text2cuda/layer_norm_let.md",
                                  "corpora/text2cuda/rms_norm.md", "corpora/text2cuda/log_softmax.md",
                                  "corpora/loops/gpu/layernorm.c"])
@pytest.mark.parametrize("dataset", ["MINI", pytest.param("SMALL", marks=pytest.mark.full)])
def test_the_class_is_accepted_on_emu(path, dataset):
    k = read_kernel(ROOT / path)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
    assert card.accepted, card.summary()


SPEC = """\
---
name: rownorm
sizes:
  b: {{MINI: 3, SMALL: 40}}
  c: {{MINI: {c}, SMALL: {c}}}
arrays:
  X: float[b, c] in
  w: float[c] in
  Y: float[b, c] out
tolerance: {{rtol: 1e-4, atol: 1e-5}}
---
An RMS norm whose reciprocal is a temporary of its own statement.

```t2c
let ss[r] = sum(j: X[r, j] * X[r, j])
let rinv[r] = 1.0 / sqrt(ss[r] / c + 1e-6)
Y[r, j] = X[r, j] * rinv[r] * w[j]
```
"""


@pytest.mark.parametrize("c, held", [(300, 4096), (300, 7)], ids=["partial-block", "longer-than-held"])
def test_short_long_and_partly_held_rows_are_accepted(tmp_path, c, held):
    """Rows that are no multiple of the block (300 = 256 + 44) and rows longer than what a block
    holds (7 elements held, the rest re-read from global memory); the ladder's smoke rung runs
    every size at 1, 2 and 3 too (rows of one element, fewer than a warp)."""
    path = tmp_path / "rownorm.md"
    path.write_text(textwrap.dedent(SPEC.format(c=c)))
    k = read_spec(path)
    options = DEFAULT.replace({"reductions.row_held": held})
    (launch,) = _plan(k, options).launches
    assert [h.elements for h in launch.phases.held] == [held]
    text = generate(k, options)
    accepted_on_emu(k, text)
    card = ladder(k, text, backend="emu", dataset="SMALL", seed=5)
    assert card.accepted, card.summary()


TWICE = """
void twice(int n, int m, const double x[n][m], double s[n], double y[n][m])
{
  for (int i = 0; i < n; i++) {
    double a = 0.0;
    for (int j = 0; j < m; j++)
      a += x[i][j];
    s[i] = a;
    for (int j = 0; j < m; j++)
      y[i][j] = x[i][j] - s[i];
    s[i] = s[i] * 2.0;
  }
}
"""


def test_a_row_cell_written_twice_stays_in_memory(tmp_path):
    """Only a cell its row writes once lives in registers: a second write (thread 0's, after a
    barrier) must reach the array."""
    k = c_kernel(tmp_path, TWICE, "twice")
    (launch,) = _plan(k).launches
    assert launch.phases is not None and launch.phases.cells == ()
    accepted_on_emu(k, generate(k))
