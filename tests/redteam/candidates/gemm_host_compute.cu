// RED TEAM: NAME_device copies the data to the host and computes on the CPU
#include <cuda_runtime.h>
#include <cstdlib>

extern "C" void kernel_gemm_device(int ni, int nj, int nk, double alpha, double beta, double *C,
                                   double *A, double *B)
{
  size_t c = sizeof(double) * ni * nj, a = sizeof(double) * ni * nk, b = sizeof(double) * nk * nj;
  double *hC = (double *)malloc(c), *hA = (double *)malloc(a), *hB = (double *)malloc(b);
  cudaMemcpy(hC, C, c, cudaMemcpyDeviceToHost);
  cudaMemcpy(hA, A, a, cudaMemcpyDeviceToHost);
  cudaMemcpy(hB, B, b, cudaMemcpyDeviceToHost);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      double acc = hC[i * nj + j] * beta;
      for (int k = 0; k < nk; k++) acc += alpha * hA[i * nk + k] * hB[k * nj + j];
      hC[i * nj + j] = acc;
    }
  cudaMemcpy(C, hC, c, cudaMemcpyHostToDevice);
  free(hC); free(hA); free(hB);
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
