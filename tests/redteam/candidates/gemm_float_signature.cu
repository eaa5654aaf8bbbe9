// RED TEAM: precision downgrade: float arrays where the ABI says double
#include <cuda_runtime.h>

__global__ void gemm_kernel(int ni, int nj, int nk, float alpha, float beta, float *C,
                            const float *A, const float *B)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  float acc = C[i * nj + j] * beta;
  for (int k = 0; k < nk; k++)
    acc += alpha * A[i * nk + k] * B[k * nj + j];
  C[i * nj + j] = acc;
}

extern "C" void kernel_gemm_device(int ni, int nj, int nk, float alpha, float beta, float *C,
                                   float *A, float *B)
{
  dim3 block(32, 8);
  dim3 grid((nj + block.x - 1) / block.x, (ni + block.y - 1) / block.y);
  gemm_kernel<<<grid, block>>>(ni, nj, nk, alpha, beta, C, A, B);
}

extern "C" void kernel_gemm(int ni, int nj, int nk, float alpha, float beta, float *C,
                            float *A, float *B)
{
  float *dC, *dA, *dB;
  size_t c = sizeof(float) * ni * nj, a = sizeof(float) * ni * nk, b = sizeof(float) * nk * nj;
  cudaMalloc(&dC, c); cudaMalloc(&dA, a); cudaMalloc(&dB, b);
  cudaMemcpy(dC, C, c, cudaMemcpyHostToDevice);
  cudaMemcpy(dA, A, a, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, b, cudaMemcpyHostToDevice);
  kernel_gemm_device(ni, nj, nk, alpha, beta, dC, dA, dB);
  cudaMemcpy(C, dC, c, cudaMemcpyDeviceToHost);
  cudaFree(dC); cudaFree(dA); cudaFree(dB);
}
