// Covers: kernels whose element counts are not multiples of the block size and
// rely on bounds checks: 1-D vector add (n = 1000, blocks of 128), a 2-D matrix
// op on 33x17 with 16x16 blocks, and a 1-element launch; sentinel values
// written after the end of each logical array must remain untouched.
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

#define PAD 64
#define SENTINEL 0x5EA5EA

__global__ void vadd(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void mat_op(int* m, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) m[r * cols + c] = r * c - (r + c);
}

__global__ void single(int* x) { x[0] += 41; }

int count_sentinels(const int* h, int from, int to) {
  int k = 0;
  for (int i = from; i < to; ++i) k += (h[i] == SENTINEL);
  return k;
}

int main() {
  const int n = 1000;
  int* h = (int*)malloc((n + PAD) * sizeof(int));
  int *a, *b, *c;
  CHECK(cudaMalloc(&a, (n + PAD) * sizeof(int)));
  CHECK(cudaMalloc(&b, (n + PAD) * sizeof(int)));
  CHECK(cudaMalloc(&c, (n + PAD) * sizeof(int)));
  for (int i = 0; i < n + PAD; ++i) h[i] = i < n ? i * 3 : SENTINEL;
  CHECK(cudaMemcpy(a, h, (n + PAD) * sizeof(int), cudaMemcpyHostToDevice));
  for (int i = 0; i < n + PAD; ++i) h[i] = i < n ? 1000 - 2 * i : SENTINEL;
  CHECK(cudaMemcpy(b, h, (n + PAD) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(c, h, (n + PAD) * sizeof(int), cudaMemcpyHostToDevice));
  vadd<<<(n + 127) / 128, 128>>>(a, b, c, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, c, (n + PAD) * sizeof(int), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  printf("vadd: launched %d threads for %d elements, sum %lld, c[999] %d, sentinels intact %d/%d\n",
         ((n + 127) / 128) * 128, n, s, h[n - 1], count_sentinels(h, n, n + PAD), PAD);

  const int rows = 33, cols = 17, m = rows * cols;
  int* dm;
  CHECK(cudaMalloc(&dm, (m + PAD) * sizeof(int)));
  for (int i = 0; i < m + PAD; ++i) h[i] = SENTINEL;
  CHECK(cudaMemcpy(dm, h, (m + PAD) * sizeof(int), cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  mat_op<<<grid, block>>>(dm, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dm, (m + PAD) * sizeof(int), cudaMemcpyDeviceToHost));
  s = 0;
  for (int i = 0; i < m; ++i) s += h[i];
  printf("mat_op: grid %ux%u, sum %lld, m[32][16] %d, untouched inside %d, sentinels intact %d/%d\n",
         grid.x, grid.y, s, h[32 * cols + 16], count_sentinels(h, 0, m),
         count_sentinels(h, m, m + PAD), PAD);

  int one = 1;
  CHECK(cudaMemcpy(dm, &one, sizeof(int), cudaMemcpyHostToDevice));
  single<<<1, 1>>>(dm);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&one, dm, sizeof(int), cudaMemcpyDeviceToHost));
  printf("single thread: %d\n", one);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(dm));
  free(h);
  return 0;
}
