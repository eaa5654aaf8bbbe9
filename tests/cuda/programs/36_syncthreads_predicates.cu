// Covers: barrier intrinsics with predicates: __syncthreads_count,
// __syncthreads_and, __syncthreads_or; a 2-D block (16x8) so the barrier spans
// several warps; shared flags written before and read after a barrier; and an
// early-exit-free loop where all threads reach every barrier.
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

// For each block: number of positive values, whether all are > -50, whether any
// equals 42; then an iterative "halve until all are small" loop whose trip
// count is decided by __syncthreads_or.
__global__ void predicates(const int* in, int* out) {
  __shared__ int rounds;
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int nthreads = blockDim.x * blockDim.y;
  int b = blockIdx.x;
  int v = in[b * nthreads + t];
  int pos = __syncthreads_count(v > 0);
  int all_gt = __syncthreads_and(v > -50);
  int any42 = __syncthreads_or(v == 42);
  if (t == 0) rounds = 0;
  __syncthreads();
  int w = v < 0 ? -v : v;
  while (__syncthreads_or(w > 3)) {  // every thread evaluates the same condition
    w >>= 1;
    if (t == 0) ++rounds;
  }
  __syncthreads();
  if (t == 0) {
    out[b * 5 + 0] = pos;
    out[b * 5 + 1] = all_gt;
    out[b * 5 + 2] = any42;
    out[b * 5 + 3] = rounds;
  }
  int small_count = __syncthreads_count(w == 0);
  if (t == 0) out[b * 5 + 4] = small_count;
}

int main() {
  const int blocks = 6;
  dim3 block(16, 8);
  const int per = 16 * 8, n = blocks * per;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 37) % 149 - 60;  // -60..88
  h[1 * per + 77] = 42;                                    // plant one more 42
  for (int i = 4 * per; i < 5 * per; ++i) h[i] = i % 40 - 20;  // block 4: all > -50
  int *d, *dout;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, blocks * 5 * sizeof(int)));
  CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  predicates<<<blocks, block>>>(d, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int o[blocks * 5];
  CHECK(cudaMemcpy(o, dout, sizeof(o), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b)
    printf("block %d positive %d all>-50 %d any==42 %d halving rounds %d zeros %d\n", b,
           o[b * 5], o[b * 5 + 1], o[b * 5 + 2], o[b * 5 + 3], o[b * 5 + 4]);
  CHECK(cudaFree(d));
  CHECK(cudaFree(dout));
  free(h);
  return 0;
}
