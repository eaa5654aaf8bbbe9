// Covers: warp vote functions __ballot_sync, __any_sync, __all_sync, __activemask
// (full warps and the partial last warp of a 48-thread block), __popc on ballot
// masks, and the bit intrinsics __clz, __ffs, __brev, __popcll.
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

// One record of 6 words per warp.
__global__ void vote(const int* in, unsigned* out) {
  unsigned active = __activemask();  // first statement: all existing lanes converged
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int wblk = threadIdx.x >> 5;
  int warps_per_block = (blockDim.x + 31) / 32;
  int w = blockIdx.x * warps_per_block + wblk;
  int v = in[g];
  unsigned odd = __ballot_sync(active, v & 1);
  int anyneg = __any_sync(active, v < -8);
  int allsmall = __all_sync(active, v < 90);
  unsigned big = __ballot_sync(active, v > 50);
  if (lane == 0) {
    out[w * 6 + 0] = active;
    out[w * 6 + 1] = odd;
    out[w * 6 + 2] = (unsigned)__popc(odd);
    out[w * 6 + 3] = (unsigned)anyneg;
    out[w * 6 + 4] = (unsigned)allsmall;
    out[w * 6 + 5] = big;
  }
}

__global__ void bits(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned x = in[i];
    unsigned long long y = ((unsigned long long)x << 32) | (x ^ 0xA5A5A5A5u);
    out[4 * i + 0] = (unsigned)__clz((int)x);
    out[4 * i + 1] = (unsigned)__ffs((int)x);
    out[4 * i + 2] = __brev(x);
    out[4 * i + 3] = (unsigned)__popcll(y);
  }
}

int main() {
  const int blocks = 3, bs = 48, n = blocks * bs;
  const int warps = blocks * 2;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 53 + 17) % 101 - 10;  // -10..90
  h[40] = 95;  // an out-of-range value in the partial warp of block 0
  int* din;
  unsigned* dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, warps * 6 * sizeof(unsigned)));
  CHECK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
  vote<<<blocks, bs>>>(din, dout);
  CHECK(cudaGetLastError());
  unsigned o[warps * 6];
  CHECK(cudaMemcpy(o, dout, sizeof(o), cudaMemcpyDeviceToHost));
  for (int w = 0; w < warps; ++w)
    printf("warp %d active %08x odd %08x popc %u any_lt-8 %u all_lt90 %u gt50 %08x\n", w,
           o[w * 6], o[w * 6 + 1], o[w * 6 + 2], o[w * 6 + 3], o[w * 6 + 4], o[w * 6 + 5]);

  const int m = 6;
  unsigned hx[m] = {1u, 0x80000000u, 0x00F0F000u, 0xDEADBEEFu, 12345678u, 0u};
  unsigned *dx, *dbits;
  CHECK(cudaMalloc(&dx, sizeof(hx)));
  CHECK(cudaMalloc(&dbits, 4 * m * sizeof(unsigned)));
  CHECK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
  bits<<<1, 32>>>(dx, dbits, m);
  CHECK(cudaGetLastError());
  unsigned ob[4 * m];
  CHECK(cudaMemcpy(ob, dbits, sizeof(ob), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i)
    printf("x %08x clz %u ffs %u brev %08x popcll %u\n", hx[i], ob[4 * i], ob[4 * i + 1],
           ob[4 * i + 2], ob[4 * i + 3]);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dbits));
  return 0;
}
