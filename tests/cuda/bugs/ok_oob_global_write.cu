// Correct twin of bug_oob_global_write.cu: the bounds check is i < n.
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

__global__ void scale(const float* in, float* out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i];
}

int main() {
  const int n = 1000;  // 8 blocks of 128 threads = 1024 threads
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 10);
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
  scale<<<(n + 127) / 128, 128>>>(din, dout, 3.0f, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dout, sizeof(h), cudaMemcpyDeviceToHost));
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += h[i];
  printf("sum %.1f last %.1f\n", s, h[n - 1]);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return 0;
}
