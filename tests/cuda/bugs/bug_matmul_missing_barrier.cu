// PLANTED BUG (race): in the tiled matmul the __syncthreads between loading the
// shared tiles and reading them is missing, so threads can read tile entries that
// other threads have not written yet (or that still hold the previous tile).
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

#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * n + col];
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

int main() {
  const int n = 64;
  float* A = (float*)malloc(n * n * sizeof(float));
  float* B = (float*)malloc(n * n * sizeof(float));
  float* C = (float*)malloc(n * n * sizeof(float));
  for (int i = 0; i < n * n; ++i) {
    A[i] = (float)(i % 7 - 3);
    B[i] = (float)(i % 5 - 2);
  }
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, n * n * sizeof(float)));
  CHECK(cudaMalloc(&dB, n * n * sizeof(float)));
  CHECK(cudaMalloc(&dC, n * n * sizeof(float)));
  CHECK(cudaMemcpy(dA, A, n * n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B, n * n * sizeof(float), cudaMemcpyHostToDevice));
  matmul<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(dA, dB, dC, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C, dC, n * n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0.0, w = 0.0;
  for (int i = 0; i < n * n; ++i) {
    s += C[i];
    w += C[i] * (i % 11);
  }
  printf("C[0] %.0f C[%d] %.0f sum %.0f weighted %.0f\n", C[0], n * n - 1, C[n * n - 1], s, w);
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  free(A);
  free(B);
  free(C);
  return 0;
}
