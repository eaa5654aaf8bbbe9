"""A warp per row for calls with many rows (reduce.warp_rows, `reductions.rows.warp_rows`): a row
reduction of several warps per row also gets NAME_warps, one warp per row, which the launch runs
when the call has at least WARP_ROWS_PER_SM rows per multiprocessor.  The class: loops of folds
along whole rows (losses, matrix-vector products) on both C corpora; the launches it leaves alone;
both kernels on the emu (2 multiprocessors: 64 rows or more run the warp kernel)."""
import pytest

from t2ctest import ROOT, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.reduce import WARP_ROWS_PER_SM
from t2c.verify.ladder import ladder

# rows of a run-time length; 8 rows at MINI (the kernel of 128 lanes on the emu), 512 at SMALL (a warp each)
ROWS = """/* t2c: size n MINI=8 SMALL=512 MEDIUM=4096 LARGE=16384 EXTRALARGE=65536 */
/* t2c: size m MINI=40 SMALL=300 MEDIUM=1000 LARGE=1000 EXTRALARGE=1000 */
void row_norms(int n, int m, const float a[n][m], float out[n])
{
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = 0; j < m; j++)
      s += a[i][j] * a[i][j];
    out[i] = sqrtf(s);
  }
}
"""


def _rows(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    return [l for l in plan.launches if l.row]


@pytest.mark.parametrize("path", ["corpora/loops/gpu/multi_margin_loss.c", "corpora/polybench/linear-algebra/kernels/atax/atax.c",
                                  "corpora/polybench/linear-algebra/blas/gesummv/gesummv.c"])
def test_a_row_reduction_of_several_warps_also_gets_a_warp_per_row(path):
    k = read_kernel(ROOT / path)
    assert any(l.row.warps for l in _rows(k))
    text = generate(k)
    name = next(l.name for l in _rows(k) if l.row.warps)
    assert f"__global__ void {name}_warps(" in text
    assert f"if (extent >= poly_warp_rows())" in text and f"{name}_warps<<<poly_blocks(extent, 8), 256>>>" in text
    warps = text.split(f"__global__ void {name}_warps(")[1].split("\n}\n")[0]
    assert "__syncthreads" not in warps and "% 32" in warps and "__shared__" not in warps
    assert f"* {WARP_ROWS_PER_SM}; }}" in text        # the helper: multiprocessors x WARP_ROWS_PER_SM


def test_the_option_and_the_forms_it_leaves_alone(tmp_path):
    k = c_kernel(tmp_path, ROWS)
    assert [l.row.warps for l in _rows(k)] == [True]
    off = DEFAULT.replace({"reductions.rows.warp_rows": False})
    assert [l.row.warps for l in _rows(k, off)] == [False] and "_warps" not in generate(k, off)
    lanes32 = DEFAULT.replace({"reductions.rows.lanes": 32})
    assert [l.row.warps for l in _rows(k, lanes32)] == [False]          # a warp per row already
    spmv = read_kernel(next(ROOT.glob("corpora/loops/*/spmv_csr.c")))     # a data row: its lanes fixed
    assert all(not l.row.warps for l in _rows(spmv))


@pytest.mark.parametrize("dataset", ["MINI", "SMALL"])
def test_both_kernels_are_accepted_on_emu(dataset, tmp_path):
    k = c_kernel(tmp_path, ROWS)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=5)
    assert card.accepted, card.summary()
