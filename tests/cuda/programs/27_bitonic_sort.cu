// Covers: bitonic sort of 1024 keys per block in shared memory with 512 threads
// (each thread handles one compare-exchange pair per step), nested k/j loops
// with __syncthreads after every step, ascending for even blocks and descending
// for odd blocks, padding of a partial last segment with sentinels.
#include <cstdio>
#include <cstdlib>
#include <climits>
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

#define N 1024

__global__ void bitonic(int* data, int n) {
  __shared__ int s[N];
  int base = blockIdx.x * N;
  bool desc = blockIdx.x & 1;
  int pad = desc ? INT_MIN : INT_MAX;  // sentinels end up past the real keys
  for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = (base + i < n) ? data[base + i] : pad;
  __syncthreads();
  for (int k = 2; k <= N; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int t = threadIdx.x;                        // pair index 0..N/2-1
      int i = 2 * t - (t & (j - 1));              // lower element of the pair
      int p = i + j;                              // partner
      bool up = ((i & k) == 0) != desc;
      int a = s[i], b = s[p];
      if ((a > b) == up) {
        s[i] = b;
        s[p] = a;
      }
      __syncthreads();
    }
  }
  for (int i = threadIdx.x; i < N; i += blockDim.x)
    if (base + i < n) data[base + i] = s[i];
}

int main() {
  const int n = 3 * N + 500;  // last block only partially filled
  const int blocks = (n + N - 1) / N;
  int* h = (int*)malloc(n * sizeof(int));
  int* r = (int*)malloc(n * sizeof(int));
  unsigned x = 2463534242u;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;  // xorshift32
    h[i] = (int)(x % 20001u) - 10000;
  }
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  bitonic<<<blocks, N / 2>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(r, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    int lo = b * N, hi = (b + 1) * N < n ? (b + 1) * N : n;
    bool desc = b & 1;
    int unsorted = 0;
    long long sin = 0, sout = 0;
    for (int i = lo; i < hi; ++i) {
      sin += h[i];
      sout += r[i];
      if (i > lo && (desc ? r[i - 1] < r[i] : r[i - 1] > r[i])) ++unsorted;
    }
    printf("block %d %s first %d mid %d last %d unsorted %d sum-equal %s\n", b,
           desc ? "desc" : "asc", r[lo], r[(lo + hi) / 2], r[hi - 1], unsorted,
           sin == sout ? "yes" : "no");
  }
  CHECK(cudaFree(d));
  free(h);
  free(r);
  return 0;
}
