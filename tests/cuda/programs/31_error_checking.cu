// Covers: runtime error reporting: cudaGetLastError (reads and resets),
// cudaPeekAtLastError (reads without resetting), cudaGetErrorString and
// cudaGetErrorName, launch-configuration errors (too many threads per block,
// grid y too large, block z too large), a failed huge cudaMalloc, an invalid
// device ordinal, and that these non-sticky errors leave the context usable.
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

static void show(const char* what, cudaError_t e) {
  printf("%-28s %d %s \"%s\"\n", what, (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
}

__global__ void fill(int* x, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v + i;
}

int main() {
  show("initial last error", cudaGetLastError());
  show("string of cudaErrorInvalidValue", cudaErrorInvalidValue);
  int* d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));

  fill<<<1, 2048>>>(d, 1, 64);  // more than 1024 threads per block
  show("peek after 2048 threads", cudaPeekAtLastError());
  show("peek again", cudaPeekAtLastError());
  show("get", cudaGetLastError());
  show("get again (reset)", cudaGetLastError());

  fill<<<dim3(1, 70000), 32>>>(d, 1, 64);  // gridDim.y limit is 65535
  show("grid y = 70000", cudaGetLastError());
  fill<<<1, dim3(1, 1, 128)>>>(d, 1, 64);  // blockDim.z limit is 64
  show("block z = 128", cudaGetLastError());

  void* huge = nullptr;
  cudaError_t em = cudaMalloc(&huge, (size_t)1 << 52);  // 4 PiB
  show("cudaMalloc 4 PiB", em);
  show("last error after malloc", cudaGetLastError());
  show("set device 999", cudaSetDevice(999));
  show("last error after set", cudaGetLastError());

  // The context is still fine: a valid launch works.
  fill<<<2, 32>>>(d, 100, 64);
  show("valid launch", cudaGetLastError());
  show("synchronize", cudaDeviceSynchronize());
  int h[64];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < 64; ++i) s += h[i];
  printf("result sum %lld h[63] %d\n", s, h[63]);
  CHECK(cudaFree(d));
  show("free(nullptr)", cudaFree(nullptr));
  return 0;
}
