// Bytes in flight for a pointwise pass (relu over 16 Mi floats, 128 MiB of traffic) after the
// bench rung's L2 eviction, timed with the start queued: one element per thread (poly's grid
// form) against more work per thread, coalesced, and the device copy as the yardstick.
// Prints the median and p20-p80 in microseconds.  A measurement probe, not a test.
//   nvcc -O3 -arch=sm_90 -o /tmp/ilp_probe scripts/ilp_probe.cu && /tmp/ilp_probe
#include <cstdio>
#include <vector>
#include <algorithm>

__global__ void one(int n, const float *x, float *y)            // 1 per thread
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
template <int U>
__global__ void strided(int n, const float *__restrict__ x, float *__restrict__ y)   // U per thread, blockDim apart
{
  int base = blockIdx.x * blockDim.x * U + threadIdx.x;
  float v[U];
#pragma unroll
  for (int u = 0; u < U; u++) { int i = base + u * blockDim.x; v[u] = i < n ? x[i] : 0.0f; }
#pragma unroll
  for (int u = 0; u < U; u++) { int i = base + u * blockDim.x; if (i < n) y[i] = fmaxf(v[u], 0.0f); }
}
template <int U>
__global__ void strided_plain(int n, const float *x, float *y)   // U per thread, no restrict, no hoisting
{
  int base = blockIdx.x * blockDim.x * U + threadIdx.x;
#pragma unroll
  for (int u = 0; u < U; u++) { int i = base + u * blockDim.x; if (i < n) y[i] = fmaxf(x[i], 0.0f); }
}
__global__ void restrict_one(int n, const float *__restrict__ x, float *__restrict__ y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
__global__ void vec4(int n, const float4 *x, float4 *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4) { float4 a = x[i]; y[i] = make_float4(fmaxf(a.x, 0), fmaxf(a.y, 0), fmaxf(a.z, 0), fmaxf(a.w, 0)); }
}

int main()
{
  const int n = 1 << 24;
  float *x, *y; void *flush;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMalloc(&flush, (size_t)256 << 20);
  cudaMemset(x, 1, n * 4);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int w = 0; w < 12; w++) {
    std::vector<float> t;
    const char *name = "";
    for (int r = 0; r < 32; r++) {
      cudaMemset(flush, r, (size_t)256 << 20);
      cudaEventRecord(e0);
      switch (w) {
      case 0: name = "one/thread, 256"; one<<<(n + 255) / 256, 256>>>(n, x, y); break;
      case 1: name = "one/thread, 128"; one<<<(n + 127) / 128, 128>>>(n, x, y); break;
      case 2: name = "one/thread, 1024"; one<<<(n + 1023) / 1024, 1024>>>(n, x, y); break;
      case 3: name = "restrict one, 256"; restrict_one<<<(n + 255) / 256, 256>>>(n, x, y); break;
      case 4: name = "2/thread hoisted, 256"; strided<2><<<(n + 511) / 512, 256>>>(n, x, y); break;
      case 5: name = "4/thread hoisted, 256"; strided<4><<<(n + 1023) / 1024, 256>>>(n, x, y); break;
      case 6: name = "8/thread hoisted, 256"; strided<8><<<(n + 2047) / 2048, 256>>>(n, x, y); break;
      case 7: name = "4/thread plain, 256"; strided_plain<4><<<(n + 1023) / 1024, 256>>>(n, x, y); break;
      case 8: name = "float4, 256"; vec4<<<(n / 4 + 255) / 256, 256>>>(n, (const float4 *)x, (float4 *)y); break;
      case 9: name = "float4, 128"; vec4<<<(n / 4 + 127) / 128, 128>>>(n, (const float4 *)x, (float4 *)y); break;
      case 10: name = "device copy"; cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); break;
      case 11: name = "one/thread, 256 again"; one<<<(n + 255) / 256, 256>>>(n, x, y); break;
      }
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (r >= 2) t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end()); size_t k = t.size();
    printf("%-24s median %7.2f us  p20-p80 %7.2f-%7.2f  %5.0f GB/s\n", name, t[k / 2], t[k / 5], t[4 * k / 5],
           2.0 * n * 4 / (t[k / 2] * 1e3));
  }
  return cudaGetLastError() != cudaSuccess;
}
