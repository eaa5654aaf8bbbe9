// The measured limits of the kernel classes that stay below half the copy bandwidth in the loops
// corpus (issue #35): random gathers, atomics into few bins, one launch per step, one barrier per
// step. Each figure is the median (p20-p80) of 30 runs after an L2 eviction, timed with CUDA
// events; GB/s count the minimal traffic (each array read or written once). A probe, not a test.
//   nvcc -O3 -arch=sm_90 -o /tmp/limits_probe scripts/limits_probe.cu && /tmp/limits_probe
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void copy(int n, const float *__restrict__ x, float *__restrict__ y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i];
}
__global__ void gather(int n, const int *__restrict__ idx, const float *__restrict__ x, float *__restrict__ y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[idx[i]];
}
__global__ void gather_rows(int rows, int d, int table, const int *__restrict__ idx, const float *__restrict__ x,
                            float *__restrict__ y)   // an embedding lookup: whole rows of d floats
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * d; i += gridDim.x * blockDim.x)
    y[i] = x[(size_t)(idx[i / d] % table) * d + i % d];
}
__global__ void histogram(int n, const int *__restrict__ key, int *bins)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&bins[key[i]], 1);
}
__global__ void histogram_shared(int n, int nbins, const int *__restrict__ key, int *bins)
{
  extern __shared__ int own[];
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) own[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&own[key[i]], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&bins[b], own[b]);
}
__global__ void row_column(int rows, const double *__restrict__ a, double *b)   // rows of 13 doubles: read 10, write 1
{                                                       // (Livermore 9's layout), a block's rows staged whole
  __shared__ double t[256 * 13];
  const int first = blockIdx.x * 256, count = min(256, rows - first);
  for (int e = threadIdx.x; e < count * 13; e += 256) t[e] = a[(size_t)first * 13 + e];
  __syncthreads();
  if ((int)threadIdx.x < count) {
    const double *r = t + threadIdx.x * 13;
    b[(size_t)(first + threadIdx.x) * 13] = r[12] + r[11] + r[10] + r[9] + r[8] + r[7] + r[6] + r[5] + r[4] + r[2];
  }
}
__global__ void empty() {}
__global__ void barriers(int steps, float *out)   // one block, a barrier per step (a one-block host loop)
{
  __shared__ float v[256];
  float a = threadIdx.x;
  for (int s = 0; s < steps; s++) {
    v[threadIdx.x] = a;
    __syncthreads();
    a = v[(threadIdx.x + 1) % blockDim.x] * 0.5f + 1.0f;
    __syncthreads();
  }
  out[threadIdx.x] = a;
}

static unsigned lcg(unsigned &s) { return s = s * 1664525u + 1013904223u; }

int main()
{
  const int n = 1 << 24, rows = 1 << 16, d = 64, steps = 1000;
  float *x, *y; int *idx, *keys, *bins; void *flush;
  cudaMalloc(&x, (size_t)n * 4); cudaMalloc(&y, (size_t)n * 4); cudaMalloc(&idx, (size_t)n * 4);
  cudaMalloc(&keys, (size_t)n * 4); cudaMalloc(&bins, 1 << 20); cudaMalloc(&flush, (size_t)256 << 20);
  cudaMemset(x, 1, (size_t)n * 4);
  std::vector<int> h(n);
  unsigned s = 1;
  for (int i = 0; i < n; i++) h[i] = (int)(lcg(s) % n);
  cudaMemcpy(idx, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int grid = 8 * sms;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto run = [&](const char *name, double bytes, double per, auto launch) {
    std::vector<float> t;
    for (int r = 0; r < 32; r++) {
      cudaMemset(flush, r, (size_t)256 << 20);
      cudaEventRecord(e0);
      launch();
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (r >= 2) t.push_back(ms * 1000);
    }
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {   // a broken probe says so, not 0 us
      printf("%-34s failed: %s\n", name, cudaGetErrorString(err));
      return;
    }
    std::sort(t.begin(), t.end()); size_t k = t.size();
    if (bytes > 0)
      printf("%-34s median %9.2f us  p20-p80 %9.2f-%9.2f  %6.0f GB/s\n", name, t[k / 2], t[k / 5], t[4 * k / 5],
             bytes / (t[k / 2] * 1e3));
    else
      printf("%-34s median %9.2f us  p20-p80 %9.2f-%9.2f  %8.3f us per step\n", name, t[k / 2], t[k / 5],
             t[4 * k / 5], t[k / 2] / per);
  };
  run("copy (yardstick)", 8.0 * n, 1, [&] { copy<<<grid, 256>>>(n, x, y); });
  run("gather, random over 64 MiB", 12.0 * n, 1, [&] { gather<<<grid, 256>>>(n, idx, x, y); });
  run("gather, rows of 64 floats", 4.0 * rows + 8.0 * rows * d, 1,
      [&] { gather_rows<<<grid, 256>>>(rows, d, n / d, idx, x, y); });
  for (int nbins : {16, 256, 4096}) {
    for (int i = 0; i < n; i++) h[i] = (int)(lcg(s) % nbins);
    cudaMemcpy(keys, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
    char name[64];
    snprintf(name, sizeof name, "histogram, %d bins, global", nbins);
    run(name, 4.0 * n, 1, [&] { histogram<<<grid, 256>>>(n, keys, bins); });
    snprintf(name, sizeof name, "histogram, %d bins, per block", nbins);
    run(name, 4.0 * n, 1, [&] { histogram_shared<<<grid, 256, nbins * 4>>>(n, nbins, keys, bins); });
  }
  {   // Livermore 9's rows: 4M rows of 13 doubles, read whole (every 32-byte sector holds a read column), column 0
      // written; GB/s count the 11 columns as the loops report does
    const int prow = 1 << 22;
    double *pa; cudaMalloc(&pa, (size_t)prow * 13 * 8); cudaMemset(pa, 0, (size_t)prow * 13 * 8);
    run("rows of 13 doubles: read 10, write 1", 11.0 * 8 * prow, 1,
        [&] { row_column<<<(prow + 255) / 256, 256>>>(prow, pa, pa); });
    cudaFree(pa);
  }
  run("one empty launch, 1 block", 0, 1, [&] { empty<<<1, 32>>>(); });
  run("1000 empty launches, 1 block", 0, steps, [&] { for (int i = 0; i < steps; i++) empty<<<1, 32>>>(); });
  run("1000 empty launches, 4096 blocks", 0, steps, [&] { for (int i = 0; i < steps; i++) empty<<<4096, 256>>>(); });
  run("one block, 1000 steps of 2 barriers", 0, steps, [&] { barriers<<<1, 256>>>(steps, y); });
  return cudaGetLastError() != cudaSuccess;
}
