// PLANTED BUG (race): the last 64 -> 1 steps of a block reduction run in warp 0
// through volatile shared memory with no __syncwarp, relying on implicit warp
// lockstep (pre-Volta style). Lane t reads s[t + 16] while lane t + 16 may
// already be rewriting it; the result depends on the order lanes run in.
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
    volatile int* v = s;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
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
