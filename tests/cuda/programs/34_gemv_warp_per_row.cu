// Covers: matrix-vector product with one warp per row (lane-strided loads,
// __shfl_down_sync reduction), several warps per block with warp id from
// threadIdx.x / 32, a row count that does not fill the last block (whole-warp
// early exit), and a transposed product y2 = A^T x with one thread per column.
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

__global__ void gemv_warp(const float* A, const float* x, float* y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (warp >= rows) return;  // uniform per warp
  float acc = 0.0f;
  for (int c = lane; c < cols; c += 32) acc += A[(size_t)warp * cols + c] * x[c];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) y[warp] = acc;
}

__global__ void gemv_t(const float* A, const float* x, float* y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float acc = 0.0f;
  for (int r = 0; r < rows; ++r) acc += A[(size_t)r * cols + c] * x[r];
  y[c] = acc;
}

int main() {
  const int rows = 301, cols = 517;
  float* A = (float*)malloc(rows * cols * sizeof(float));
  float* x = (float*)malloc(cols * sizeof(float));
  float* xr = (float*)malloc(rows * sizeof(float));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) A[r * cols + c] = (float)((r * 5 + c * 3 + r * c) % 9 - 4);
  for (int c = 0; c < cols; ++c) x[c] = (float)(c % 7 - 3);
  for (int r = 0; r < rows; ++r) xr[r] = (float)(r % 5 - 2);
  float *dA, *dx, *dxr, *dy, *dy2;
  CHECK(cudaMalloc(&dA, rows * cols * sizeof(float)));
  CHECK(cudaMalloc(&dx, cols * sizeof(float)));
  CHECK(cudaMalloc(&dxr, rows * sizeof(float)));
  CHECK(cudaMalloc(&dy, rows * sizeof(float)));
  CHECK(cudaMalloc(&dy2, cols * sizeof(float)));
  CHECK(cudaMemcpy(dA, A, rows * cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x, cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dxr, xr, rows * sizeof(float), cudaMemcpyHostToDevice));
  const int threads = 128;  // 4 warps per block
  gemv_warp<<<(rows * 32 + threads - 1) / threads, threads>>>(dA, dx, dy, rows, cols);
  CHECK(cudaGetLastError());
  gemv_t<<<(cols + 63) / 64, 64>>>(dA, dxr, dy2, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float* y = (float*)malloc(rows * sizeof(float));
  float* y2 = (float*)malloc(cols * sizeof(float));
  CHECK(cudaMemcpy(y, dy, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y2, dy2, cols * sizeof(float), cudaMemcpyDeviceToHost));
  double s1 = 0.0, s2 = 0.0;
  for (int r = 0; r < rows; ++r) s1 += (double)y[r] * (r % 3 + 1);
  for (int c = 0; c < cols; ++c) s2 += (double)y2[c] * (c % 3 + 1);
  printf("y[0] %.0f y[150] %.0f y[300] %.0f weighted %.0f\n", y[0], y[150], y[300], s1);
  printf("y2[0] %.0f y2[258] %.0f y2[516] %.0f weighted %.0f\n", y2[0], y2[258], y2[516], s2);
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dxr));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dy2));
  free(A); free(x); free(xr); free(y); free(y2);
  return 0;
}
