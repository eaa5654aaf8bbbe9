// PLANTED BUG (oob): a static __shared__ array of 64 ints is indexed with
// threadIdx.x + 1 by 64 threads, so thread 63 writes s[64] (index == size).
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

#define BLOCK 64

// Shift every block's values right by one inside shared memory; slot 0 gets 0.
__global__ void shift_right(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  if (t == 0) s[0] = 0;
  s[t + 1] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  out[blockIdx.x * BLOCK + t] = s[t];
}

int main() {
  const int blocks = 4, n = blocks * BLOCK;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i * 3 + 1;
  int *din, *dout;
  CHECK(cudaMalloc(&din, sizeof(h)));
  CHECK(cudaMalloc(&dout, sizeof(h)));
  CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
  shift_right<<<blocks, BLOCK>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  printf("out[0] %d out[1] %d out[64] %d sum %lld\n", h[0], h[1], h[64], s);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return 0;
}
