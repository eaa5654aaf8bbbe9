// 16-bit elementwise: scalar loads blockDim apart (t2c today, coarsen 4 or 8) vs 128-bit vector loads.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdio.h>
#include <string.h>
#include <algorithm>
#include <vector>
template <int C> __global__ void strided(int n, float a, const __half *__restrict__ x, __half *__restrict__ y) {
  const int px = blockIdx.x * blockDim.x * C + threadIdx.x;
  if (px + (C - 1) * (int)blockDim.x < n) {
    __half v0[C], v1[C];
#pragma unroll
    for (int u = 0; u < C; u++) { int i = px + u * blockDim.x; v0[u] = y[i]; v1[u] = x[i]; }
#pragma unroll
    for (int u = 0; u < C; u++) { int i = px + u * blockDim.x; y[i] = __float2half_rn(a * __half2float(v1[u]) + __half2float(v0[u])); }
  } else for (int u = 0; u < C; u++) { int i = px + u * blockDim.x; if (i < n) y[i] = __float2half_rn(a * __half2float(x[i]) + __half2float(y[i])); }
}
template <int C> __global__ void vec(int n, float a, const __half *__restrict__ x, __half *__restrict__ y) {
  const int p0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  if (p0 + C <= n) {
    __half v0[C], v1[C], w[C];
#pragma unroll
    for (int b = 0; b < C; b += 8) { uint4 t = *(const uint4 *)(y + p0 + b); memcpy(v0 + b, &t, 16); t = *(const uint4 *)(x + p0 + b); memcpy(v1 + b, &t, 16); }
#pragma unroll
    for (int u = 0; u < C; u++) w[u] = __float2half_rn(a * __half2float(v1[u]) + __half2float(v0[u]));
#pragma unroll
    for (int b = 0; b < C; b += 8) { uint4 t; memcpy(&t, w + b, 16); *(uint4 *)(y + p0 + b) = t; }
  } else for (int i = p0; i < n; i++) y[i] = __float2half_rn(a * __half2float(x[i]) + __half2float(y[i]));
}
__global__ void gelu_strided(int n, const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y) {
  const int C = 8; const int px = blockIdx.x * blockDim.x * C + threadIdx.x;
  if (px + (C - 1) * (int)blockDim.x < n) {
    __nv_bfloat16 v[C];
#pragma unroll
    for (int u = 0; u < C; u++) v[u] = x[px + u * blockDim.x];
#pragma unroll
    for (int u = 0; u < C; u++) { float f = __bfloat162float(v[u]); y[px + u * blockDim.x] = __float2bfloat16_rn(0.5f * f * (1.0f + erff(f * 0.70710678f))); }
  }
}
__global__ void gelu_vec(int n, const __nv_bfloat16 *__restrict__ x, __nv_bfloat16 *__restrict__ y) {
  const int C = 8; const int p0 = (blockIdx.x * blockDim.x + threadIdx.x) * C;
  if (p0 + C <= n) {
    __nv_bfloat16 v[C], w[C]; uint4 t = *(const uint4 *)(x + p0); memcpy(v, &t, 16);
#pragma unroll
    for (int u = 0; u < C; u++) { float f = __bfloat162float(v[u]); w[u] = __float2bfloat16_rn(0.5f * f * (1.0f + erff(f * 0.70710678f))); }
    memcpy(&t, w, 16); *(uint4 *)(y + p0) = t;
  }
}
#include "probe_common.cuh"
int main() {
  const int n = 16777216; __half *x, *y; __nv_bfloat16 *bx, *by;
  cudaMalloc(&x, 2L * n); cudaMalloc(&y, 2L * n); cudaMalloc(&bx, 2L * n); cudaMalloc(&by, 2L * n);
  cudaMemset(x, 0, 2L * n); cudaMemset(y, 0, 2L * n); cudaMemset(bx, 0, 2L * n);
  printf("axpy fp16 n=%d (64 MiB moved)\n", n);
  printf("  strided C=4 (t2c narrow off) %.4f ms\n", time_it([&] { strided<4><<<(n + 1023) / 1024, 256>>>(n, 2.f, x, y); }));
  printf("  strided C=8 (t2c narrow on)  %.4f ms\n", time_it([&] { strided<8><<<(n + 2047) / 2048, 256>>>(n, 2.f, x, y); }));
  printf("  vector 8 halves (16 B)       %.4f ms\n", time_it([&] { vec<8><<<(n / 8 + 255) / 256, 256>>>(n, 2.f, x, y); }));
  printf("  vector 16 halves (2 x 16 B)  %.4f ms\n", time_it([&] { vec<16><<<(n / 16 + 255) / 256, 256>>>(n, 2.f, x, y); }));
  printf("  vector 8, 128 threads        %.4f ms\n", time_it([&] { vec<8><<<(n / 8 + 127) / 128, 128>>>(n, 2.f, x, y); }));
  printf("gelu bf16\n");
  printf("  strided C=8 %.4f ms\n", time_it([&] { gelu_strided<<<(n + 2047) / 2048, 256>>>(n, bx, by); }));
  printf("  vector 8    %.4f ms\n", time_it([&] { gelu_vec<<<(n / 8 + 255) / 256, 256>>>(n, bx, by); }));
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
