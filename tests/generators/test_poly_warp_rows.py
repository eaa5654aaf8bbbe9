"""Short rows, a warp each (rows.warp_rows, `reductions.row_warps`): a block-per-row launch
(phases.py) also gets a kernel of the same phases where each warp takes a row, 8 rows a block,
lanes striding the loops by 32, folds combined by a butterfly of shuffles, warp barriers, held
rows in each warp's slice of shared memory, lane 0 for thread 0; a call whose row loops run at
most 256 iterations runs it (tested on the host), any other the block kernel.  The plan records
on specs and corpora/loops kernels; the kernel's shape; the budget of a warp's held rows; the
emu with rows under the bound (the warp kernel) and over it (the block kernel)."""
import re

import numpy as np
import pytest

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import DEFAULT, generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.rows import WARP_HELD_BYTES
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

# two arrays of doubles held by three phases: with rows of 1024 held a block holds both (16 KB),
# and a warp's slice (WARP_HELD_BYTES) holds fewer elements of each than the bound
PAIR = """/* t2c: size n MINI=5 SMALL=40 MEDIUM=512 LARGE=4096 EXTRALARGE=8192 */
/* t2c: size m MINI=7 SMALL=200 MEDIUM=512 LARGE=1000 EXTRALARGE=1000 */
void pair(int n, int m, const double a[n][m], const double b[n][m], double out[n][m])
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < m; j++)
      s += a[i][j] * b[i][j];
    double t = 0.0;
    for (int j = 0; j < m; j++)
      t += a[i][j] - b[i][j];
    for (int j = 0; j < m; j++)
      out[i][j] = a[i][j] * s + b[i][j] * t;
  }
}
"""


