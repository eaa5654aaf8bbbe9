// Covers: printf from device code with int, unsigned, long long, float, double,
// char and string arguments. Only one thread of one block prints (inside a
// loop over data it computed after a barrier), so the output order is fixed.
// Device output is flushed at cudaDeviceSynchronize; host stdout is flushed
// before and after so host and device lines interleave deterministically.
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

__global__ void report(const int* data, int n) {
  __shared__ int partial[64];
  int t = threadIdx.x;
  partial[t] = 0;
  for (int i = t; i < n; i += blockDim.x) partial[t] += data[i];
  __syncthreads();
  if (blockIdx.x == 1 && t == 0) {
    long long total = 0;
    for (int k = 0; k < (int)blockDim.x; ++k) total += partial[k];
    printf("device: block %d of %d, %d threads\n", blockIdx.x, gridDim.x, blockDim.x);
    for (int k = 0; k < 4; ++k) printf("device: partial[%d] = %d\n", k, partial[k]);
    printf("device: total %lld hex %x unsigned %u\n", total, (unsigned)total, (unsigned)n);
    printf("device: float %.3f double %.6f char %c string %s\n", 1.5f * 2.25f, 1.0 / 8.0,
           'A' + (int)(total % 26), "ok");
  }
}

int main() {
  const int n = 1000;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 19) % 101;
  int* d;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  printf("host: before launch\n");
  fflush(stdout);
  report<<<3, 64>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  fflush(stdout);
  printf("host: after synchronize\n");
  CHECK(cudaFree(d));
  return 0;
}
