// Covers: dynamic shared memory (extern __shared__ sized by the launch's third
// argument): an in-block reversal, one dynamic buffer carved into a float array
// and an int array, and the same reduction kernel launched with two different
// block sizes / shared sizes.
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

__global__ void reverse_block(int* data) {
  extern __shared__ int buf[];
  int t = threadIdx.x;
  int base = blockIdx.x * blockDim.x;
  buf[t] = data[base + t];
  __syncthreads();
  data[base + t] = buf[blockDim.x - 1 - t];
}

// Dynamic buffer holds blockDim.x floats followed by blockDim.x ints.
__global__ void carve(const int* in, int* out) {
  extern __shared__ unsigned char raw[];
  float* f = reinterpret_cast<float*>(raw);
  int* k = reinterpret_cast<int*>(f + blockDim.x);
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  f[t] = (float)in[g] * 2.0f;
  k[t] = in[g] + 1;
  __syncthreads();
  int nb = (t + 1) % blockDim.x;  // neighbour in the block, wrapping
  out[g] = (int)f[nb] + k[blockDim.x - 1 - t];
}

__global__ void block_sum(const int* in, int* out, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  s[t] = g < n ? in[g] : 0;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
  const int n = 1024;
  int h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = (i * 31 + 7) % 97;
  int *d, *d2, *dsum;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&d2, n * sizeof(int)));
  CHECK(cudaMalloc(&dsum, n * sizeof(int)));

  // 1. reversal within blocks of 64
  CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  reverse_block<<<n / 64, 64, 64 * sizeof(int)>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (r[i] != h[(i / 64) * 64 + 63 - i % 64]) ++bad;
  printf("reverse: r[0]=%d r[63]=%d r[64]=%d mismatches=%d\n", r[0], r[63], r[64], bad);

  // 2. carved buffer, blocks of 128
  CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  carve<<<n / 128, 128, 128 * (sizeof(float) + sizeof(int))>>>(d, d2);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, d2, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long cs = 0;
  for (int i = 0; i < n; ++i) cs += (long long)r[i] * (i % 7 + 1);
  printf("carve: r[0]=%d r[127]=%d r[1000]=%d checksum=%lld\n", r[0], r[127], r[1000], cs);

  // 3. same kernel, two block sizes, shared size from the launch
  const int sizes[2] = {32, 256};
  for (int v = 0; v < 2; ++v) {
    int bs = sizes[v];
    int m = 1000;  // not a multiple of either block size
    int blocks = (m + bs - 1) / bs;
    block_sum<<<blocks, bs, bs * sizeof(int)>>>(d, dsum, m);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, dsum, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long tot = 0;
    for (int b = 0; b < blocks; ++b) tot += r[b];
    printf("block_sum bs=%d blocks=%d first=%d last=%d total=%lld\n", bs, blocks, r[0],
           r[blocks - 1], tot);
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d));
  CHECK(cudaFree(d2));
  CHECK(cudaFree(dsum));
  return bad != 0;
}
