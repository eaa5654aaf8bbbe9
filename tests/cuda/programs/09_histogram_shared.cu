// Covers: 256-bin histogram with a per-block shared-memory histogram (shared
// atomicAdd on unsigned), zeroing and merging loops strided by blockDim,
// __syncthreads between phases, grid-stride input loop over bytes, and a
// merge into global memory with atomicAdd.
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

#define BINS 256

__global__ void histo(const unsigned char* data, int n, unsigned* global_bins) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&global_bins[b], local[b]);
}

int main() {
  const int n = 1 << 20;
  unsigned char* h = (unsigned char*)malloc(n);
  unsigned x = 12345u;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;          // LCG, uint32 wraparound
    unsigned r = (x >> 16) & 0xFFu;
    h[i] = (unsigned char)((r * r) >> 8);  // skewed towards small bins
  }
  unsigned char* d;
  unsigned* dbins;
  CHECK(cudaMalloc(&d, n));
  CHECK(cudaMalloc(&dbins, BINS * sizeof(unsigned)));
  CHECK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dbins, 0, BINS * sizeof(unsigned)));
  histo<<<40, 192>>>(d, n, dbins);  // 192 threads: bins loop is not one-per-thread
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned bins[BINS];
  CHECK(cudaMemcpy(bins, dbins, sizeof(bins), cudaMemcpyDeviceToHost));

  unsigned long long total = 0, weighted = 0;
  unsigned maxc = 0;
  int argmax = 0, empty = 0;
  for (int b = 0; b < BINS; ++b) {
    total += bins[b];
    weighted += (unsigned long long)bins[b] * (b + 1);
    if (bins[b] > maxc) { maxc = bins[b]; argmax = b; }
    if (bins[b] == 0) ++empty;
  }
  printf("total %llu weighted %llu\n", total, weighted);
  printf("max bin %d count %u empty bins %d\n", argmax, maxc, empty);
  printf("bins[0..7]");
  for (int b = 0; b < 8; ++b) printf(" %u", bins[b]);
  printf("\nbins[248..255]");
  for (int b = 248; b < 256; ++b) printf(" %u", bins[b]);
  printf("\n");
  CHECK(cudaFree(d));
  CHECK(cudaFree(dbins));
  free(h);
  return 0;
}
