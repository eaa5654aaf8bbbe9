// Covers: __constant__ arrays and a __constant__ struct written with
// cudaMemcpyToSymbol (whole symbol and with a byte offset), read back with
// cudaMemcpyFromSymbol; Horner polynomial with constant coefficients, a lookup
// table in constant memory, and a kernel reading a constant struct.
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

struct Params {
  int n;
  int shift;
  float scale;
};

__constant__ float c_coef[6];
__constant__ int c_lut[16];
__constant__ Params c_params;

__global__ void poly(const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c_params.n) return;
  float v = x[i];
  float acc = c_coef[5];
  for (int k = 4; k >= 0; --k) acc = acc * v + c_coef[k];
  y[i] = acc * c_params.scale;
}

__global__ void lut(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c_lut[(i + c_params.shift) & 15] * (i % 3 + 1);
}

int main() {
  const int n = 300;
  float coef[6] = {1.0f, -2.0f, 0.0f, 3.0f, 0.0f, 0.0f};  // last two set below
  int table[16];
  for (int k = 0; k < 16; ++k) table[k] = k * k - 7 * k;
  Params p = {n, 5, 0.5f};
  CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
  float tail[2] = {-1.0f, 0.25f};  // coefficients 4 and 5 via a byte offset
  CHECK(cudaMemcpyToSymbol(c_coef, tail, sizeof(tail), 4 * sizeof(float)));
  CHECK(cudaMemcpyToSymbol(c_lut, table, sizeof(table)));
  CHECK(cudaMemcpyToSymbol(c_params, &p, sizeof(p)));

  float back[6];
  Params pb;
  CHECK(cudaMemcpyFromSymbol(back, c_coef, sizeof(back)));
  CHECK(cudaMemcpyFromSymbol(&pb, c_params, sizeof(pb)));
  printf("coef back %.2f %.2f %.2f %.2f %.2f %.2f\n", back[0], back[1], back[2], back[3],
         back[4], back[5]);
  printf("params back n=%d shift=%d scale=%.2f\n", pb.n, pb.shift, pb.scale);

  float hx[n], hy[n];
  for (int i = 0; i < n; ++i) hx[i] = (float)(i % 9) - 4.0f;  // -4..4
  float *dx, *dy;
  int* dl;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dl, n * sizeof(int)));
  CHECK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
  poly<<<(n + 63) / 64, 64>>>(dx, dy);
  CHECK(cudaGetLastError());
  lut<<<(n + 63) / 64, 64>>>(dl, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int hl[n];
  CHECK(cudaMemcpy(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hl, dl, sizeof(hl), cudaMemcpyDeviceToHost));
  double sy = 0.0;
  long long sl = 0;
  for (int i = 0; i < n; ++i) {
    sy += hy[i];
    sl += (long long)hl[i] * (i + 1);
  }
  printf("poly y[0..8]");
  for (int i = 0; i < 9; ++i) printf(" %.3f", hy[i]);
  printf("\npoly sum %.3f\n", sy);
  printf("lut out[0..5] %d %d %d %d %d %d checksum %lld\n", hl[0], hl[1], hl[2], hl[3], hl[4],
         hl[5], sl);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dl));
  return 0;
}
