// Covers: structs passed to kernels by value, arrays of structs in global
// memory, struct member functions callable on the device, __device__ global
// variables (scalar and statically initialized array) read with
// cudaMemcpyFromSymbol and written with cudaMemcpyToSymbol, cudaGetSymbolAddress,
// a recursive __device__ function, and a namespace-scoped device function.
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

struct Particle {
  int id;
  float x, y;
  float vx, vy;
  __host__ __device__ float energy2() const { return vx * vx + vy * vy; }
};

struct Config {
  float dt;
  int steps;
  float box;
  int pad[3];
};

__device__ int g_counter;
__device__ int g_table[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
__device__ long long g_sum;

namespace util {
__device__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }  // recursive
}

__global__ void move(Particle* ps, Config cfg, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle p = ps[i];
  for (int s = 0; s < cfg.steps; ++s) {
    p.x += p.vx * cfg.dt;
    p.y += p.vy * cfg.dt;
    if (p.x < 0.0f || p.x > cfg.box) p.vx = -p.vx;
    if (p.y < 0.0f || p.y > cfg.box) p.vy = -p.vy;
  }
  ps[i] = p;
  if (p.energy2() > 2.0f) atomicAdd(&g_counter, 1);
  atomicAdd((unsigned long long*)&g_sum,
            (unsigned long long)(g_table[p.id & 7] + util::fib(p.id % 15)));
}

int main() {
  const int n = 500;
  Particle* h = (Particle*)malloc(n * sizeof(Particle));
  for (int i = 0; i < n; ++i) {
    h[i].id = i;
    h[i].x = (float)(i % 20);
    h[i].y = (float)((i * 3) % 20);
    h[i].vx = (float)(i % 5 - 2) * 0.5f;
    h[i].vy = (float)(i % 3 - 1) * 1.5f;
  }
  Config cfg = {0.25f, 40, 20.0f, {0, 0, 0}};
  Particle* d;
  CHECK(cudaMalloc(&d, n * sizeof(Particle)));
  CHECK(cudaMemcpy(d, h, n * sizeof(Particle), cudaMemcpyHostToDevice));
  int zero = 0;
  long long zl = 0;
  CHECK(cudaMemcpyToSymbol(g_counter, &zero, sizeof(int)));
  CHECK(cudaMemcpyToSymbol(g_sum, &zl, sizeof(long long)));
  move<<<(n + 127) / 128, 128>>>(d, cfg, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h, d, n * sizeof(Particle), cudaMemcpyDeviceToHost));
  int counter;
  long long gsum;
  int table[8];
  CHECK(cudaMemcpyFromSymbol(&counter, g_counter, sizeof(int)));
  CHECK(cudaMemcpyFromSymbol(&gsum, g_sum, sizeof(long long)));
  int* table_addr = nullptr;
  CHECK(cudaGetSymbolAddress((void**)&table_addr, g_table));
  CHECK(cudaMemcpy(table, table_addr, sizeof(table), cudaMemcpyDeviceToHost));
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < n; ++i) {
    sx += h[i].x;
    sy += h[i].y * (i % 4 + 1);
  }
  printf("p[11] x %.3f y %.3f vx %.2f vy %.2f\n", h[11].x, h[11].y, h[11].vx, h[11].vy);
  printf("sum x %.3f weighted y %.3f\n", sx, sy);
  printf("fast particles %d table-fib sum %lld table[7] %d\n", counter, gsum, table[7]);
  CHECK(cudaFree(d));
  free(h);
  return 0;
}
