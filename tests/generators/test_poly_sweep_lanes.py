"""A sweep's orientation (poly/sweep.py, `Sweep.lanes_x`): where the lanes' loops index the
contiguous dimension of their references and the grid index does not (a per-row pass over
a[i][j] under grid index i), the lanes go on threadIdx.x and the grid index on y, so a warp
touches 32 consecutive cells of one row; where the lanes only split loops the block is
`sweeps.along` (one row of 1024 lanes: its levels re-read one row, not 16), a row sweep with a
sum keeps `sweeps.block`; symm's columns keep the grid index on x.  Read from the plan; the
changed candidates verified on emu."""
import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT

POLYBENCH = ROOT / "corpora" / "polybench"
ROW_TREE_SUMS = ROOT / "corpora" / "loops" / "idioms" / "row_tree_sums.c"
#: symm as a sweep (test_poly_generator.SWEEPS): without the update sunk out of its web
SWEEPS = DEFAULT.replace({"loops.distribute.sink_updates": False, "loops.copy_inputs": False})

#: rows j of X, each a carried loop i around a split loop and a sum over its own row's k
_ROW_SWEEP = """void k(int m, int n, double X[n][m], double Y[n][m]) {
  int i, j, k;
  double s;
  for (j = 0; j < n; j++)
    for (i = 1; i < m; i++) {
      for (k = 0; k < i; k++)
        X[j][k] = X[j][k] * 0.5 + Y[j][i];
      s = 0.0;
      for (k = 0; k < i; k++)
        s += X[j][k];
      X[j][i] = s;
    }
}
"""


#: each row relaxed T times in place: a carried loop t inside each row around two split loops (no
#: sum), the other member of the row-sweep class beside row_tree_sums's tree of halving widths
_ROW_RELAX = """void row_relax(int n, int m, int T, double a[n][m], double b[n][m]) {
  for (int i = 0; i < n; i++)
    for (int t = 0; t < T; t++) {
      for (int j = 0; j < m - 1; j++)
        b[i][j] = a[i][j] + a[i][j + 1];
      for (int j = 0; j < m - 1; j++)
        a[i][j] = 0.5 * b[i][j];
    }
}
"""


def _sweeps(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return [l for l in plan.launches if l.sweep]


def _row_sweep(tmp_path):
    p = tmp_path / "k.c"
    p.write_text(_ROW_SWEEP)
    return read_c(p)


def test_row_sweeps_put_their_lanes_on_x(tmp_path):
    """row_tree_sums (lanes split j of a[i][j]) and a row sweep with a sum: lanes_x, the block
    (lanes, indices); symm's sweep (lanes split k of C[k][j] under grid j) keeps (indices, lanes)."""
    along, block = DEFAULT.sweeps.along, DEFAULT.sweeps.block
    assert along == (1, 1024) and block == (16, 64)
    for k, (width, lanes) in ((read_c(ROW_TREE_SUMS), along), (_row_sweep(tmp_path), block)):
        (launch,) = _sweeps(k)
        assert launch.sweep.lanes_x and launch.sweep.rows is None, k.name
        assert launch.block == (lanes, width) and launch.threads == width * lanes
    (other,) = _sweeps(read_c(ROW_TREE_SUMS), DEFAULT.replace({"sweeps.along": (4, 256)}))
    assert other.sweep.lanes_x and other.block == (256, 4)
    width, lanes = block
    (symm,) = _sweeps(read_c(POLYBENCH / "linear-algebra/blas/symm/symm.c"), SWEEPS)
    assert not symm.sweep.lanes_x and symm.block == (width, lanes)
    (ludcmp,) = _sweeps(read_c(POLYBENCH / "linear-algebra/solvers/ludcmp/ludcmp.c"))
    assert not ludcmp.grid and not ludcmp.sweep.lanes_x      # one block of lanes: no grid index to place


def test_row_sweep_candidates_index_lanes_by_threadIdx_x(tmp_path):
    """The printer follows the plan: the lanes are threadIdx.x, the row threadIdx.y, the lanes'
    parts go to shared memory at the row's place; the shuffle pairs neighbouring lanes (1 thread
    apart here, `width` apart with the lanes on y), so the parts combine in the same order."""
    text = generate(read_c(ROW_TREE_SUMS))
    assert "const int i = (int)(blockIdx.x + threadIdx.y);" in text and "const int lane = threadIdx.x;" in text
    assert "<<<poly_blocks(extent, 1), dim3(1024, 1)>>>" in text and "blocks of one i x 1024 lanes" in text
    text = generate(_row_sweep(tmp_path))
    assert "for (int off = 1; off >= 1; off >>= 1)" in text and "warps_1[lane / 2][threadIdx.y] = part;" in text
    assert "double part = warps_1[0][threadIdx.y];" in text and "dim3(64, 16)" in text
    symm = generate(read_c(POLYBENCH / "linear-algebra/blas/symm/symm.c"), SWEEPS)
    assert "for (int off = 16; off >= 16; off >>= 1)" in symm and "dim3(16, 64)" in symm


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_row_sweeps_verify_on_emu(tmp_path, dataset):
    from t2c.verify.ladder import ladder
    for k in (read_c(ROW_TREE_SUMS), _row_sweep(tmp_path)):
        card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=3)
        assert card.accepted, (k.name, card.summary())


def test_a_row_relaxation_takes_one_row_a_block(tmp_path):
    """Another row sweep whose lanes only split loops (a time loop inside each row): `sweeps.along`,
    one row of 1024 lanes; the candidate gives the reference's values on the emu."""
    import numpy as np
    from t2c.verify.harness import build_candidate, run_candidate
    from t2c.verify.reference import run_reference
    src = tmp_path / "row_relax.c"
    src.write_text(_ROW_RELAX)
    k = read_c(src)
    (launch,) = _sweeps(k)
    assert launch.sweep.lanes_x and not launch.sweep.sums and launch.block == (1024, 1)
    sizes = {"n": 5, "m": 40, "T": 3}
    rng = np.random.default_rng(3)
    ref = run_reference(k, sizes, {"a": rng.uniform(-1, 1, (5, 40)), "b": np.zeros((5, 40))})
    run = run_candidate(k, build_candidate(k, generate(k), "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    for name in ("a", "b"):
        assert np.array_equal(run.outputs[name], ref.outputs[name]), name
