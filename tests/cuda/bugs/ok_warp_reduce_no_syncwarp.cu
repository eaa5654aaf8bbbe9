// Correct twin of bug_warp_reduce_no_syncwarp.cu: every step reads into a
// register, __syncwarp, writes, __syncwarp.
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

__global__ void reduce(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  if (t < 64) s[t] += s[t + 64];
  __syncthreads();
  if (t < 32) {
    int x = s[t];
    for (int off = 32; off > 0; off >>= 1) {
      x += s[t + off];
      __syncwarp();
      s[t] = x;
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = s[0];
  }
}

int main() {
  const int blocks = 6, n = blocks * BLOCK;
  int h[n], r[blocks];
  for (int i = 0; i < n; ++i) h[i] = (i * 29) % 53 + 1;
  int *d, *dout;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMalloc(&dout, sizeof(r)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  reduce<<<blocks, BLOCK>>>(d, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, dout, sizeof(r), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) printf("block %d sum %d\n", b, r[b]);
  CHECK(cudaFree(d));
  CHECK(cudaFree(dout));
  return 0;
}
