// Correct twin of bug_dynamic_shared_overflow.cu: the launch provides
// (blockDim.x + 1) * sizeof(int) bytes of dynamic shared memory.
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

// out[i] = in[i] + in[i + 1] (the right neighbour of the block's last element is
// the first element of the next block, or 0 at the end).
__global__ void pair_sum(const int* in, int* out, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  s[t] = in[g];
  if (t == 0) {
    int nxt = (blockIdx.x + 1) * blockDim.x;
    s[blockDim.x] = nxt < n ? in[nxt] : 0;
  }
  __syncthreads();
  out[g] = s[t] + s[t + 1];
}

int main() {
  const int bs = 128, blocks = 6, n = bs * blocks;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 13) % 71;
  int *din, *dout;
  CHECK(cudaMalloc(&din, sizeof(h)));
  CHECK(cudaMalloc(&dout, sizeof(h)));
  CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
  pair_sum<<<blocks, bs, (bs + 1) * sizeof(int)>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += (long long)h[i] * (i % 5 + 1);
  printf("out[127] %d out[767] %d weighted %lld\n", h[127], h[767], s);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return 0;
}
