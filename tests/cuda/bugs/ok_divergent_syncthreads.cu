// Correct twin of bug_divergent_syncthreads.cu: the barrier is outside the
// conditional, reached by every thread of the block.
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

// The first 16 threads of each block exchange values in pairs through shared
// memory; everyone then adds the block's first value.
__global__ void pair_swap(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  int v = in[blockIdx.x * BLOCK + t];
  s[t] = v;
  if (t < 16) {
  }
  __syncthreads();
  if (t < 16) v = s[t ^ 1];
  __syncthreads();
  out[blockIdx.x * BLOCK + t] = v + s[0];
}

int main() {
  const int blocks = 3, n = blocks * BLOCK;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i * 2 + 1;
  int *din, *dout;
  CHECK(cudaMalloc(&din, sizeof(h)));
  CHECK(cudaMalloc(&dout, sizeof(h)));
  CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
  pair_swap<<<blocks, BLOCK>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += (long long)h[i] * (i + 1);
  printf("out[0] %d out[1] %d out[20] %d weighted %lld\n", h[0], h[1], h[20], s);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return 0;
}
