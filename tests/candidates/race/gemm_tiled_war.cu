// PLANTED RACE (issue #39): gemm_tiled.cu without the barrier after the products, so a
// warp that finishes early overwrites the shared tile with the next one while other warps
// still read it (write after read).  Warps of a block mostly run close together, so on a
// GPU the result is usually right: only a race check can tell.
#include <cuda_runtime.h>

#define TILE 16

__global__ void gemm_tiled(int ni, int nj, int nk, double alpha, double beta, double *C,
                           const double *A, const double *B)
{
  __shared__ double As[TILE][TILE], Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int j = blockIdx.x * TILE + tx, i = blockIdx.y * TILE + ty;
  double acc = (i < ni && j < nj) ? C[i * nj + j] * beta : 0.0;
  for (int k0 = 0; k0 < nk; k0 += TILE) {
    As[ty][tx] = (i < ni && k0 + tx < nk) ? A[i * nk + k0 + tx] : 0.0;
    Bs[ty][tx] = (k0 + ty < nk && j < nj) ? B[(k0 + ty) * nj + j] : 0.0;
    __syncthreads();                       /* the tile is complete before anyone reads it */
    for (int kk = 0; kk < TILE && k0 + kk < nk; kk++)
      acc += alpha * As[ty][kk] * Bs[kk][tx];
    /* no __syncthreads() here: the race */
  }
  if (i < ni && j < nj) C[i * nj + j] = acc;
}

extern "C" void kernel_gemm_device(int ni, int nj, int nk, double alpha, double beta, double *C,
                                   double *A, double *B)
{
  dim3 block(TILE, TILE), grid((nj + TILE - 1) / TILE, (ni + TILE - 1) / TILE);
  gemm_tiled<<<grid, block>>>(ni, nj, nk, alpha, beta, C, A, B);
}

extern "C" void kernel_gemm(int ni, int nj, int nk, double alpha, double beta, double *C,
                            double *A, double *B)
{
  double *dC, *dA, *dB;
  size_t c = sizeof(double) * ni * nj, a = sizeof(double) * ni * nk, b = sizeof(double) * nk * nj;
  cudaMalloc(&dC, c); cudaMalloc(&dA, a); cudaMalloc(&dB, b);
  cudaMemcpy(dC, C, c, cudaMemcpyHostToDevice);
  cudaMemcpy(dA, A, a, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, b, cudaMemcpyHostToDevice);
  kernel_gemm_device(ni, nj, nk, alpha, beta, dC, dA, dB);
  cudaMemcpy(C, dC, c, cudaMemcpyDeviceToHost);
  cudaFree(dC); cudaFree(dA); cudaFree(dB);
}
