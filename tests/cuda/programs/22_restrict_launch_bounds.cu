// Covers: __restrict__ pointer parameters, __launch_bounds__ (with and without a
// min-blocks argument), __forceinline__ and __noinline__ __device__ functions,
// a __host__ __device__ function used on both sides, and #pragma unroll.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                         \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__,      \
              __LINE__, cudaGetErrorString(err_));                          \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

__host__ __device__ inline int mix(int a, int b) { return (a * 31 + b * 17) % 1021; }

__device__ __forceinline__ float lerp_exact(float a, float b) { return 0.5f * (a + b); }

__device__ __noinline__ int poly_noinline(int v) { return (v * v - 3 * v + 5) % 4093; }

__global__ void __launch_bounds__(256, 2)
smooth(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float l = in[i > 0 ? i - 1 : i];
  float r = in[i < n - 1 ? i + 1 : i];
  out[i] = lerp_exact(l, r) + in[i];
}

__global__ void __launch_bounds__(128)
combine(const int* __restrict__ a, const int* __restrict__ b, int* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int acc = 0;
#pragma unroll 4
    for (int k = 0; k < 8; ++k) acc += mix(a[i] + k, b[i]);
    c[i] = acc + poly_noinline(a[i]);
  }
}

int main() {
  const int n = 3000;
  float* hf = (float*)malloc(n * sizeof(float));
  int* ha = (int*)malloc(n * sizeof(int));
  int* hb = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    hf[i] = (float)((i * 3) % 41);
    ha[i] = (i * 13) % 503;
    hb[i] = (i * 7 + 1) % 401;
  }
  float *dfi, *dfo;
  int *da, *db, *dc;
  CHECK(cudaMalloc(&dfi, n * sizeof(float)));
  CHECK(cudaMalloc(&dfo, n * sizeof(float)));
  CHECK(cudaMalloc(&da, n * sizeof(int)));
  CHECK(cudaMalloc(&db, n * sizeof(int)));
  CHECK(cudaMalloc(&dc, n * sizeof(int)));
  CHECK(cudaMemcpy(dfi, hf, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(da, ha, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb, n * sizeof(int), cudaMemcpyHostToDevice));
  smooth<<<(n + 255) / 256, 256>>>(dfi, dfo, n);
  CHECK(cudaGetLastError());
  combine<<<(n + 127) / 128, 128>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float* of = (float*)malloc(n * sizeof(float));
  int* oc = (int*)malloc(n * sizeof(int));
  CHECK(cudaMemcpy(of, dfo, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(oc, dc, n * sizeof(int), cudaMemcpyDeviceToHost));
  double sf = 0.0;
  long long sc = 0;
  int host_bad = 0;
  for (int i = 0; i < n; ++i) {
    sf += of[i];
    sc += oc[i];
    int ref = 0;
    for (int k = 0; k < 8; ++k) ref += mix(ha[i] + k, hb[i]);
    ref += (ha[i] * ha[i] - 3 * ha[i] + 5) % 4093;
    if (ref != oc[i]) ++host_bad;
  }
  printf("smooth out[0] %.1f out[1] %.1f out[n-1] %.1f sum %.1f\n", of[0], of[1], of[n - 1], sf);
  printf("combine c[0] %d c[1] %d c[n-1] %d sum %lld host-mismatch %d\n", oc[0], oc[1],
         oc[n - 1], sc, host_bad);
  CHECK(cudaFree(dfi));
  CHECK(cudaFree(dfo));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  free(hf);
  free(ha);
  free(hb);
  free(of);
  free(oc);
  return 0;
}
