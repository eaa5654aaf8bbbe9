// What limits a cross-entropy over rows of 1000 doubles (corpora/loops/gpu/cross_entropy.c at LARGE:
// 16384 rows, 43% of the copy bandwidth in reports/h100-loops-large-6): the generated form (a block
// of 256 threads per row: max, then a sum of exp, then thread 0 gathers x[i][label[i]]) against
// variants of it, and the floor of one read of x. Medians of 20 calls after an L2 eviction, as the
// bench rung does. A probe, not a test:
//   nvcc -O3 -arch=sm_90 -o /tmp/xent_probe scripts/xent_probe.cu && /tmp/xent_probe
#include <cstdio>
#include <cuda_runtime.h>
#include <math.h>
#include "probe_common.cuh"

// T threads per row; EARLY: the label's gather issued at the row's start (a register until the end)
template <int T, bool EARLY>
__global__ void __launch_bounds__(T) blocks(int n, int c, const double *x, const int *label, double *loss)
{
  __shared__ double wm[T / 32], ws[T / 32];
  for (int i = (int)blockIdx.x; i < n; i += (int)gridDim.x) {
    double picked = 0;
    if (EARLY && threadIdx.x == 0)
      picked = x[(size_t)i * c + label[i]];
    double m = x[(size_t)i * c], pm = -INFINITY;
    for (int j = 1 + (int)threadIdx.x; j < c; j += T) pm = fmax(pm, x[(size_t)i * c + j]);
    for (int o = 16; o > 0; o >>= 1) pm = fmax(pm, __shfl_down_sync(0xffffffffu, pm, o));
    if (threadIdx.x % 32 == 0) wm[threadIdx.x / 32] = pm;
    __syncthreads();
    pm = wm[0];
    for (int w = 1; w < T / 32; w++) pm = fmax(pm, wm[w]);
    m = fmax(m, pm);
    __syncthreads();
    double ps = 0;
    for (int j = (int)threadIdx.x; j < c; j += T) ps += exp(x[(size_t)i * c + j] - m);
    for (int o = 16; o > 0; o >>= 1) ps += __shfl_down_sync(0xffffffffu, ps, o);
    if (threadIdx.x % 32 == 0) ws[threadIdx.x / 32] = ps;
    __syncthreads();
    ps = ws[0];
    for (int w = 1; w < T / 32; w++) ps += ws[w];
    if (threadIdx.x == 0)
      loss[i] = log(ps) + m - (EARLY ? picked : x[(size_t)i * c + label[i]]);
    __syncthreads();
  }
}

// a warp per row, 8 rows per block: no block barrier; every lane holds the same totals
__global__ void __launch_bounds__(256) warps(int n, int c, const double *x, const int *label, double *loss)
{
  const int lane = threadIdx.x & 31;
  for (int i = (int)(blockIdx.x * 8 + threadIdx.x / 32); i < n; i += (int)gridDim.x * 8) {
    const double *r = x + (size_t)i * c;
    double pm = -INFINITY;
    for (int j = 1 + lane; j < c; j += 32) pm = fmax(pm, r[j]);
    for (int o = 16; o > 0; o >>= 1) pm = fmax(pm, __shfl_down_sync(0xffffffffu, pm, o));
    const double m = fmax(r[0], __shfl_sync(0xffffffffu, pm, 0));
    double ps = 0;
    for (int j = lane; j < c; j += 32) ps += exp(r[j] - m);
    for (int o = 16; o > 0; o >>= 1) ps += __shfl_down_sync(0xffffffffu, ps, o);
    if (lane == 0)
      loss[i] = log(ps) + m - r[label[i]];
  }
}

// the floor: x read once, summed by a warp per row (no exp)
__global__ void __launch_bounds__(256) floor_rows(int n, int c, const double *x, double *loss)
{
  const int lane = threadIdx.x & 31;
  for (int i = (int)(blockIdx.x * 8 + threadIdx.x / 32); i < n; i += (int)gridDim.x * 8) {
    double s = 0;
    for (int j = lane; j < c; j += 32) s += x[(size_t)i * c + j];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) loss[i] = s;
  }
}

int main()
{
  const int n = 16384, c = 1000;
  double *x, *loss; int *label;
  cudaMalloc(&x, (size_t)n * c * 8); cudaMalloc(&loss, (size_t)n * 8); cudaMalloc(&label, (size_t)n * 4);
  cudaMemset(x, 0, (size_t)n * c * 8); cudaMemset(label, 0, (size_t)n * 4);
  const double bytes = (double)n * c * 8 + n * 12.0;
  auto show = [&](const char *name, float ms) { printf("%-44s %8.4f ms  %6.0f GB/s\n", name, ms, bytes / (ms * 1e6)); };
  show("generated form: 256 threads per row", time_it([&] { blocks<256, false><<<n, 256>>>(n, c, x, label, loss); }));
  show("256 threads per row, label gather first", time_it([&] { blocks<256, true><<<n, 256>>>(n, c, x, label, loss); }));
  show("128 threads per row", time_it([&] { blocks<128, false><<<n, 128>>>(n, c, x, label, loss); }));
  show("a warp per row", time_it([&] { warps<<<(n + 7) / 8, 256>>>(n, c, x, label, loss); }));
  show("floor: x read once, a warp per row, no exp", time_it([&] { floor_rows<<<(n + 7) / 8, 256>>>(n, c, x, loss); }));
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) printf("failed: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
