// Covers: 16x16 shared-memory tiled matrix multiply in double precision with
// __syncthreads, C = A*B + 0.5*C (read-modify-write of the output), sizes not
// multiple of the tile. Data are multiples of 1/2 and 1/4, so every product and
// sum is exact in double regardless of FMA contraction.
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

__global__ void dgemm_tiled(const double* A, const double* B, double* C, int M, int N, int K) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  double acc = 0.0;
  int tiles = (K + TILE - 1) / TILE;
  for (int t = 0; t < tiles; ++t) {
    As[ty][tx] = (row < M && t * TILE + tx < K) ? A[row * K + t * TILE + tx] : 0.0;
    Bs[ty][tx] = (t * TILE + ty < K && col < N) ? B[(t * TILE + ty) * N + col] : 0.0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc + 0.5 * C[row * N + col];
}

int main() {
  const int M = 33, K = 50, N = 47;
  double* A = (double*)malloc(M * K * sizeof(double));
  double* B = (double*)malloc(K * N * sizeof(double));
  double* C = (double*)malloc(M * N * sizeof(double));
  double* C0 = (double*)malloc(M * N * sizeof(double));
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) A[i * K + k] = ((i + 2 * k) % 9 - 4) * 0.5;
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) B[k * N + j] = ((3 * k + j + k * j) % 11 - 5) * 0.25;
  for (int i = 0; i < M * N; ++i) C0[i] = (i % 5) - 2.0;

  double *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, M * K * sizeof(double)));
  CHECK(cudaMalloc(&dB, K * N * sizeof(double)));
  CHECK(cudaMalloc(&dC, M * N * sizeof(double)));
  CHECK(cudaMemcpy(dA, A, M * K * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B, K * N * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C0, M * N * sizeof(double), cudaMemcpyHostToDevice));

  dim3 block(TILE, TILE);
  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  dgemm_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(C, dC, M * N * sizeof(double), cudaMemcpyDeviceToHost));

  int bad = 0;
  double sum = 0.0, weighted = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.5 * C0[i * N + j];
      for (int k = 0; k < K; ++k) ref += A[i * K + k] * B[k * N + j];
      if (ref != C[i * N + j]) ++bad;
      sum += C[i * N + j];
      weighted += C[i * N + j] * ((i * 7 + j) % 10);
    }
  printf("C[0][0] %.3f C[16][30] %.3f C[32][46] %.3f\n", C[0], C[16 * N + 30],
         C[(M - 1) * N + N - 1]);
  printf("sum %.3f weighted %.3f\n", sum, weighted);
  printf("mismatches %d\n", bad);

  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  free(A);
  free(B);
  free(C);
  free(C0);
  return bad != 0;
}
