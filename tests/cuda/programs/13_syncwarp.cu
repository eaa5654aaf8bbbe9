// Covers: __syncwarp used correctly: a warp-level shared-memory reduction with
// __syncwarp between the read and the write of every step, and a warp-local
// rotation through shared memory (write, __syncwarp, read neighbour, __syncwarp,
// overwrite) repeated several times.
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

#define BLOCK 128

// Block reduction whose last 64 -> 1 steps run inside warp 0 with __syncwarp.
__global__ void reduce_syncwarp(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * BLOCK + t];
  __syncthreads();
  if (t < 64) s[t] += s[t + 64];
  __syncthreads();
  if (t < 32) {
    int v = s[t];
    for (int off = 32; off > 0; off >>= 1) {
      v += s[t + off];
      __syncwarp();                       // all reads of this step done
      s[t] = v;
      __syncwarp();                       // all writes of this step visible
    }
    if (t == 0) out[blockIdx.x] = s[0];
  }
}

// Each warp rotates its 32 values left by one position, `steps` times.
__global__ void rotate(int* data, int steps) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  int lane = t & 31, base = t - lane;
  int v = data[blockIdx.x * BLOCK + t];
  for (int k = 0; k < steps; ++k) {
    s[t] = v;
    __syncwarp();
    v = s[base + ((lane + 1) & 31)];
    __syncwarp();
  }
  data[blockIdx.x * BLOCK + t] = v;
}

int main() {
  const int blocks = 10, n = blocks * BLOCK;
  int* h = (int*)malloc(n * sizeof(int));
  int* r = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 29 + 5) % 61;
  int *d, *dout;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  reduce_syncwarp<<<blocks, BLOCK>>>(d, dout);
  CHECK(cudaGetLastError());
  int sums[blocks];
  CHECK(cudaMemcpy(sums, dout, sizeof(sums), cudaMemcpyDeviceToHost));
  printf("block sums");
  for (int b = 0; b < blocks; ++b) printf(" %d", sums[b]);
  printf("\n");

  rotate<<<blocks, BLOCK>>>(d, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  long long cs = 0;
  for (int i = 0; i < n; ++i) {
    int base = i & ~31;
    if (r[i] != h[base + (((i & 31) + 5) & 31)]) ++bad;
    cs += (long long)r[i] * (i + 1);
  }
  printf("rotate checksum %lld mismatches %d\n", cs, bad);
  CHECK(cudaFree(d));
  CHECK(cudaFree(dout));
  free(h);
  free(r);
  return bad != 0;
}
