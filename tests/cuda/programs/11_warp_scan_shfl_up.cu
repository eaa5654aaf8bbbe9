// Covers: inclusive warp scan with __shfl_up_sync (lane >= offset guard), block
// scan combining per-warp totals in shared memory, then a three-launch
// multi-block scan (block scan -> scan of block totals -> add offsets).
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

#define BLOCK 256

__device__ __forceinline__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x & 31;
  for (int off = 1; off < 32; off <<= 1) {
    int up = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += up;
  }
  return v;
}

// Inclusive scan of each block; block totals to sums[blockIdx.x].
__global__ void block_scan(const int* in, int* out, int* sums, int n) {
  __shared__ int warp_tot[BLOCK / 32];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  int v = (g < n) ? in[g] : 0;
  v = warp_inclusive_scan(v);
  if (lane == 31) warp_tot[wid] = v;
  __syncthreads();
  if (wid == 0) {
    int t = (lane < BLOCK / 32) ? warp_tot[lane] : 0;
    t = warp_inclusive_scan(t);
    if (lane < BLOCK / 32) warp_tot[lane] = t;
  }
  __syncthreads();
  if (wid > 0) v += warp_tot[wid - 1];
  if (g < n) out[g] = v;
  if (threadIdx.x == BLOCK - 1) sums[blockIdx.x] = v;
}

__global__ void add_offsets(int* out, const int* scanned_sums, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && g < n) out[g] += scanned_sums[blockIdx.x - 1];
}

int main() {
  const int n = 50000;
  const int blocks = (n + BLOCK - 1) / BLOCK;  // 196 <= BLOCK, one block scans the sums
  int* h = (int*)malloc(n * sizeof(int));
  int* r = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (int)(((long long)i * i * 11 + 3 * i) % 19) - 8;
  int *din, *dout, *dsums, *dsums_scan, *ddummy;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMalloc(&dsums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&dsums_scan, blocks * sizeof(int)));
  CHECK(cudaMalloc(&ddummy, sizeof(int)));
  CHECK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
  block_scan<<<blocks, BLOCK>>>(din, dout, dsums, n);
  CHECK(cudaGetLastError());
  block_scan<<<1, BLOCK>>>(dsums, dsums_scan, ddummy, blocks);
  CHECK(cudaGetLastError());
  add_offsets<<<blocks, BLOCK>>>(dout, dsums_scan, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(r, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long acc = 0, cs = 0;
  int bad = 0, mn = 0, mx = 0;
  for (int i = 0; i < n; ++i) {
    acc += h[i];
    if (r[i] != acc) ++bad;
    cs += (long long)r[i] * (i % 5 + 1);
    if (r[i] < mn) mn = r[i];
    if (r[i] > mx) mx = r[i];
  }
  printf("scan[31] %d scan[32] %d scan[255] %d scan[256] %d scan[%d] %d\n", r[31], r[32],
         r[255], r[256], n - 1, r[n - 1]);
  printf("min %d max %d checksum %lld mismatches %d\n", mn, mx, cs, bad);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsums));
  CHECK(cudaFree(dsums_scan));
  CHECK(cudaFree(ddummy));
  free(h);
  free(r);
  return bad != 0;
}
