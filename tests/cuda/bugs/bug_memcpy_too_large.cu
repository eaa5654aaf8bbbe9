// PLANTED BUG (oob): the host->device cudaMemcpy copies n + 16 ints into a
// device buffer allocated for n ints (the host buffer really has n + 16).
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

__global__ void square(int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}

int main() {
  const int n = 1000, extra = 16;
  int* h = (int*)malloc((n + extra) * sizeof(int));
  for (int i = 0; i < n + extra; ++i) h[i] = i % 50 - 25;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, h, (n + extra) * sizeof(int), cudaMemcpyHostToDevice));
  square<<<(n + 255) / 256, 256>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  printf("sum of squares %lld\n", s);
  CHECK(cudaFree(d));
  free(h);
  return 0;
}
