// durbin at LARGE (n = 2000) in one block, variants of the generated loop (tests/golden/durbin.cu's
// durbin_loop_k_resident): the block size, the scalars alpha and beta in __device__ memory or in
// shared memory, and the barrier between y's copy and y[k] = alpha kept or dropped.  Prints the
// median and min-max of 20 timed calls (one launch each) and the max difference from variant 0.
// nvcc -O3 -arch=sm_90 scripts/durbin_probe.cu -o /tmp/durbin_probe && /tmp/durbin_probe
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__device__ double g_alpha, g_beta;

template <bool SHARED> struct Scalars;
template <> struct Scalars<false> { __device__ double &alpha() { return g_alpha; } __device__ double &beta() { return g_beta; } };
template <> struct Scalars<true> { double a, b; __device__ double &alpha() { return a; } __device__ double &beta() { return b; } };

template <bool SHARED, bool MERGE_TAIL>
__global__ void __launch_bounds__(1024) durbin_loop(int n, const double *r_g, double *y_g, double *z_g)
{
  extern __shared__ double res[];
  double *r = res, *y = r + n, *z = y + n;
  __shared__ double lanes[32];
  __shared__ Scalars<SHARED> s_shared;
  Scalars<false> s_global;
  auto &s = *(SHARED ? (Scalars<SHARED> *)&s_shared : (Scalars<SHARED> *)&s_global);
  for (int e = threadIdx.x; e < n; e += blockDim.x) { r[e] = r_g[e]; y[e] = y_g[e]; z[e] = 0; }
  if (threadIdx.x == 0) { y[0] = -r[0]; s.beta() = 1.0; s.alpha() = -r[0]; }
  __syncthreads();
  for (int k = 1; k < n; k++) {
    double part = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x) part += r[k - i - 1] * y[i];
    for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
    if ((threadIdx.x & 31) == 0) lanes[threadIdx.x >> 5] = part;
    __syncthreads();
    if (threadIdx.x < 32) {
      part = threadIdx.x < (blockDim.x >> 5) ? lanes[threadIdx.x] : 0;
      for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
      if (threadIdx.x == 0) {
        s.beta() = (1 - s.alpha() * s.alpha()) * s.beta();
        double sum = 0.0; sum = sum + part;
        s.alpha() = -(r[k] + sum) / s.beta();
      }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x) z[i] = y[i] + s.alpha() * y[k - i - 1];
    __syncthreads();
    for (int i = threadIdx.x; i < k; i += blockDim.x) y[i] = z[i];
    if (!MERGE_TAIL) __syncthreads();
    if (threadIdx.x == 0) y[k] = s.alpha();
    __syncthreads();
  }
  for (int e = threadIdx.x; e < n; e += blockDim.x) { y_g[e] = y[e]; z_g[e] = z[e]; }
}

// every thread computes alpha and beta itself from the warps' parts (the same operations in the
// same order in every thread, so the same values): no barrier after the scalars, none before y[k]
template <bool PINGPONG>
__global__ void __launch_bounds__(1024) durbin_redundant(int n, const double *r_g, double *y_g, double *z_g)
{
  extern __shared__ double res[];
  double *r = res, *y = r + n, *z = y + n;
  __shared__ double lanes[32];
  for (int e = threadIdx.x; e < n; e += blockDim.x) { r[e] = r_g[e]; y[e] = y_g[e]; z[e] = 0; }
  double alpha = -r_g[0], beta = 1.0;
  if (threadIdx.x == 0) y[0] = -r_g[0];
  __syncthreads();
  for (int k = 1; k < n; k++) {
    double part = 0;
    for (int i = threadIdx.x; i < k; i += blockDim.x) part += r[k - i - 1] * y[i];
    for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
    if ((threadIdx.x & 31) == 0) lanes[threadIdx.x >> 5] = part;
    __syncthreads();
    int lane = threadIdx.x & 31;
    part = lane < (blockDim.x >> 5) ? lanes[lane] : 0;
    for (int off = 16; off > 0; off >>= 1) part += __shfl_down_sync(0xffffffffu, part, off);
    part = __shfl_sync(0xffffffffu, part, 0);
    beta = (1 - alpha * alpha) * beta;
    double sum = 0.0; sum = sum + part;
    alpha = -(r[k] + sum) / beta;
    for (int i = threadIdx.x; i < k; i += blockDim.x) z[i] = y[i] + alpha * y[k - i - 1];
    if (PINGPONG) {
      if (threadIdx.x == 0) z[k] = alpha;
      double *t = y; y = z; z = t;
      __syncthreads();
    } else {
      __syncthreads();
      for (int i = threadIdx.x; i < k; i += blockDim.x) y[i] = z[i];
      if (threadIdx.x == 0) y[k] = alpha;
      __syncthreads();
    }
  }
  for (int e = threadIdx.x; e < n; e += blockDim.x) y_g[e] = y[e];
}

