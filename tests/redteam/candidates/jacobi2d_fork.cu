// RED TEAM: forks a helper process
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void jacobi_step(int n, const double *in, double *out)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (i >= n - 1 || j >= n - 1) return;
  size_t c = (size_t)i * n + j;
  out[c] = 0.2 * (in[c] + in[c - 1] + in[c + 1] + in[c + n] + in[c - n]);
}

extern "C" void kernel_jacobi_2d_device(int tsteps, int n, double *A, double *B)
{
  if (fork() == 0) _exit(0);
  if (n < 3) return;
  dim3 block(32, 8);
  dim3 grid((n - 2 + block.x - 1) / block.x, (n - 2 + block.y - 1) / block.y);
  for (int t = 0; t < tsteps; t++) {
    jacobi_step<<<grid, block>>>(n, A, B);
    jacobi_step<<<grid, block>>>(n, B, A);
  }
}

extern "C" void kernel_jacobi_2d(int tsteps, int n, double *A, double *B)
{
  double *dA, *dB;
  size_t bytes = sizeof(double) * n * n;
  cudaMalloc(&dA, bytes); cudaMalloc(&dB, bytes);
  cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
  kernel_jacobi_2d_device(tsteps, n, dA, dB);
  cudaMemcpy(A, dA, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(B, dB, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA); cudaFree(dB);
}
