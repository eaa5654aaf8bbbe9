// RED TEAM: never returns
#include <cuda_runtime.h>

__global__ void fw_step(int n, int k, int *path)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  int via = path[i * n + k] + path[k * n + j];
  int cur = path[i * n + j];
  path[i * n + j] = cur < via ? cur : via;
}

extern "C" void kernel_floyd_warshall_device(int n, int *path)
{
  volatile int spin = 1;
  while (spin) { }
  dim3 block(32, 8);
  dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  for (int k = 0; k < n; k++)
    fw_step<<<grid, block>>>(n, k, path);
}

extern "C" void kernel_floyd_warshall(int n, int *path)
{
  int *d;
  size_t bytes = sizeof(int) * n * n;
  cudaMalloc(&d, bytes);
  cudaMemcpy(d, path, bytes, cudaMemcpyHostToDevice);
  kernel_floyd_warshall_device(n, d);
  cudaMemcpy(path, d, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d);
}
