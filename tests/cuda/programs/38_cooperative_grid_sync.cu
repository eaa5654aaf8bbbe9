// Covers: a persistent kernel started with cudaLaunchCooperativeKernel, cooperative_groups'
// this_grid() (thread_rank, size, is_valid, sync) and this_thread_block() (sync), grid-stride
// loops, and the cooperative launch's limit: the grid is sized from
// cudaOccupancyMaxActiveBlocksPerMultiprocessor x cudaDevAttrMultiProcessorCount, and one block
// more fails with cudaErrorCooperativeLaunchTooLarge without running.  An integer ring stencil
// (exact, so the text does not depend on the GPU or the grid size) runs all its steps in one launch.
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void ring(int n, int steps, long long *a, long long *b, int *info)
{
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  if (grid.thread_rank() == 0) {
    info[0] = grid.is_valid();
    info[1] = grid.size() == (unsigned long long)gridDim.x * blockDim.x;
    info[2] += 1;   // launches that ran
  }
  for (int t = 0; t < steps; ++t) {
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
      b[i] = (a[(i + n - 1) % n] + 2 * a[i] + a[(i + 1) % n] + t) % 1000003;
    grid.sync();
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
      a[i] = b[i];
    block.sync();
    grid.sync();
  }
}

int main()
{
  const int n = 50000, steps = 12, threads = 256;
  static long long h[n], r[n], tmp[n];
  for (int i = 0; i < n; ++i) h[i] = r[i] = (i * 7919LL) % 1000;
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) tmp[i] = (r[(i + n - 1) % n] + 2 * r[i] + r[(i + 1) % n] + t) % 1000003;
    for (int i = 0; i < n; ++i) r[i] = tmp[i];
  }
  long long *a, *b;
  int *info, hinfo[3] = {0, 0, 0};
  cudaMalloc(&a, sizeof h);
  cudaMalloc(&b, sizeof h);
  cudaMalloc(&info, sizeof hinfo);
  cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(info, hinfo, sizeof hinfo, cudaMemcpyHostToDevice);
  int device = 0, cooperative = 0, multiprocessors = 0, per_multiprocessor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
  cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, ring, threads, 0);
  printf("cooperative launch supported: %s\n", cooperative ? "yes" : "no");
  printf("at least one block per multiprocessor: %s\n", per_multiprocessor >= 1 ? "yes" : "no");
  int nn = n, ss = steps;
  void *args[] = {&nn, &ss, &a, &b, &info};
  cudaError_t e = cudaLaunchCooperativeKernel((void *)ring, dim3(multiprocessors * per_multiprocessor + 1),
                                              dim3(threads), args, 0, 0);
  printf("one block more than the device holds: %s\n", cudaGetErrorName(e));
  printf("cudaGetLastError after it: %s\n", cudaGetErrorName(cudaGetLastError()));
  e = cudaLaunchCooperativeKernel((void *)ring, dim3(multiprocessors * per_multiprocessor), dim3(threads), args, 0, 0);
  printf("a grid the device holds: %s\n", cudaGetErrorName(e));
  cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost);
  int mismatches = 0;
  long long checksum = 0;
  for (int i = 0; i < n; ++i) {
    mismatches += h[i] != r[i];
    checksum = (checksum * 31 + h[i]) % 1000000007;
  }
  printf("launches that ran %d, is_valid %d, size = blocks x threads %d\n", hinfo[2], hinfo[0], hinfo[1]);
  printf("%d steps of %d points: %d mismatches, checksum %lld\n", steps, n, mismatches, checksum);
  cudaFree(a);
  cudaFree(b);
  cudaFree(info);
  return 0;
}