def _phases(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    (launch,) = [l for l in plan.launches if l.phases]
    return launch, launch.phases


def _kernel(text: str, name: str) -> str:
    """The text of __global__ function `name` (its body up to the closing brace at column 0)."""
    start = text.index(f" {name}(")
    return text[start:text.index("\n}\n", start)]


@pytest.mark.parametrize("path, short, held", [
    ("corpora/text2cuda/angle_stats.md", "(c) <= 256", 256),
    ("corpora/text2cuda/attention.md", "(seq) <= 256", 256),
    ("corpora/loops/gpu/softmax.c", "(cols) <= 256", None),        # rows kept in registers, none held
    ("corpora/loops/idioms/flat_row_normalize.c", "(cols) <= 256", 256),
])
def test_short_rows_get_a_warp_kernel_in_the_plan(path, short, held):
    _, rp = _phases(read_kernel(ROOT / path))
    assert rp.warp is not None and (rp.warp.bound, rp.warp.warps, rp.warp.short) == (256, 8, short)
    assert (rp.warp.held if rp.held else None) == held


def test_the_warp_kernel_is_a_warp_per_row():
    k = read_kernel(ROOT / "corpora/text2cuda/angle_stats.md")
    launch, rp = _phases(k)
    text = generate(k)
    warps, block = _kernel(text, f"{launch.name}_warps"), _kernel(text, launch.name)
    assert f"for (int i = (int)blockIdx.x * 8 + poly_warp; i < b; i += (int)gridDim.x * 8)" in warps
    assert "__syncthreads" not in warps and warps.count("__syncwarp();") >= 5 and "__shfl_down_sync" not in warps
    # a butterfly in which both lanes of a pair combine the same two values in lane order
    assert warps.count("__shfl_xor_sync(0xffffffffu, ") == 3
    assert "(poly_lane & poly_o) ? fmax(poly_x, poly_part_acc_r1) : fmax(poly_part_acc_r1, poly_x);" in warps
    assert "if (poly_lane == 0) {" in warps and "threadIdx.x == 0" not in warps
    assert "int poly_rows_valid[8 * 256];" in warps and "poly_rows_valid + 256 * poly_warp;" in warps
    assert "for (j = 4 * poly_lane; j < c; j += 4 * 32)" in warps         # the 16-byte path, lanes as threads
    assert "poly_warps_" not in warps and "__syncthreads();" in block and "int poly_row_valid[4096];" in block
    launch_text = re.search(r"if \(\(c\) <= 256\).*?\n.*?<<<(.*?)>>>.*?\n\s*else\n\s*(\w+)<<<", text).groups()
    assert launch_text == ("poly_cap(poly_blocks(extent, 8), 1048576), 256", launch.name)
    assert "runs angle_stats_update_wrapped_top_peak_avg_mean_warps instead: a warp per row" in text.splitlines()[6]


def test_a_box_of_rows_puts_its_x_rows_on_warps():
    text = generate(read_kernel(ROOT / "corpora/text2cuda/attention.md"))
    warps = _kernel(text, "attention_update_mx_den_warps")
    assert "for (int h = (int)blockIdx.y; h < nh; h += (int)gridDim.y)" in warps
    assert "for (int i = (int)blockIdx.x * 8 + poly_warp; i < seq; i += (int)gridDim.x * 8) {" in warps
    assert "attention_update_mx_den_warps<<<dim3(poly_cap(poly_blocks(extent_x, 8), 1048576), extent_y < 65535" in text


def test_with_kept_rows_three_kernels_are_chosen_in_order():
    text = generate(read_kernel(ROOT / "corpora/loops/gpu/softmax.c"))
    assert re.search(r"if \(\(cols\) <= 256\).*\n\s*softmax_update_y_warps<<<.*\n\s*else if \(\(cols\) <= 1024\).*\n"
                     r"\s*softmax_update_y<<<.*, 128>>>.*\n\s*else\n\s*softmax_update_y_rows<<<", text)
    warps = _kernel(text, "softmax_update_y_warps")
    assert "double poly_r_x[8];" in warps and "j = poly_lane + poly_u * 32;" in warps   # the registers, a lane's


def test_off_there_is_no_warp_kernel():
    k = read_kernel(ROOT / "corpora/text2cuda/angle_stats.md")
    options = DEFAULT.replace({"reductions.row_warps": None})
    assert _phases(k, options)[1].warp is None
    assert "_warps(" not in generate(k, options) and "poly_lane" not in generate(k, options)


def test_a_warps_held_rows_keep_within_its_budget(tmp_path):
    options = DEFAULT.replace({"reductions.row_held": 1024})
    _, rp = _phases(c_kernel(tmp_path, PAIR, "pair"), options)
    assert sorted(h.array for h in rp.held) == ["a", "b"] and all(h.elements == 1024 for h in rp.held)
    assert rp.warp.held == WARP_HELD_BYTES // 16 == 128          # two doubles a column
    _, rp = _phases(c_kernel(tmp_path, PAIR, "pair"))
    assert [h.array for h in rp.held] == ["a"] and rp.warp.held == 256


@pytest.mark.parametrize("path", ["corpora/text2cuda/angle_stats.md", "corpora/loops/idioms/flat_row_normalize.c"])
def test_the_kernels_are_accepted_on_emu(path):
    k = read_kernel(ROOT / path)
    accepted_on_emu(k, generate(k))


@pytest.mark.parametrize("c", [5, 64, 300], ids=["rows of 5: the warp kernel", "rows of 64: the warp kernel",
                                                 "rows of 300: the block kernel"])
def test_angle_stats_matches_the_reference_on_both_sides_of_the_bound(c):
    """Maxima and counts are exact, the sums regrouped as any fold of the block regroups them."""
    k = read_kernel(ROOT / "corpora/text2cuda/angle_stats.md")
    sizes = {"b": 19, "c": c}
    ref = run_reference(k, sizes, synthesize(k, sizes, 5))
    run = run_candidate(k, build_candidate(k, generate(k), "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    for name in ("wrapped", "peak", "mean"):
        assert np.allclose(run.outputs[name], ref.outputs[name], rtol=1e-5, atol=1e-6), name
    assert np.array_equal(run.outputs["peak"], ref.outputs["peak"])


@pytest.mark.parametrize("m", [7, 200, 300], ids=["a row within a warp's held part", "a row past a warp's held part",
                                                  "a row past the bound"])
def test_a_warp_rereads_the_tail_past_its_held_part(m, tmp_path):
    k = c_kernel(tmp_path, PAIR, "pair")
    options = DEFAULT.replace({"reductions.row_held": 1024})
    sizes = {"n": 11, "m": m}
    ref = run_reference(k, sizes, synthesize(k, sizes, 9))
    run = run_candidate(k, build_candidate(k, generate(k, options), "emu"), sizes, ref.inputs, mode="device", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert np.allclose(run.outputs["out"], ref.outputs["out"], rtol=1e-12, atol=1e-12)
