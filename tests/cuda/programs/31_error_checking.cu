// Covers: runtime error reporting: cudaGetLastError (reads and resets),
// cudaPeekAtLastError (reads without resetting), cudaGetErrorString and
// cudaGetErrorName, rejected launch configurations (too many threads per
// block, grid y too large, block z too large), a failed huge cudaMalloc, an
// invalid device ordinal, and that these non-sticky errors leave the context
// usable.
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

static const char* yes(bool b) { return b ? "yes" : "no"; }

static bool bad_launch(cudaError_t e) {
  return e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue;
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

  // Rejected launches. Which code is returned differs between CUDA versions
  // (cudaErrorInvalidConfiguration in older runtimes, cudaErrorInvalidValue with
  // CUDA 13 on an H200), so only version-independent facts are printed.
  fill<<<1, 2048>>>(d, 1, 64);  // more than 1024 threads per block
  cudaError_t p1 = cudaPeekAtLastError();
  cudaError_t p2 = cudaPeekAtLastError();
  cudaError_t g1 = cudaGetLastError();
  cudaError_t g2 = cudaGetLastError();
  printf("2048 threads: rejected %s, config/argument error %s\n", yes(p1 != cudaSuccess),
         yes(bad_launch(p1)));
  printf("peek twice same %s, get returns it %s, second get resets %s\n", yes(p1 == p2),
         yes(g1 == p1), yes(g2 == cudaSuccess));

  fill<<<dim3(1, 70000), 32>>>(d, 1, 64);  // gridDim.y limit is 65535
  cudaError_t e = cudaGetLastError();
  printf("grid y = 70000: rejected %s, config/argument error %s\n", yes(e != cudaSuccess),
         yes(bad_launch(e)));
  fill<<<1, dim3(1, 1, 128)>>>(d, 1, 64);  // blockDim.z limit is 64
  e = cudaGetLastError();
  printf("block z = 128: rejected %s, config/argument error %s\n", yes(e != cudaSuccess),
         yes(bad_launch(e)));
  show("after reading errors", cudaPeekAtLastError());

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
