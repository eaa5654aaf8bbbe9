// Covers: cudaGetDeviceCount, cudaGetDevice, cudaGetDeviceProperties,
// cudaDeviceGetAttribute, using the properties to size a launch (grid from
// multiProcessorCount, grid-stride loop so the result does not depend on it).
// Only device-independent facts are printed (warp size, limits that every
// CUDA device of compute capability >= 3 has).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                         \
  do {                                                                      \
    cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                              \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__,      \
              __LINE__, cudaGetErrorString(err_));                          \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

__global__ void sum_squares(const int* x, unsigned long long* out, int n) {
  unsigned long long local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    local += (unsigned long long)x[i] * x[i];
  atomicAdd(out, local);
}

int main() {
  int count = 0, dev = -1;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaGetDevice(&dev));
  printf("at least one device: %s\n", count >= 1 ? "yes" : "no");
  printf("current device: %d\n", dev);
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, dev));
  printf("warpSize %d\n", p.warpSize);
  printf("maxThreadsPerBlock %d\n", p.maxThreadsPerBlock);
  printf("maxThreadsDim %d %d %d\n", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
  printf("maxGridSize y z %d %d\n", p.maxGridSize[1], p.maxGridSize[2]);
  printf("maxGridSize x >= 65535: %s\n", p.maxGridSize[0] >= 65535 ? "yes" : "no");
  printf("sharedMemPerBlock >= 48 KiB: %s\n", p.sharedMemPerBlock >= 49152 ? "yes" : "no");
  printf("totalConstMem >= 64 KiB: %s\n", p.totalConstMem >= 65536 ? "yes" : "no");
  printf("multiProcessorCount >= 1: %s\n", p.multiProcessorCount >= 1 ? "yes" : "no");
  printf("compute capability >= 3.0: %s\n", p.major >= 3 ? "yes" : "no");
  printf("name non-empty: %s\n", p.name[0] != '\0' ? "yes" : "no");
  int ws = 0, mtpb = 0;
  CHECK(cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, dev));
  CHECK(cudaDeviceGetAttribute(&mtpb, cudaDevAttrMaxThreadsPerBlock, dev));
  printf("attribute warp size %d max threads per block %d\n", ws, mtpb);

  const int n = 123457;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = i % 1000 - 500;
  int* d;
  unsigned long long* dout;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, sizeof(unsigned long long)));
  int threads = p.maxThreadsPerBlock >= 256 ? 256 : p.maxThreadsPerBlock;
  sum_squares<<<2 * p.multiProcessorCount, threads>>>(d, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned long long r;
  CHECK(cudaMemcpy(&r, dout, sizeof(r), cudaMemcpyDeviceToHost));
  printf("sum of squares %llu\n", r);
  CHECK(cudaFree(d));
  CHECK(cudaFree(dout));
  free(h);
  return 0;
}