typedef void (*Kern)(int, const double *, double *, double *);
struct V { const char *name; Kern f; int threads; };

int main()
{
  const int n = 2000;
  std::vector<double> r(n), y0(n);
  for (int i = 0; i < n; i++) r[i] = (double)(n + 1 - i) / (n * 200.0);   // PolyBench's init
  double *dr, *dy, *dz;
  cudaMalloc(&dr, n * 8); cudaMalloc(&dy, n * 8); cudaMalloc(&dz, n * 8);
  cudaMemcpy(dr, r.data(), n * 8, cudaMemcpyHostToDevice);
  size_t bytes = 3 * n * sizeof(double);
  V vs[] = {
    {"generated: 1024 threads, scalars global", durbin_loop<false, false>, 1024},
    {"512 threads", durbin_loop<false, false>, 512},
    {"256 threads", durbin_loop<false, false>, 256},
    {"128 threads", durbin_loop<false, false>, 128},
    {"scalars shared", durbin_loop<true, false>, 1024},
    {"tail barrier dropped", durbin_loop<false, true>, 1024},
    {"shared + dropped", durbin_loop<true, true>, 1024},
    {"shared + dropped, 512", durbin_loop<true, true>, 512},
    {"shared + dropped, 256", durbin_loop<true, true>, 256},
    {"shared + dropped, 128", durbin_loop<true, true>, 128},
    {"shared, 256", durbin_loop<true, false>, 256},
    {"scalars in every thread", durbin_redundant<false>, 1024},
    {"scalars in every thread, 512", durbin_redundant<false>, 512},
    {"scalars in every thread, 256", durbin_redundant<false>, 256},
    {"every thread, y and z swapped", durbin_redundant<true>, 1024},
    {"every thread, y and z swapped, 512", durbin_redundant<true>, 512},
    {"every thread, y and z swapped, 256", durbin_redundant<true>, 256},
  };
  std::vector<double> ref(n), got(n);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  printf("%-42s %10s %21s %10s\n", "variant", "median ms", "min-max", "max diff");
  for (int v = 0; v < (int)(sizeof vs / sizeof vs[0]); v++) {
    cudaFuncSetAttribute(vs[v].f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    std::vector<float> ms;
    for (int rep = 0; rep < 22; rep++) {
      cudaMemset(dy, 0, n * 8);
      cudaEventRecord(e0);
      vs[v].f<<<1, vs[v].threads, bytes>>>(n, dr, dy, dz);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float t; cudaEventElapsedTime(&t, e0, e1);
      if (rep >= 2) ms.push_back(t);
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { printf("%s: %s\n", vs[v].name, cudaGetErrorString(err)); return 1; }
    cudaMemcpy(got.data(), dy, n * 8, cudaMemcpyDeviceToHost);
    if (v == 0) ref = got;
    double diff = 0;
    for (int i = 0; i < n; i++) diff = std::max(diff, std::fabs(got[i] - ref[i]));
    std::sort(ms.begin(), ms.end());
    printf("%-42s %10.4f %10.4f-%-10.4f %10.3g\n", vs[v].name, ms[ms.size() / 2], ms.front(), ms.back(), diff);
  }
  return 0;
}
