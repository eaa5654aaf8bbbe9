// PLANTED BUG (race): the __syncthreads inside the reduction loop is missing, so
// a thread can read s[tid + stride] before its owner has finished the previous
// level. The printed sums depend on the order in which threads run.
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

#define BLOCK 256

__global__ void reduce(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

int main() {
  const int blocks = 8, n = blocks * BLOCK;
  int h[n], r[blocks];
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 100 + 1;
  int *d, *dout;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMalloc(&dout, sizeof(r)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  reduce<<<blocks, BLOCK>>>(d, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, dout, sizeof(r), cudaMemcpyDeviceToHost));
  long long total = 0;
  for (int b = 0; b < blocks; ++b) {
    printf("block %d sum %d\n", b, r[b]);
    total += r[b];
  }
  printf("total %lld\n", total);
  CHECK(cudaFree(d));
  CHECK(cudaFree(dout));
  return 0;
}
