// Covers: cudaMemset with byte values 0xFF, 0 and 0x01 (over whole buffers and a
// sub-range at an offset), cudaMemset on a char buffer, and grid-stride loops
// launched with far fewer threads than elements (7 blocks x 64 threads).
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

__global__ void grid_stride_axpy(int* y, const int* x, int a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void grid_stride_iota(int* x, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = i % 1000;
}

__global__ void count_bytes(const unsigned char* c, int n, int* count) {
  int local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    local += c[i];
  atomicAdd(count, local);
}

int main() {
  const int n = 100003;
  int *x, *y, *cnt;
  unsigned char* c;
  CHECK(cudaMalloc(&x, n * sizeof(int)));
  CHECK(cudaMalloc(&y, n * sizeof(int)));
  CHECK(cudaMalloc(&c, n));
  CHECK(cudaMalloc(&cnt, sizeof(int)));

  CHECK(cudaMemset(y, 0xFF, n * sizeof(int)));              // every int becomes -1
  CHECK(cudaMemset(y + 1000, 0, 500 * sizeof(int)));        // y[1000..1499] = 0
  CHECK(cudaMemset(y + 2000, 0x01, 3 * sizeof(int) + 2));   // 3 ints 0x01010101, 2 bytes
  grid_stride_iota<<<7, 64>>>(x, n);
  CHECK(cudaGetLastError());
  grid_stride_axpy<<<7, 64>>>(y, x, 3, n);
  CHECK(cudaGetLastError());

  CHECK(cudaMemset(c, 0, n));
  CHECK(cudaMemset(c + 10, 7, 90));
  CHECK(cudaMemset(cnt, 0, sizeof(int)));
  count_bytes<<<5, 96>>>(c, n, cnt);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  int* h = (int*)malloc(n * sizeof(int));
  int hc;
  CHECK(cudaMemcpy(h, y, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hc, cnt, sizeof(int), cudaMemcpyDeviceToHost));
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  printf("y[0] %d y[999] %d y[1000] %d y[1499] %d y[1500] %d\n", h[0], h[999], h[1000],
         h[1499], h[1500]);
  printf("y[2000] %d y[2002] %d y[2003] %d y[2004] %d\n", h[2000], h[2002], h[2003], h[2004]);
  printf("y[n-1] %d sum %lld\n", h[n - 1], sum);
  printf("byte sum %d\n", hc);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(c));
  CHECK(cudaFree(cnt));
  free(h);
  return 0;
}
