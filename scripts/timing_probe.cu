// How much of a short kernel's measured time is the timing method's (issue #36: every
// elementwise spec timed 1.6-1.8x PyTorch's time for the same pass over the data).  One pass
// over 16 Mi floats (relu, 128 MiB of traffic), an empty kernel, and a device copy, each timed
// 30 times after the bench rung's L2 eviction (a 256 MiB memset) in two ways:
//   idle:   evict; cudaDeviceSynchronize; record e0; launch; record e1  (the bench rung before)
//   queued: evict; record e0; launch; record e1 (the host enqueues while the eviction runs: the
//           method of torch.cuda.Event timing and triton's do_bench)
// Prints the median and p20-p80 of each, in microseconds.  A measurement probe, not a test.
//   nvcc -O3 -arch=sm_90 -o /tmp/timing_probe scripts/timing_probe.cu && /tmp/timing_probe
#include <cstdio>
#include <vector>
#include <algorithm>

__global__ void relu(int n, const float *x, float *y)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
__global__ void empty() {}

int main()
{
  const int n = 1 << 24;
  float *x, *y;
  void *flush;
  cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&flush, (size_t)256 << 20);
  cudaMemset(x, 1, n * sizeof(float));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const char *what[] = {"relu 16Mi floats", "empty kernel", "device copy 64 MiB"};
  for (int w = 0; w < 3; w++)
    for (int idle = 1; idle >= 0; idle--) {
      std::vector<float> t;
      for (int r = 0; r < 32; r++) {
        cudaMemset(flush, r, (size_t)256 << 20);
        if (idle) cudaDeviceSynchronize();
        cudaEventRecord(e0);
        if (w == 0) relu<<<(n + 255) / 256, 256>>>(n, x, y);
        else if (w == 1) empty<<<1, 32>>>();
        else cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 2) t.push_back(ms * 1000);
      }
      std::sort(t.begin(), t.end());
      size_t k = t.size();
      printf("%-20s %-6s median %8.2f us  p20-p80 %8.2f-%8.2f\n", what[w], idle ? "idle" : "queued",
             t[k / 2], t[k / 5], t[4 * k / 5]);
    }
  return cudaGetLastError() != cudaSuccess;
}
