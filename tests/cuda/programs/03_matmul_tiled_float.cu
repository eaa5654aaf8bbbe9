// Covers: 16x16 shared-memory tiled matrix multiply (float) with two
// __syncthreads per tile, 2-D grid/block (dim3), matrix sizes that are not
// multiples of the tile (zero-padded tile loads, guarded store). Integer-valued
// data keep every product and sum exact.
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

// C[M][N] = A[M][K] * B[K][N], row-major.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + threadIdx.x;
    int kb = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
  const int M = 70, K = 45, N = 53;
  float* A = (float*)malloc(M * K * sizeof(float));
  float* B = (float*)malloc(K * N * sizeof(float));
  float* C = (float*)malloc(M * N * sizeof(float));
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) A[i * K + k] = (float)((i * 3 + k * 5 + i * k) % 7 - 3);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) B[k * N + j] = (float)((k * 2 + j * 7 + (k * j) % 3) % 5 - 2);

  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, M * K * sizeof(float)));
  CHECK(cudaMalloc(&dB, K * N * sizeof(float)));
  CHECK(cudaMalloc(&dC, M * N * sizeof(float)));
  CHECK(cudaMemcpy(dA, A, M * K * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B, K * N * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(C, dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));

  int bad = 0;
  double sum = 0.0, weighted = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.0;
      for (int k = 0; k < K; ++k) ref += (double)A[i * K + k] * B[k * N + j];
      if (ref != (double)C[i * N + j]) ++bad;
      sum += C[i * N + j];
      weighted += C[i * N + j] * ((i * N + j) % 13 + 1);
    }
  printf("grid %u x %u\n", grid.x, grid.y);
  printf("C[0][0] %.0f C[35][20] %.0f C[69][52] %.0f\n", C[0], C[35 * N + 20],
         C[(M - 1) * N + N - 1]);
  printf("sum %.0f weighted %.0f\n", sum, weighted);
  printf("mismatches %d\n", bad);

  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  free(A);
  free(B);
  free(C);
  return bad != 0;
}
