// PLANTED BUG (race): every thread that finds a multiple of 3 does a plain
// `(*count)++` on one global counter. Concurrent read-modify-writes lose
// updates, and the slots taken from the counter collide.
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

// Stream compaction: copy every multiple of 3 to out[] in any order.
__global__ void compact(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] % 3 == 0) {
    int slot = (*count)++;
    out[slot] = in[i];
  }
}

int main() {
  const int n = 4096;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 7 + 1) % 1000;
  int *din, *dout, *dcount;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMalloc(&dcount, sizeof(int)));
  CHECK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, n * sizeof(int)));
  CHECK(cudaMemset(dcount, 0, sizeof(int)));
  compact<<<n / 256, 256>>>(din, dout, dcount, n);
  CHECK(cudaGetLastError());
  int count = 0;
  CHECK(cudaMemcpy(&count, dcount, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += h[i];  // sum of all slots; unfilled slots are 0
  printf("count %d sum of compacted values %lld\n", count, s);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dcount));
  free(h);
  return 0;
}
