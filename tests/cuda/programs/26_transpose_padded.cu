// Covers: matrix transpose through a padded shared-memory tile
// (__shared__ float tile[32][33] to avoid bank conflicts), 32x8 thread blocks
// each moving a 32x32 tile in 4 row passes, __syncthreads between the load and
// the store phases, and a rectangular matrix whose sizes are not multiples of 32.
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

#define TILE 32
#define ROWS 8

// in: rows x cols, out: cols x rows
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;  // column in `in`
  int y = blockIdx.y * TILE + threadIdx.y;  // row in `in`
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // column in `out`
  y = blockIdx.x * TILE + threadIdx.y;  // row in `out`
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int rows = 100, cols = 75;
  float* a = (float*)malloc(rows * cols * sizeof(float));
  float* t = (float*)malloc(rows * cols * sizeof(float));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) a[i * cols + j] = (float)(i * 1000 + j);
  float *da, *dt;
  CHECK(cudaMalloc(&da, rows * cols * sizeof(float)));
  CHECK(cudaMalloc(&dt, rows * cols * sizeof(float)));
  CHECK(cudaMemcpy(da, a, rows * cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dt, 0, rows * cols * sizeof(float)));
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose<<<grid, block>>>(da, dt, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(t, dt, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double cs = 0.0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      if (t[j * rows + i] != a[i * cols + j]) ++bad;
      cs += (double)t[j * rows + i] * ((j * rows + i) % 7);
    }
  printf("grid %u x %u\n", grid.x, grid.y);
  printf("t[0][1] %.0f t[1][0] %.0f t[74][99] %.0f t[40][33] %.0f\n", t[1], t[rows],
         t[74 * rows + 99], t[40 * rows + 33]);
  printf("checksum %.0f mismatches %d\n", cs, bad);
  CHECK(cudaFree(da));
  CHECK(cudaFree(dt));
  free(a);
  free(t);
  return bad != 0;
}
