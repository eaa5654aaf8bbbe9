"""16-byte accesses of the row-phase form (poly/rows.py `wide_phases`, phases.py): on a row
whose extent is a multiple of 4 and whose pointers are 16-byte aligned at its start, the loader
of a held row of 4-byte elements takes 4 consecutive elements a thread by one 16-byte load, and
a map phase stores each `A[row, j] = E` by 16 bytes; any other row runs the scalar loop.  Read
from the final plan, printed with both paths, accepted on the emu ladder at MINI (11 to 13
columns: the scalar path) and SMALL (multiples of 4: the 16-byte path), and driven through
the drop-in with offset pointers (the scalar path, no misaligned access)."""
import pytest

from t2ctest import ROOT
from t2c.analysis import analyze
from t2c.frontends import read_kernel
from t2c.generators.poly import generate
from t2c.generators.poly.lower import final_plan
from t2c.generators.poly.options import DEFAULT
from t2c.generators.poly.rows import Wide
from t2c.verify.ladder import ladder

# path -> the launch's Wide records: the loader fold (its held row loaded by 16 bytes) and the map
CLASS = {
    "corpora/text2cuda/softmax_let.md": (Wide(1, "c", ("X",)), Wide(6, "c", ("X",), (("S6", "Y"),))),
    "corpora/text2cuda/layer_norm_let.md": (Wide(1, "c", ("X",)), Wide(6, "c", ("X",), (("S6", "Y"),))),
    "corpora/loops/idioms/flat_row_normalize.c": (Wide(1, "cols", ("in",)), Wide(3, "cols", ("in",), (("S3", "out"),))),
}


def _launch(k, options=DEFAULT):
    _, plan = final_plan(analyze(k), options)
    (launch,) = plan.launches
    return launch


@pytest.mark.parametrize("path", list(CLASS))
def test_the_loader_and_the_map_take_16_byte_accesses(path):
    assert _launch(read_kernel(ROOT / path)).phases.wide == CLASS[path]


@pytest.mark.parametrize("path, options", [
    ("corpora/loops/gpu/layernorm.c", DEFAULT),                                  # 8-byte elements
    ("corpora/text2cuda/softmax_let.md", DEFAULT.replace({"reductions.row_held": 7})),   # 7 held: no whole chunks
])
def test_rows_of_wide_elements_or_odd_held_parts_load_one_element_a_thread(path, options):
    wide = _launch(read_kernel(ROOT / path), options).phases.wide
    assert all(not w.loads for w in wide), wide


@pytest.mark.parametrize("path", list(CLASS))
def test_both_paths_are_printed(path):
    text = generate(read_kernel(ROOT / path))
    v = {"c": "j", "cols": "c"}[CLASS[path][0].bound]          # the loop's variable
    assert f"for ({v} = 4 * (int)threadIdx.x;" in text and f"for ({v} = (int)threadIdx.x;" in text
    assert f"for ({v} = 4 * poly_lane;" in text and f"for ({v} = poly_lane;" in text      # the warp kernel's
    assert text.count("*(const float4 *)&") == 2 * 3 and "*(float4 *)&poly_row_" in text  # 3 a kernel
    assert text.count("% 4 == 0 && ((unsigned long long)&") == 2 * 2


@pytest.mark.parametrize("path", list(CLASS))
@pytest.mark.parametrize("dataset", ["MINI", pytest.param("SMALL", marks=pytest.mark.full)])
def test_both_paths_are_accepted_on_emu(path, dataset):
    k = read_kernel(ROOT / path)
    card = ladder(k, generate(k), backend="emu", dataset=dataset, seed=5)
    assert card.accepted, card.summary()


# A drop-in caller's pointers, offset by one element, and a row of odd extent: the scalar path.
DRIVER = r"""
#include <stdio.h>
#include <math.h>
static int check(int b, int c, int dx, int dy)
{
  const int n = b * c + 1;
  float h[n], y[n], *X, *Y;
  for (int i = 0; i < n; i++)
    h[i] = (float)((i * 37) % 23) / 7.0f - 1.5f;
  cudaMalloc((void **)&X, n * sizeof(float));
  cudaMalloc((void **)&Y, n * sizeof(float));
  cudaMemcpy(X, h, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(Y, h, n * sizeof(float), cudaMemcpyHostToDevice);
  CALL;
  cudaMemcpy(y, Y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int r = 0; r < b; r++) {
    const float *x = h + dx + r * c;
    REFERENCE
    for (int j = 0; j < c; j++)
      bad += fabs(y[dy + r * c + j] - want(j)) > 1e-5 * (1.0 + fabs(want(j)));
  }
  cudaFree(X);
  cudaFree(Y);
  return bad;
}
int main(void)
{
  printf("%d %d %d %d\n", check(3, 64, 1, 1), check(3, 64, 0, 1), check(3, 11, 0, 0), check(3, 64, 0, 0));
  return 0;
}
"""
DROP_INS = {
    "corpora/text2cuda/softmax_let.md": (
        "softmax_let_device(b, c, X + dx, Y + dy)",
        "double mx = x[0], den = 0.0; for (int j = 1; j < c; j++) mx = fmax(mx, x[j]);"
        " for (int j = 0; j < c; j++) den += exp(x[j] - mx);\n#define want(j) (exp(x[j] - mx) / den)"),
    "corpora/loops/idioms/flat_row_normalize.c": (
        "flat_row_normalize_device(b, c, X + dx, Y + dy)",
        "double ss = 0.0; for (int j = 0; j < c; j++) ss += (double)x[j] * x[j];"
        "\n#define want(j) (x[j] / sqrt(ss + 1e-12))"),
}


@pytest.mark.parametrize("path", list(DROP_INS))
def test_offset_pointers_and_odd_rows_take_the_scalar_path(path, tmp_path):
    """Pointers one element past an aligned one (both, or Y only: the loader's 16-byte path, the
    map's scalar one), a row of 11 elements, and aligned rows of 64: all exact, no misaligned
    access (the sanitized emu stops a misaligned 16-byte load as a GPU does)."""
    from t2c.runtime.emu import emulate
    call, reference = DROP_INS[path]
    cu = tmp_path / "driven.cu"
    cu.write_text(generate(read_kernel(ROOT / path)) + DRIVER.replace("CALL", call).replace("REFERENCE", reference))
    out = emulate(cu, seeds=1, sanitize=True, timeout=120)
    assert out.status == "ok" and out.stdout == "0 0 0 0\n", (out.status, out.message, out.stdout)
