// What the matrix probes share (scripts/onepass_probe.cu, scripts/bicg_probe.cu): one read of a
// matrix summed (the floor), the bands' column partials added in band order, the median, and the
// 256 MiB buffer whose fill evicts L2 before every timed launch sequence (as the bench rung does).
#pragma once
#include <algorithm>
#include <vector>

__global__ void floor_sum(size_t count, const double *A, double *out) {
  double p[4] = {};
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
  size_t k = t;
  for (; k + 3 * stride < count; k += 4 * stride)
#pragma unroll
    for (int u = 0; u < 4; u++) p[u] += A[k + u * stride];
  for (; k < count; k += stride) p[0] += A[k];
  double s = p[0] + p[1] + p[2] + p[3];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) out[t / 32] = s;
}

// Partials P[band][j] of every band, in band order: 16 columns x L lanes, lane 0 adds in order.
template <int L>
__global__ void finish_lanes(int bands, int n, const double *P, double *y) {
  int j = blockIdx.x * 16 + threadIdx.x, lane = threadIdx.y;
  __shared__ double parts[L][16];
  double p = 0;
  if (j < n)
    for (int b = lane; b < bands; b += L) p += P[(size_t)b * n + j];
  parts[lane][threadIdx.x] = p;
  __syncthreads();
  if (j < n && lane == 0) {
    for (int o = 1; o < L; o++) p += parts[o][threadIdx.x];
    y[j] = p;
  }
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static double *g_flush;
static const size_t g_fl = 256u << 20;

// The median of 20 timed calls of f (after 5 untimed), each after a fill of the 256 MiB g_flush
// (allocated here on first use) that evicts L2, as the bench rung does.
template <class F> float time_it(F f)
{
  if (!g_flush) cudaMalloc(&g_flush, g_fl);
  std::vector<float> ms;
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  for (int r = 0; r < 25; r++) {
    cudaMemset(g_flush, r, g_fl);
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float t; cudaEventElapsedTime(&t, a, b);
    if (r >= 5) ms.push_back(t);
  }
  return median(ms);
}
