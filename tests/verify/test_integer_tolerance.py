"""Integer outputs rounded from floating point may differ by one unit (issue 36); integer
outputs of integer arithmetic stay exact; a spec may declare the bound itself."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from t2c.errors import UserError
from t2c.frontends.c import read_c, reference_file
from t2c.frontends.prose import read_spec
from t2c.verify.compare import compare
from t2c.verify.device import emu_available

ROOT = Path(__file__).resolve().parents[2]
SPEC = """\
---
name: gain_u8
sizes:
  n: {MINI: 61, SMALL: 1000}
arrays:
  x: float[n] in
  q: int[n] in
  img: IMG
  cnt: int[n] out
domains:
  x: uniform(0, 300)
---
A gain on 8-bit pixels (the float result converted to uint8), and an integer count.

```t2c
img[i] = min(x[i] * 0.7 + 0.5, 255.0)
cnt[i] = q[i] * 3 + 1
```
"""
CANDIDATE = r"""
#include <cuda_runtime.h>
__global__ void k(int n, const float *x, unsigned char *img, const int *q, int *cnt)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  img[i] = IMG_VALUE;
  cnt[i] = CNT_VALUE;
}
extern "C" void gain_u8_device(int n, float *x, int *q, unsigned char *img, int *cnt)
{
  k<<<(n + 127) / 128, 128>>>(n, x, img, q, cnt);
}
extern "C" void gain_u8(int n, float *x, int *q, unsigned char *img, int *cnt)
{
  float *dx; int *dq, *dc; unsigned char *di;
  cudaMalloc(&dx, n * sizeof(float)); cudaMalloc(&dq, n * sizeof(int));
  cudaMalloc(&di, n); cudaMalloc(&dc, n * sizeof(int));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dq, q, n * sizeof(int), cudaMemcpyHostToDevice);
  gain_u8_device(n, dx, dq, di, dc);
  cudaMemcpy(img, di, n, cudaMemcpyDeviceToHost);
  cudaMemcpy(cnt, dc, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(dx); cudaFree(dq); cudaFree(di); cudaFree(dc);
}
"""
# the reference truncates; rounding to nearest instead differs by one unit on about half the pixels
ROUNDED = "(unsigned char)rintf(fminf(x[i] * 0.7f + 0.5f, 255.0f))"
TRUNCATED = "(unsigned char)fminf(x[i] * 0.7f + 0.5f, 255.0f)"
COUNT = "q[i] * 3 + 1"


def kernel(tmp_path, img="uint8[n] out"):
    path = tmp_path / "gain_u8.md"
    path.write_text(SPEC.replace("IMG", img))
    return read_spec(path)


def test_an_output_rounded_from_float_gets_one_unit_and_integer_arithmetic_none(tmp_path):
    k = kernel(tmp_path)
    assert k.tolerances == (("img", 1),)
    assert read_c(_written(tmp_path, reference_file(k))).tolerances == k.tolerances     # round trip
    argmax = read_spec(ROOT / "corpora/text2cuda/argmax_rows.md")     # chosen by comparing floats
    assert argmax.tolerances == ()


def test_a_spec_declares_the_bound_of_an_integer_output(tmp_path):
    assert kernel(tmp_path, "{type: uint8, shape: [n], intent: out, tolerance: 2}").tolerances == (("img", 2),)
    assert kernel(tmp_path, "{type: uint8, shape: [n], intent: out, tolerance: 0}").tolerances == (("img", 0),)
    with pytest.raises(UserError, match="is for integer outputs"):
        kernel(tmp_path, "{type: float, shape: [n], intent: out, tolerance: 1}")


def test_one_unit_passes_two_fail_and_integer_arithmetic_stays_exact(tmp_path):
    k = kernel(tmp_path)
    ref = {"img": np.array([137, 10, 255], np.uint8), "cnt": np.array([4, 7, 1], np.int32)}
    got = lambda img, cnt: {"img": np.array(img, np.uint8), "cnt": np.array(cnt, np.int32)}
    assert compare(k, ref, got([138, 9, 254], [4, 7, 1]), {"n": 3}).ok
    two = compare(k, ref, got([139, 10, 255], [4, 7, 1]), {"n": 3})
    assert not two.ok and "img[0] = 139, expected 137" in two.describe() and "bound 1.00e+00" in two.describe()
    assert not compare(k, ref, got([137, 10, 255], [5, 7, 1]), {"n": 3}).ok


@pytest.mark.skipif(not emu_available(), reason="needs the emu backend")
def test_the_ladder_accepts_one_unit_of_rounding_and_rejects_more(tmp_path):
    from t2c.verify.ladder import ladder
    k = kernel(tmp_path)

    def verdict(img, cnt):
        cu = tmp_path / "gain_u8.cu"
        cu.write_text(CANDIDATE.replace("IMG_VALUE", img).replace("CNT_VALUE", cnt))
        return ladder(k, cu, backend="emu", seed=7)
    ev = verdict(ROUNDED, COUNT)
    assert ev.accepted, ev.render()
    assert ev.tolerance["integers"] == "exact, except (units): img ±1"
    ev = verdict(f"(unsigned char)({TRUNCATED} + 2)", COUNT)
    assert not ev.accepted and ev.reason == "output mismatch" and "img[" in ev.feedback
    ev = verdict(TRUNCATED, f"{COUNT} + (i == 0)")
    assert not ev.accepted and ev.reason == "output mismatch" and "cnt[0]" in ev.feedback


def _written(tmp_path, text):
    path = tmp_path / "gain_u8.c"
    path.write_text(text)
    return path


AMPLIFIED = """\
---
name: amp
sizes:
  n: {MINI: 20}
  m: {MINI: 7}
arrays:
  x: float[n, m] in
  q: int[n, m] out
  r: int[n, m] out
  s: int[n] out
  t: int[] out
  tri: int[n] out
  c: int[n] out
domains:
  x: uniform(0, 100)
---
Rounded values carried on by integer arithmetic.

```t2c
q[i, j] = int(x[i, j] * 0.7 + 0.5)
r[i, j] = q[i, j] * 3 + 2
s[i] = sum(j: q[i, j])
t = sum(i, j: int(x[i, j] * 0.3))
tri[i] = sum(k <= i: q[k, 0])
c[i] = sum(j: where(x[i, j] > 50.0, 1, 0))
```
"""


def test_integer_arithmetic_carries_the_units_on(tmp_path):
    # a sum of m values each one unit off is m units off: one unit would reject a correct sum
    path = tmp_path / "amp.md"
    path.write_text(AMPLIFIED)
    k = read_spec(path)
    sizes = {"n": 20, "m": 7}
    assert {n: k.units(n, sizes) for n in ("q", "r", "s", "t", "tri", "c")} == \
        {"q": 1, "r": 3, "s": 7, "t": 140, "tri": 20, "c": 0}
    assert read_c(_written(tmp_path, reference_file(k))).tolerances == k.tolerances     # round trip
    ref = {x.name: np.zeros((20, 7) if x.name in "qr" else () if x.name == "t" else 20, np.int32)
           for x in k.outputs}
    off = lambda name, by: {**ref, name: ref[name] + np.int32(by)}
    assert compare(k, ref, off("s", 7), sizes).ok
    assert not compare(k, ref, off("s", 8), sizes).ok
    assert compare(k, ref, off("s", 3), {"n": 20, "m": 3}).ok and not compare(k, ref, off("s", 4), {"n": 20, "m": 3}).ok
    assert not compare(k, ref, off("c", 1), sizes).ok
