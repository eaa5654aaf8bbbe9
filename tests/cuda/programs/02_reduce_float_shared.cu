// Covers: float shared-memory reduction with __syncthreads (interleaved-pair
// first add while loading, sequential addressing), float atomicAdd to combine
// block results. Data are small integer-valued floats so every partial sum is
// exact and the result does not depend on the order of the atomic adds.
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

#define BLOCK 128

// Each block reduces 2*BLOCK elements; the first add happens during the load.
__global__ void reduce_float(const float* in, float* partial, float* total, int n) {
  __shared__ float s[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (2 * blockDim.x) + tid;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] = s[tid] + s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) {
    partial[blockIdx.x] = s[0];
    atomicAdd(total, s[0]);
  }
}

int main() {
  const int n = 200003;
  const int blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
  float* h = (float*)malloc(n * sizeof(float));
  double cpu = 0.0;
  for (int i = 0; i < n; ++i) {
    h[i] = (float)((i * 13 + 5) % 16);  // integers 0..15
    cpu += h[i];
  }
  float *d_in, *d_part, *d_total;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_part, blocks * sizeof(float)));
  CHECK(cudaMalloc(&d_total, sizeof(float)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_total, 0, sizeof(float)));

  reduce_float<<<blocks, BLOCK>>>(d_in, d_part, d_total, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  float* part = (float*)malloc(blocks * sizeof(float));
  float total = 0.0f;
  CHECK(cudaMemcpy(part, d_part, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost));
  double sp = 0.0;
  float pmin = part[0], pmax = part[0];
  for (int b = 0; b < blocks; ++b) {
    sp += part[b];
    if (part[b] < pmin) pmin = part[b];
    if (part[b] > pmax) pmax = part[b];
  }
  printf("blocks %d\n", blocks);
  printf("partial[0] %.1f partial[last] %.1f min %.1f max %.1f\n", part[0],
         part[blocks - 1], pmin, pmax);
  printf("gpu total %.1f\n", total);
  printf("cpu total %.1f\n", cpu);
  printf("mean %.6g\n", (double)total / n);
  printf("%s\n", ((double)total == cpu && sp == cpu) ? "MATCH" : "MISMATCH");

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_part));
  CHECK(cudaFree(d_total));
  free(h);
  free(part);
  return 0;
}
