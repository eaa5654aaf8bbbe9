// Covers: a 2-D Jacobi (5-point average) stencil run as a host time loop of
// launches with ping-pong buffers (pointer swap on the host), fixed boundary
// values, 2-D grid with bounds checks on a 61x47 domain, and a device-to-device
// cudaMemcpy. Values are dyadic rationals that stay exact in double for the 12
// steps, so the printed numbers are independent of FMA contraction.
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

__global__ void jacobi(const double* in, double* out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int c = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[c] = in[c];  // boundary stays fixed
    return;
  }
  out[c] = 0.25 * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx]);
}

int main() {
  const int nx = 61, ny = 47, steps = 12;
  const int cells = nx * ny;
  double* h = (double*)malloc(cells * sizeof(double));
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) h[y * nx + x] = (double)((x * 5 + y * 3 + x * y) % 16);
  double *d0, *d1;
  CHECK(cudaMalloc(&d0, cells * sizeof(double)));
  CHECK(cudaMalloc(&d1, cells * sizeof(double)));
  CHECK(cudaMemcpy(d0, h, cells * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d1, d0, cells * sizeof(double), cudaMemcpyDeviceToDevice));
  dim3 block(16, 8);
  dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  double* cur = d0;
  double* nxt = d1;
  for (int s = 0; s < steps; ++s) {
    jacobi<<<grid, block>>>(cur, nxt, nx, ny);
    CHECK(cudaGetLastError());
    double* t = cur;
    cur = nxt;
    nxt = t;
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, cur, cells * sizeof(double), cudaMemcpyDeviceToHost));
  double sum = 0.0, wsum = 0.0;
  for (int i = 0; i < cells; ++i) {
    sum += h[i];
    wsum += h[i] * (i % 11);
  }
  printf("u[1][1] %.10f\n", h[1 * nx + 1]);
  printf("u[23][30] %.10f\n", h[23 * nx + 30]);
  printf("u[45][59] %.10f\n", h[45 * nx + 59]);
  printf("sum %.6f weighted %.6f\n", sum, wsum);
  CHECK(cudaFree(d0));
  CHECK(cudaFree(d1));
  free(h);
  return 0;
}
