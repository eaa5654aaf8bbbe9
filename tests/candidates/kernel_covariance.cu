// A plain, correct covariance candidate: column means, centring, then one thread per
// (i, j >= i) element of the covariance matrix, mirrored into (j, i).
#include <cuda_runtime.h>

__global__ void cov_mean(int m, int n, double float_n, const double *data, double *mean)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  double acc = 0.0;
  for (int i = 0; i < n; i++)
    acc += data[(size_t)i * m + j];
  mean[j] = acc / float_n;
}

__global__ void cov_center(int m, int n, double *data, const double *mean)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y;
  if (j < m && i < n) data[(size_t)i * m + j] -= mean[j];
}

__global__ void cov_matrix(int m, int n, double float_n, const double *data, double *cov)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= m || j < i) return;
  double acc = 0.0;
  for (int k = 0; k < n; k++)
    acc += data[(size_t)k * m + i] * data[(size_t)k * m + j];
  acc /= float_n - 1.0;
  cov[(size_t)i * m + j] = acc;
  cov[(size_t)j * m + i] = acc;
}

extern "C" void kernel_covariance_device(int m, int n, double float_n, double *data, double *cov,
                                         double *mean)
{
  cov_mean<<<(m + 127) / 128, 128>>>(m, n, float_n, data, mean);
  cov_center<<<dim3((m + 127) / 128, n), 128>>>(m, n, data, mean);
  dim3 block(16, 16);
  cov_matrix<<<dim3((m + 15) / 16, (m + 15) / 16), block>>>(m, n, float_n, data, cov);
}

extern "C" void kernel_covariance(int m, int n, double float_n, double *data, double *cov, double *mean)
{
  double *dd, *dc, *dm;
  size_t d = sizeof(double) * n * m, c = sizeof(double) * m * m, v = sizeof(double) * m;
  cudaMalloc(&dd, d); cudaMalloc(&dc, c); cudaMalloc(&dm, v);
  cudaMemcpy(dd, data, d, cudaMemcpyHostToDevice);
  kernel_covariance_device(m, n, float_n, dd, dc, dm);
  cudaMemcpy(data, dd, d, cudaMemcpyDeviceToHost);
  cudaMemcpy(cov, dc, c, cudaMemcpyDeviceToHost);
  cudaMemcpy(mean, dm, v, cudaMemcpyDeviceToHost);
  cudaFree(dd); cudaFree(dc); cudaFree(dm);
}
