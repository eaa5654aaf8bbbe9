// A persistent jacobi-1d candidate: all time steps in one cooperative launch, each sweep a
// grid-stride loop, grid.sync() between the sweeps.  The grid is as many blocks as the device
// holds at once (occupancy x multiprocessors), never more than the interior needs: a larger
// cooperative grid would fail with cudaErrorCooperativeLaunchTooLarge.
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void jacobi_1d_persistent(int tsteps, int n, double *A, double *B)
{
  cg::grid_group grid = cg::this_grid();
  const long long first = (long long)grid.thread_rank() + 1, stride = (long long)grid.size();
  for (int t = 0; t < tsteps; t++) {
    for (long long i = first; i < n - 1; i += stride)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    grid.sync();   // every B[i] is written before any A[i] reads its neighbours
    for (long long i = first; i < n - 1; i += stride)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
    grid.sync();   // and every A[i] before the next step reads it
  }
}

extern "C" void kernel_jacobi_1d_device(int tsteps, int n, double *A, double *B)
{
  if (n < 3 || tsteps < 1) return;
  const int block = 32;   // one warp: the ladder's small sizes already span several blocks
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, jacobi_1d_persistent, block, 0);
  int needed = (n - 2 + block - 1) / block;
  int resident = multiprocessors * per_multiprocessor;
  int grid = needed < resident ? needed : resident;
  void *args[] = {&tsteps, &n, &A, &B};
  cudaLaunchCooperativeKernel((void *)jacobi_1d_persistent, dim3(grid), dim3(block), args, 0, 0);
}

extern "C" void kernel_jacobi_1d(int tsteps, int n, double *A, double *B)
{
  double *dA, *dB;
  size_t bytes = sizeof(double) * n;
  cudaMalloc(&dA, bytes); cudaMalloc(&dB, bytes);
  cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
  kernel_jacobi_1d_device(tsteps, n, dA, dB);
  cudaMemcpy(A, dA, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(B, dB, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA); cudaFree(dB);
}
