// The SM clock a short kernel runs at right after what t2c's bench rung does before each timed
// call, measured on the GPU itself: a one-thread kernel spins for 200 thousand SM cycles (100 us at 1980 MHz) (clock64)
// and reads the global nanosecond timer around it, so cycles / ns is the clock in GHz.
//   nvcc -O3 -arch=sm_90 -o /tmp/clock_probe scripts/clock_probe.cu && /tmp/clock_probe
// Before each spin, 40 times in turn: (idle) nothing; (flush) 256 MiB memset + synchronize, as the
// bench's L2 eviction; (host copy) 110 MB copied from pageable host memory, then the flush, as the
// bench restoring its inputs; (device copy) the same bytes copied from a device buffer instead,
// then the flush.  Prints the median and p20-p80 of each.  A measurement probe, not a test.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
__global__ void spin(unsigned long long *out)
{
  unsigned long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  while (clock64() - c0 < 200000) {}
  const long long c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  out[0] = c1 - c0; out[1] = t1 - t0;
}
int main()
{
  const size_t bytes = (size_t)110 << 20, flush_bytes = (size_t)256 << 20;
  std::vector<char> host(bytes, 1);
  void *dev, *pristine, *flush; unsigned long long *out, h[2];
  cudaMalloc(&dev, bytes); cudaMalloc(&pristine, bytes); cudaMalloc(&flush, flush_bytes); cudaMalloc(&out, 16);
  const char *names[4] = {"idle", "flush", "host copy", "device copy"};
  std::vector<double> ghz[4];
  for (int r = 0; r < 41; r++)
    for (int m = 0; m < 4; m++) {
      if (m == 2) cudaMemcpy(dev, host.data(), bytes, cudaMemcpyHostToDevice);
      if (m == 3) cudaMemcpy(dev, pristine, bytes, cudaMemcpyDeviceToDevice);
      if (m >= 1) cudaMemset(flush, 0, flush_bytes);
      cudaDeviceSynchronize();
      spin<<<1, 1>>>(out);
      cudaMemcpy(h, out, 16, cudaMemcpyDeviceToHost);
      if (r) ghz[m].push_back((double)h[0] / h[1]);
    }
  for (int m = 0; m < 4; m++) {
    std::sort(ghz[m].begin(), ghz[m].end());
    const size_t n = ghz[m].size();
    printf("%-12s SM clock %.3f GHz (p20-p80 %.3f-%.3f) over the 200k cycles after it\n", names[m], ghz[m][n / 2],
           ghz[m][n / 5], ghz[m][n * 4 / 5]);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
