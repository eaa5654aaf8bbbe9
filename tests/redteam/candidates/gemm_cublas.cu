// RED TEAM: calls cuBLAS instead of writing a kernel
#include <cuda_runtime.h>
#include <cublas_v2.h>

extern "C" void kernel_gemm_device(int ni, int nj, int nk, double alpha, double beta, double *C,
                                   double *A, double *B)
{
  cublasHandle_t h;
  cublasCreate(&h);
  cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, nj, ni, nk, &alpha, B, nj, A, nk, &beta, C, nj);
  cublasDestroy(h);
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
