// Covers: 1-D stencil of radius 3 with a shared-memory tile plus halo cells
// loaded by the first RADIUS threads of the block, clamped boundaries, a size
// that is not a multiple of the block, weighted integer stencil, repeated 5
// times with ping-pong buffers; compared against a plain global-memory kernel.
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

#define RADIUS 3
#define BLOCK 128

__device__ __forceinline__ int clampi(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

__global__ void stencil_shared(const int* in, int* out, int n) {
  __shared__ int s[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  s[l] = in[clampi(g, n)];
  if (threadIdx.x < RADIUS) {
    s[l - RADIUS] = in[clampi(g - RADIUS, n)];
    s[l + BLOCK] = in[clampi(g + BLOCK, n)];
  }
  __syncthreads();
  if (g >= n) return;
  int acc = 0;
  for (int k = -RADIUS; k <= RADIUS; ++k) acc += (RADIUS + 1 - (k < 0 ? -k : k)) * s[l + k];
  out[g] = acc % 100003;
}

__global__ void stencil_global(const int* in, int* out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  int acc = 0;
  for (int k = -RADIUS; k <= RADIUS; ++k)
    acc += (RADIUS + 1 - (k < 0 ? -k : k)) * in[clampi(g + k, n)];
  out[g] = acc % 100003;
}

int main() {
  const int n = 10000, steps = 5;
  const int blocks = (n + BLOCK - 1) / BLOCK;
  int* h = (int*)malloc(n * sizeof(int));
  int* r1 = (int*)malloc(n * sizeof(int));
  int* r2 = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 7907) % 1013;
  int *a, *b, *c, *d;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(cudaMalloc(&c, n * sizeof(int)));
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMemcpy(a, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(c, h, n * sizeof(int), cudaMemcpyHostToDevice));
  for (int s = 0; s < steps; ++s) {
    stencil_shared<<<blocks, BLOCK>>>(a, b, n);
    CHECK(cudaGetLastError());
    stencil_global<<<blocks, BLOCK>>>(c, d, n);
    CHECK(cudaGetLastError());
    int* t = a; a = b; b = t;
    t = c; c = d; d = t;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(r1, a, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(r2, c, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long cs = 0;
  int diff = 0;
  for (int i = 0; i < n; ++i) {
    cs += (long long)r1[i] * (i % 10 + 1);
    diff += r1[i] != r2[i];
  }
  printf("out[0] %d out[127] %d out[128] %d out[%d] %d\n", r1[0], r1[127], r1[128], n - 1, r1[n - 1]);
  printf("checksum %lld shared-vs-global differences %d\n", cs, diff);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(d));
  free(h);
  free(r1);
  free(r2);
  return 0;
}
