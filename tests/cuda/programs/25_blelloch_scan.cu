// Covers: work-efficient (Blelloch) exclusive prefix scan in shared memory:
// up-sweep and down-sweep phases with __syncthreads at every level, 2 elements
// per thread, zero padding of a partial last block, block totals scanned by a
// second launch of the same kernel, then a third kernel adding block offsets.
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

#define THREADS 256
#define ELEMS (2 * THREADS)

__global__ void blelloch(const int* in, int* out, int* block_sums, int n) {
  __shared__ int t[ELEMS];
  int tid = threadIdx.x;
  int base = blockIdx.x * ELEMS;
  t[2 * tid] = (base + 2 * tid < n) ? in[base + 2 * tid] : 0;
  t[2 * tid + 1] = (base + 2 * tid + 1 < n) ? in[base + 2 * tid + 1] : 0;
  int offset = 1;
  for (int d = ELEMS >> 1; d > 0; d >>= 1) {  // up-sweep
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      t[bi] += t[ai];
    }
    offset <<= 1;
  }
  if (tid == 0) {
    if (block_sums) block_sums[blockIdx.x] = t[ELEMS - 1];
    t[ELEMS - 1] = 0;
  }
  for (int d = 1; d < ELEMS; d <<= 1) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      int v = t[ai];
      t[ai] = t[bi];
      t[bi] += v;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = t[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = t[2 * tid + 1];
}

__global__ void add_block_offsets(int* out, const int* offs, int n) {
  int i = blockIdx.x * ELEMS + threadIdx.x;
  int add = offs[blockIdx.x];
  if (i < n) out[i] += add;
  if (i + THREADS < n) out[i + THREADS] += add;
}

int main() {
  const int n = 100000;
  const int blocks = (n + ELEMS - 1) / ELEMS;  // 196 <= ELEMS: one block scans the sums
  int* h = (int*)malloc(n * sizeof(int));
  int* r = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 17 + i / 100) % 23;
  int *din, *dout, *dsums, *doffs;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMalloc(&dsums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&doffs, blocks * sizeof(int)));
  CHECK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
  blelloch<<<blocks, THREADS>>>(din, dout, dsums, n);
  CHECK(cudaGetLastError());
  blelloch<<<1, THREADS>>>(dsums, doffs, nullptr, blocks);
  CHECK(cudaGetLastError());
  add_block_offsets<<<blocks, THREADS>>>(dout, doffs, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(r, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long acc = 0, cs = 0;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    if (r[i] != acc) ++bad;
    acc += h[i];
    cs += (long long)r[i] % 1000003;
  }
  printf("out[0] %d out[1] %d out[511] %d out[512] %d out[%d] %d\n", r[0], r[1], r[511], r[512],
         n - 1, r[n - 1]);
  printf("total %lld checksum %lld mismatches %d\n", acc, cs, bad);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsums));
  CHECK(cudaFree(doffs));
  free(h);
  free(r);
  return bad != 0;
}
