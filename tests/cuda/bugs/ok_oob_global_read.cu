// Correct twin of bug_oob_global_read.cu: the last element uses itself as its
// right neighbour.
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

__global__ void diff(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int right = in[i + 1 < n ? i + 1 : i];
    out[i] = right - in[i];
  }
}

int main() {
  const int n = 777;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * i) % 1000;
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
  diff<<<(n + 63) / 64, 64>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += (long long)h[i] * (i % 3 + 1);
  printf("weighted sum %lld last %d\n", s, h[n - 1]);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return 0;
}
