"""cuda_fp16.h and cuda_bf16.h under emu: conversions and arithmetic as a GPU rounds them.

A CUDA program converts, in kernels, float values of every kind (random magnitudes across
both types' ranges, exact ties between neighbours, subnormals, overflow, infinities, NaN) to
__half and __nv_bfloat16, widens all 65536 bit patterns of each back to float, and adds,
multiplies, divides and compares half pairs.  float16 is checked against numpy's float16
(round to nearest even; its arithmetic rounds the float32 result once), bfloat16 against a
rounding written here from the values alone (the nearer neighbour, ties to the even one).
"""
from __future__ import annotations

import numpy as np

from t2ctest import bfloat16_nearest

from .conftest import needs_gxx

pytestmark = needs_gxx

PROGRAM = r"""
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void narrow(int n, const float *f, unsigned short *h, unsigned short *b)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    h[i] = __half_as_ushort(__float2half_rn(f[i]));
    b[i] = __bfloat16_as_ushort(__float2bfloat16_rn(f[i]));
  }
}

__global__ void widen(float *hf, float *bf)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) {
    hf[i] = __half2float(__ushort_as_half((unsigned short)i));
    bf[i] = __bfloat162float(__ushort_as_bfloat16((unsigned short)i));
  }
}

__global__ void arith(int n, const unsigned short *a, const unsigned short *b, unsigned short *out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]);
    out[4 * i] = __half_as_ushort(__hadd(x, y));
    out[4 * i + 1] = __half_as_ushort(x * y);
    out[4 * i + 2] = __half_as_ushort(x / y);
    out[4 * i + 3] = x < y;
  }
}

static unsigned int lcg(unsigned int *s) { *s = *s * 1664525u + 1013904223u; return *s >> 8; }

static float of_bits(unsigned int u) { float f; memcpy(&f, &u, 4); return f; }

int main()
{
  const int n = 12000, m = 4000;
  static float f[n], hf[65536], bf[65536];
  static unsigned short h[n], b[n], a1[m], a2[m], out[4 * m];
  unsigned int s = 12345;
  const unsigned int special[] = {0u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x477fe000u,
      0x477fefffu, 0x477ff000u, 0x33800000u, 0x33000000u, 0x33400000u, 0x387fc000u, 0x00000001u,
      0x7f7fffffu, 0x7f7f8000u, 0x80800000u};
  int k = 0;
  for (unsigned int u : special) f[k++] = of_bits(u);
  while (k < n) {
    unsigned int r = lcg(&s), kind = k % 4;
    if (kind == 0)        /* magnitudes 2^-30 .. 2^17: half subnormals to overflow */
      f[k++] = of_bits((r & 0x80000000u) | ((97u + r % 48u) << 23) | (lcg(&s) & 0x7fffffu));
    else if (kind == 1) { /* a tie halfway between two finite halves */
      unsigned short x = (unsigned short)(r & 0x7bfe);
      f[k++] = 0.5f * (__half2float(__ushort_as_half(x)) + __half2float(__ushort_as_half(x + 1)));
    } else if (kind == 2) /* a tie halfway between two bfloat16 values */
      f[k++] = of_bits(((r & 0x7f7f) << 16) | 0x8000u);
    else                  /* any bit pattern */
      f[k++] = of_bits(lcg(&s) ^ (r << 9));
  }
  for (int i = 0; i < m; i++) { a1[i] = lcg(&s) & 0xffff; a2[i] = lcg(&s) & 0xffff; }

  float *df, *dhf, *dbf; unsigned short *dh, *db, *da1, *da2, *dout;
  cudaMalloc(&df, sizeof f); cudaMalloc(&dh, sizeof h); cudaMalloc(&db, sizeof b);
  cudaMalloc(&dhf, sizeof hf); cudaMalloc(&dbf, sizeof bf);
  cudaMalloc(&da1, sizeof a1); cudaMalloc(&da2, sizeof a2); cudaMalloc(&dout, sizeof out);
  cudaMemcpy(df, f, sizeof f, cudaMemcpyHostToDevice);
  cudaMemcpy(da1, a1, sizeof a1, cudaMemcpyHostToDevice);
  cudaMemcpy(da2, a2, sizeof a2, cudaMemcpyHostToDevice);
  narrow<<<(n + 255) / 256, 256>>>(n, df, dh, db);
  widen<<<256, 256>>>(dhf, dbf);
  arith<<<(m + 255) / 256, 256>>>(m, da1, da2, dout);
  cudaMemcpy(h, dh, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost);
  cudaMemcpy(hf, dhf, sizeof hf, cudaMemcpyDeviceToHost);
  cudaMemcpy(bf, dbf, sizeof bf, cudaMemcpyDeviceToHost);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  unsigned int u;
  for (int i = 0; i < n; i++) { memcpy(&u, &f[i], 4); printf("n %08x %04x %04x\n", u, h[i], b[i]); }
  for (int i = 0; i < 65536; i++) {
    unsigned int v; memcpy(&u, &hf[i], 4); memcpy(&v, &bf[i], 4); printf("w %08x %08x\n", u, v);
  }
  for (int i = 0; i < m; i++)
    printf("a %04x %04x %04x %04x %04x %d\n", a1[i], a2[i], out[4 * i], out[4 * i + 1], out[4 * i + 2], out[4 * i + 3]);
  return 0;
}
"""


def _rows(stdout, tag):
    return np.array([[int(w, 16) for w in line.split()[1:]] for line in stdout.splitlines()
                     if line.startswith(tag + " ")], dtype=np.uint64)


def test_conversions_and_arithmetic_round_as_the_gpu(run_cu):
    result = run_cu(PROGRAM, "halfs.cu")
    assert result.ok, result.message + result.stderr[-2000:]
    narrow = _rows(result.stdout, "n")
    f = narrow[:, 0].astype(np.uint32).view(np.float32)
    h, b = narrow[:, 1].astype(np.uint16), narrow[:, 2].astype(np.uint16)
    nan = np.isnan(f)
    assert nan.any() and np.isinf(f).any() and (np.abs(f[~nan]) < 2.0 ** -24).any()
    with np.errstate(over="ignore"):
        want_h = f.astype(np.float16)
    assert np.array_equal(h[~nan], want_h[~nan].view(np.uint16))
    assert np.all(np.isnan(h.view(np.float16)[nan]))
    finite = np.isfinite(f)
    assert np.array_equal(b[finite], bfloat16_nearest(f[finite]))
    assert np.all(b[nan] == 0x7FFF) and np.all(b[np.isinf(f)] == (f[np.isinf(f)] > 0) * 0x7F80 + (f[np.isinf(f)] < 0) * 0xFF80)

    widened = _rows(result.stdout, "w").astype(np.uint32)
    assert len(widened) == 65536
    every = np.arange(65536, dtype=np.uint16)
    want = every.view(np.float16).astype(np.float32)
    got_h = widened[:, 0].view(np.float32)
    assert np.array_equal(np.isnan(got_h), np.isnan(want))
    assert np.array_equal(got_h[~np.isnan(want)].view(np.uint32), want[~np.isnan(want)].view(np.uint32))
    assert np.array_equal(widened[:, 1], every.astype(np.uint32) << 16)

    ar = _rows(result.stdout, "a")
    x, y = ar[:, 0].astype(np.uint16).view(np.float16), ar[:, 1].astype(np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        for col, want in ((2, x + y), (3, x * y), (4, x / y)):
            got = ar[:, col].astype(np.uint16).view(np.float16)
            same = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
            assert same.all(), col
        assert np.array_equal(ar[:, 5].astype(bool), x < y)
