// Covers: 2-D convolution with a 5x5 integer mask in __constant__ memory, zero
// padding at the image border, 16x16 blocks on a 67x45 image (partial blocks),
// a second version that stages the input tile plus halo in shared memory
// (cooperative strided loads, __syncthreads), and comparison of both versions.
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

#define R 2
#define K (2 * R + 1)
#define B 16

__constant__ int c_mask[K * K];

__global__ void conv_global(const int* in, int* out, int w, int h) {
  int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
  if (x >= w || y >= h) return;
  int acc = 0;
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx) {
      int xx = x + dx, yy = y + dy;
      if (xx >= 0 && xx < w && yy >= 0 && yy < h) acc += c_mask[(dy + R) * K + dx + R] * in[yy * w + xx];
    }
  out[y * w + x] = acc;
}

__global__ void conv_shared(const int* in, int* out, int w, int h) {
  __shared__ int tile[B + 2 * R][B + 2 * R];
  int x0 = blockIdx.x * B - R, y0 = blockIdx.y * B - R;
  int tid = threadIdx.y * B + threadIdx.x;
  for (int k = tid; k < (B + 2 * R) * (B + 2 * R); k += B * B) {
    int ty = k / (B + 2 * R), tx = k % (B + 2 * R);
    int xx = x0 + tx, yy = y0 + ty;
    tile[ty][tx] = (xx >= 0 && xx < w && yy >= 0 && yy < h) ? in[yy * w + xx] : 0;
  }
  __syncthreads();
  int x = blockIdx.x * B + threadIdx.x, y = blockIdx.y * B + threadIdx.y;
  if (x >= w || y >= h) return;
  int acc = 0;
  for (int dy = 0; dy < K; ++dy)
    for (int dx = 0; dx < K; ++dx) acc += c_mask[dy * K + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
  out[y * w + x] = acc;
}

int main() {
  const int w = 67, h = 45, n = w * h;
  int mask[K * K];
  for (int i = 0; i < K * K; ++i) mask[i] = (i * 7) % 5 - 2;
  CHECK(cudaMemcpyToSymbol(c_mask, mask, sizeof(mask)));
  int* img = (int*)malloc(n * sizeof(int));
  int* o1 = (int*)malloc(n * sizeof(int));
  int* o2 = (int*)malloc(n * sizeof(int));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[y * w + x] = (x * x + 3 * y + x * y) % 256;
  int *din, *d1, *d2;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&d1, n * sizeof(int)));
  CHECK(cudaMalloc(&d2, n * sizeof(int)));
  CHECK(cudaMemcpy(din, img, n * sizeof(int), cudaMemcpyHostToDevice));
  dim3 block(B, B), grid((w + B - 1) / B, (h + B - 1) / B);
  conv_global<<<grid, block>>>(din, d1, w, h);
  CHECK(cudaGetLastError());
  conv_shared<<<grid, block>>>(din, d2, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(o1, d1, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o2, d2, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long cs = 0;
  int diff = 0;
  for (int i = 0; i < n; ++i) {
    cs += (long long)o1[i] * (i % 17 + 1);
    diff += (o1[i] != o2[i]);
  }
  printf("out[0][0] %d out[22][33] %d out[44][66] %d out[1][66] %d\n", o1[0], o1[22 * w + 33],
         o1[44 * w + 66], o1[w + 66]);
  printf("checksum %lld global-vs-shared differences %d\n", cs, diff);
  CHECK(cudaFree(din));
  CHECK(cudaFree(d1));
  CHECK(cudaFree(d2));
  free(img);
  free(o1);
  free(o2);
  return 0;
}
