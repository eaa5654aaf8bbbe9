// Covers: atomicAdd on float and double in global memory, atomicAdd on float in
// shared memory (per-block accumulate, then one global atomic per block),
// atomicExch on float, atomics into a small array of bins. Values are
// integer-valued floats / multiples of 1/8 in double, so all sums are exact and
// independent of the order of the atomic operations.
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

__global__ void float_atomics(const float* x, float* fsum, double* dsum, float* bins,
                              float* fexch, float* exch_sum, int n) {
  __shared__ float block_acc;
  if (threadIdx.x == 0) block_acc = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    atomicAdd(&block_acc, v);                         // shared float atomic
    atomicAdd(dsum, (double)v * 0.125);               // global double atomic
    atomicAdd(&bins[i % 10], v);                      // contended bins
    float old = atomicExch(fexch, (float)(i % 50));  // exchange chain
    atomicAdd(exch_sum, old);
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(fsum, block_acc);  // global float atomic
}

int main() {
  const int n = 50001;
  float* h = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) h[i] = (float)((i * 7) % 23 - 11);
  float *dx, *dfsum, *dbins, *dexch, *dexs;
  double* ddsum;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dfsum, sizeof(float)));
  CHECK(cudaMalloc(&ddsum, sizeof(double)));
  CHECK(cudaMalloc(&dbins, 10 * sizeof(float)));
  CHECK(cudaMalloc(&dexch, sizeof(float)));
  CHECK(cudaMalloc(&dexs, sizeof(float)));
  CHECK(cudaMemcpy(dx, h, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dfsum, 0, sizeof(float)));
  CHECK(cudaMemset(ddsum, 0, sizeof(double)));
  CHECK(cudaMemset(dbins, 0, 10 * sizeof(float)));
  CHECK(cudaMemset(dexs, 0, sizeof(float)));
  float start = 100.0f;
  CHECK(cudaMemcpy(dexch, &start, sizeof(float), cudaMemcpyHostToDevice));

  float_atomics<<<(n + 255) / 256, 256>>>(dx, dfsum, ddsum, dbins, dexch, dexs, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  float fsum, bins[10], fex, exs;
  double dsum;
  CHECK(cudaMemcpy(&fsum, dfsum, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&dsum, ddsum, sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bins, dbins, 10 * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&fex, dexch, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&exs, dexs, sizeof(float), cudaMemcpyDeviceToHost));

  printf("float sum %.1f\n", fsum);
  printf("double sum %.3f\n", dsum);
  printf("bins");
  for (int b = 0; b < 10; ++b) printf(" %.0f", bins[b]);
  printf("\n");
  // olds + final == start + sum of all exchanged values, in any order
  printf("exch invariant %.1f\n", (double)exs + fex);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dfsum));
  CHECK(cudaFree(ddsum));
  CHECK(cudaFree(dbins));
  CHECK(cudaFree(dexch));
  CHECK(cudaFree(dexs));
  free(h);
  return 0;
}
