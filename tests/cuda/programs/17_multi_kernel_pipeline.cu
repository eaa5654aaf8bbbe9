// Covers: a multi-kernel pipeline on the default stream: init -> host loop of
// 40 launches of an in-place update -> elementwise combine of two buffers ->
// gather through an index array -> reduction; results of each launch feed the
// next with no host copies in between (implicit ordering of the default stream).
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

__global__ void init(int* a, int* b, int* idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = i % 1009;
    b[i] = (n - i) % 911;
    idx[i] = (int)(((long long)i * 7 + 3) % n);  // a permutation when gcd(7, n) == 1
  }
}

__global__ void step(int* a, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = (a[i] * 3 + k + (i & 7)) % 10007;
}

__global__ void combine(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] - 2 * b[i];
}

__global__ void gather(const int* c, const int* idx, int* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = c[idx[i]] * ((i & 1) ? 1 : -1);
}

__global__ void reduce(const int* d, long long* out, int n) {
  __shared__ long long s[256];
  int t = threadIdx.x;
  long long acc = 0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc += d[i];
  s[t] = acc;
  __syncthreads();
  for (int st = 128; st > 0; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    __syncthreads();
  }
  if (t == 0) atomicAdd((unsigned long long*)out, (unsigned long long)s[0]);
}

int main() {
  const int n = 30001;
  const int bs = 256, blocks = (n + bs - 1) / bs;
  int *a, *b, *c, *d, *idx;
  long long* out;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(cudaMalloc(&c, n * sizeof(int)));
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&idx, n * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(long long)));
  CHECK(cudaMemset(out, 0, sizeof(long long)));
  init<<<blocks, bs>>>(a, b, idx, n);
  CHECK(cudaGetLastError());
  for (int k = 0; k < 40; ++k) {
    step<<<blocks, bs>>>(a, n, k);
    CHECK(cudaGetLastError());
  }
  combine<<<blocks, bs>>>(a, b, c, n);
  CHECK(cudaGetLastError());
  gather<<<blocks, bs>>>(c, idx, d, n);
  CHECK(cudaGetLastError());
  reduce<<<16, 256>>>(d, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  long long total;
  int ha[4], hd[4];
  CHECK(cudaMemcpy(&total, out, sizeof(total), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ha, a, sizeof(ha), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hd, d + n - 4, sizeof(hd), cudaMemcpyDeviceToHost));
  printf("a[0..3] %d %d %d %d\n", ha[0], ha[1], ha[2], ha[3]);
  printf("d[n-4..n-1] %d %d %d %d\n", hd[0], hd[1], hd[2], hd[3]);
  printf("total %lld\n", total);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(d));
  CHECK(cudaFree(idx));
  CHECK(cudaFree(out));
  return 0;
}
