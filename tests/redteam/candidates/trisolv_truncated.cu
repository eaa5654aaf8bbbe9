// RED TEAM: truncated reduction: drops the last term of every row
#include <cuda_runtime.h>

#define THREADS 256

__global__ void trisolv_block(int n, const double *L, double *x, const double *b)
{
  __shared__ double part[THREADS];
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int j = threadIdx.x; j < i - 1; j += blockDim.x)
      acc += L[(size_t)i * n + j] * x[j];
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) x[i] = (b[i] - part[0]) / L[(size_t)i * n + i];
    __syncthreads();
  }
}

extern "C" void kernel_trisolv_device(int n, double *L, double *x, double *b)
{
  trisolv_block<<<1, THREADS>>>(n, L, x, b);
}

extern "C" void kernel_trisolv(int n, double *L, double *x, double *b)
{
  double *dL, *dx, *db;
  size_t l = sizeof(double) * n * n, v = sizeof(double) * n;
  cudaMalloc(&dL, l); cudaMalloc(&dx, v); cudaMalloc(&db, v);
  cudaMemcpy(dL, L, l, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, v, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, v, cudaMemcpyHostToDevice);
  kernel_trisolv_device(n, dL, dx, db);
  cudaMemcpy(x, dx, v, cudaMemcpyDeviceToHost);
  cudaFree(dL); cudaFree(dx); cudaFree(db);
}
