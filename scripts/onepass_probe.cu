// How close can atax / bicg / mvt come to one read of their matrix?  A 1900 x 2100 double matrix
// (atax LARGE), L2 evicted before every launch sequence (a 256 MiB memset, as the bench rung does),
// median of 50 after 5 warm-ups, every result checked against a host sum.
//   floor:  one read of the matrix, every element summed (no vector), the best the GPU does
//   rows:   y[i] = sum_j A[i][j] x[j], W lanes per row, U independent partial sums per lane
//   atax:   tmp = A x; y = A^T tmp, as t2c emits it (init, rows, columns: three launches),
//           and in one pass: a block per band of R rows finds the band's tmp (a warp per row),
//           then each of its threads adds the band's rows into column partials P[band][j]
//           (rows re-read from L2, or kept in shared memory), a second launch adds the
//           partials of every band in band order (deterministic).
// nvcc -O3 -arch=sm_90 -o /tmp/op scripts/onepass_probe.cu && /tmp/op [rows cols]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"


__global__ void floor_sum2(size_t count, const double2 *A, double *out) {
  double p[4] = {};
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
  size_t k = t;
  for (; k + 1 * stride < count; k += 2 * stride) {
    double2 a = A[k], b = A[k + stride];
    p[0] += a.x; p[1] += a.y; p[2] += b.x; p[3] += b.y;
  }
  for (; k < count; k += stride) { double2 a = A[k]; p[0] += a.x; p[1] += a.y; }
  double s = p[0] + p[1] + p[2] + p[3];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) out[t / 32] = s;
}

template <int U>
__device__ double row_part(const double *Ai, const double *x, int n, int lane, int W, double *keep) {
  double p[U] = {};
  int j = lane;
  for (; j + (U - 1) * W < n; j += U * W)
#pragma unroll
    for (int u = 0; u < U; u++) {
      double a = Ai[j + u * W];
      if (keep) keep[j + u * W] = a;
      p[u] += a * x[j + u * W];
    }
  for (; j < n; j += W) {
    double a = Ai[j];
    if (keep) keep[j] = a;
    p[0] += a * x[j];
  }
  double s = p[0];
#pragma unroll
  for (int u = 1; u < U; u++) s += p[u];
  return s;
}

template <int U>
__global__ void rows(int m, int n, const double *A, const double *x, double *y) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (i >= m) return;
  double s = row_part<U>(A + (size_t)i * n, x, n, lane, 32, nullptr);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) y[i] = s;
}

// W lanes per row (W a multiple of 32, blockDim a multiple of W): shuffle, then shared memory.
template <int W, int U>
__global__ void rows_wide(int m, int n, const double *A, const double *x, double *y) {
  __shared__ double parts[32];
  int i = (blockIdx.x * blockDim.x + threadIdx.x) / W, t = threadIdx.x % W;
  double s = 0;
  if (i < m) s = row_part<U>(A + (size_t)i * n, x, n, t, W, nullptr);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) parts[threadIdx.x / 32] = s;
  __syncthreads();
  if (t == 0 && i < m) {
    for (int w = 1; w < W / 32; w++) s += parts[threadIdx.x / 32 + w];
    y[i] = s;
  }
}

// t2c's columns today: 16 columns x 64 lanes, lane 0 adds in order; y[j] += part.
__global__ void cols(int m, int n, const double *A, const double *t, double *y) {
  int j = blockIdx.x * 16 + threadIdx.x, lane = threadIdx.y;
  __shared__ double parts[64][16];
  double p = 0;
  if (j < n)
    for (int i = lane; i < m; i += 64) p += A[(size_t)i * n + j] * t[i];
  parts[lane][threadIdx.x] = p;
  __syncthreads();
  if (j < n && lane == 0) {
    for (int o = 1; o < 64; o++) p += parts[o][threadIdx.x];
    y[j] = y[j] + p;
  }
}
__global__ void zero(int n, double *y) { int j = blockIdx.x * blockDim.x + threadIdx.x; if (j < n) y[j] = 0; }

// One pass: a block per band of R rows, blockDim threads.
template <int R, int U, bool SMEM>
__global__ void band(int m, int n, const double *A, const double *x, double *tmp, double *P) {
  extern __shared__ double keep[];      // R * n doubles when SMEM
  __shared__ double t[R];
  int i0 = blockIdx.x * R, warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (int r = warp; r < R; r += warps) {
    int i = i0 + r;
    double s = 0;
    if (i < m) s = row_part<U>(A + (size_t)i * n, x, n, lane, 32, SMEM ? keep + (size_t)r * n : nullptr);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) { t[r] = s; if (i < m) tmp[i] = s; }
  }
  __syncthreads();
  int rows_here = min(R, m - i0);
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    double s = 0;
    for (int r = 0; r < rows_here; r++) s += (SMEM ? keep[(size_t)r * n + j] : A[(size_t)(i0 + r) * n + j]) * t[r];
    P[(size_t)blockIdx.x * n + j] = s;
  }
}
// Partials of every band, in band order: a thread per column, or 16 columns x L lanes.
__global__ void finish(int bands, int n, const double *P, double *y) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double s = 0;
  for (int b = 0; b < bands; b++) s += P[(size_t)b * n + j];
  y[j] = s;
}


template <class F>
static void timeit(const char *name, F launch, double bytes, const double *dy, const std::vector<double> &want) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int r = 0; r < 5; r++) launch();
  std::vector<float> ms;
  for (int r = 0; r < 50; r++) {
    cudaMemsetAsync(g_flush, 0, g_fl);
    cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);
  }
  double err = 0;
  if (dy) {
    std::vector<double> got(want.size()); cudaMemcpy(got.data(), dy, got.size() * 8, cudaMemcpyDeviceToHost);
    for (size_t k = 0; k < got.size(); k++) err = std::max(err, std::fabs(got[k] - want[k]) / (1 + std::fabs(want[k])));
  }
  float med = median(ms); std::sort(ms.begin(), ms.end());
  cudaError_t e = cudaGetLastError();
  printf("%-34s %8.2f us (p20 %.2f p80 %.2f)  %6.0f GB/s  %5.1f%% of 4.25 TB/s  err %.1e%s%s\n", name, med * 1e3,
         ms[10] * 1e3, ms[40] * 1e3, bytes / (med * 1e-3) / 1e9, 100 * bytes / (med * 1e-3) / 4.25e12, err,
         e == cudaSuccess ? "" : "  CUDA ERROR ", e == cudaSuccess ? "" : cudaGetErrorString(e));
}

int main(int argc, char **argv) {
  int m = argc > 2 ? atoi(argv[1]) : 1900, n = argc > 2 ? atoi(argv[2]) : 2100;
  std::vector<double> A((size_t)m * n), x(n), tmp(m, 0), y(n, 0);
  for (size_t k = 0; k < A.size(); k++) A[k] = (double)((k * 7919) % 1000) / 1000 - 0.5;
  for (int j = 0; j < n; j++) x[j] = (double)(j % 17) / 17;
  for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) tmp[i] += A[(size_t)i * n + j] * x[j];
  for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) y[j] += A[(size_t)i * n + j] * tmp[i];
  double *dA, *dx, *dt, *dy, *dP, *dout;
  cudaMalloc(&dA, A.size() * 8); cudaMalloc(&dx, n * 8); cudaMalloc(&dt, m * 8); cudaMalloc(&dy, n * 8);
  cudaMalloc(&dP, (size_t)m * n * 8); cudaMalloc(&dout, 1 << 24); cudaMalloc(&g_flush, g_fl);
  cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice);
  double bytes = 8.0 * ((double)m * n + 2.0 * m + 2.0 * n);
  printf("matrix %d x %d doubles (%.1f MB), L2 evicted before each launch sequence\n", m, n, 8e-6 * m * n);
  std::vector<double> none;
#define FLOOR(B, T) timeit("floor: read all, " #B " x " #T, [&] { floor_sum<<<B, T>>>((size_t)m * n, dA, dout); }, 8.0 * m * n, nullptr, none)
  FLOOR(264, 1024); FLOOR(528, 512); FLOOR(1056, 256); FLOOR(2112, 256); FLOOR(4224, 256);
#define ROWS(U, B) timeit("rows: warp per row, U=" #U " block " #B, [&] { rows<U><<<(m * 32 + B - 1) / B, B>>>(m, n, dA, dx, dt); }, 8.0 * ((double)m * n + m + n), dt, tmp)
  ROWS(1, 256); ROWS(2, 256); ROWS(4, 256); ROWS(8, 256); ROWS(4, 128); ROWS(8, 128);
#define WIDE(W, U, B) timeit("rows: " #W " lanes per row, U=" #U " block " #B, [&] { rows_wide<W, U><<<(unsigned)(((size_t)m * W + B - 1) / B), B>>>(m, n, dA, dx, dt); }, 8.0 * ((double)m * n + m + n), dt, tmp)
  WIDE(64, 1, 256); WIDE(64, 2, 256); WIDE(128, 1, 256); WIDE(128, 2, 256); WIDE(256, 1, 256); WIDE(256, 2, 256);
  WIDE(128, 1, 512); WIDE(512, 1, 512); WIDE(64, 1, 512);
  if (((size_t)m * n) % 2 == 0) {
#define FLOOR2(B, T) timeit("floor: read all as double2, " #B " x " #T, [&] { floor_sum2<<<B, T>>>((size_t)m * n / 2, (const double2 *)dA, dout); }, 8.0 * m * n, nullptr, none)
    FLOOR2(528, 512); FLOOR2(1056, 256); FLOOR2(264, 512);
  }
  timeit("empty launch", [&] { zero<<<1, 32>>>(0, dy); }, 0, nullptr, none);
  timeit("1000 empty launches in a row", [&] { for (int k = 0; k < 1000; k++) zero<<<1, 32>>>(0, dy); }, 0, nullptr, none);
  timeit("1000 launches of 1300 x 1300 blocks", [&] { for (int k = 0; k < 1000; k++) zero<<<1300 * 1300 / 256, 256>>>(0, dy); }, 0, nullptr, none);
  // atax as emitted today (tmp from the row launch above is what the column launch reads).
  timeit("atax: zero + rows U=1 + cols (t2c)", [&] {
    zero<<<(n + 255) / 256, 256>>>(n, dy); rows<1><<<(m * 32 + 255) / 256, 256>>>(m, n, dA, dx, dt);
    cols<<<(n + 15) / 16, dim3(16, 64)>>>(m, n, dA, dt, dy); }, bytes, dy, y);
  timeit("atax: zero + rows U=4 + cols", [&] {
    zero<<<(n + 255) / 256, 256>>>(n, dy); rows<4><<<(m * 32 + 255) / 256, 256>>>(m, n, dA, dx, dt);
    cols<<<(n + 15) / 16, dim3(16, 64)>>>(m, n, dA, dt, dy); }, bytes, dy, y);
#define BAND(R, U, T, SM, FIN) { int bands = (m + R - 1) / R; size_t sh = SM ? (size_t)R * n * 8 : 0; \
    if (sh > 48 * 1024) cudaFuncSetAttribute(band<R, U, SM>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh); \
    char nm[96]; snprintf(nm, sizeof nm, "atax: band R=%d U=%d T=%d %s %s", R, U, T, SM ? "smem" : "L2", #FIN); \
    timeit(nm, [&] { \
      band<R, U, SM><<<bands, T, sh>>>(m, n, dA, dx, dt, dP); FIN; }, bytes, dy, y); }
#define FIN1 finish<<<(n + 127) / 128, 128>>>(bands, n, dP, dy)
#define FIN16 finish_lanes<16><<<(n + 15) / 16, dim3(16, 16)>>>(bands, n, dP, dy)
  BAND(8, 4, 256, false, FIN1); BAND(8, 4, 256, false, FIN16); BAND(16, 4, 512, false, FIN16);
  BAND(16, 4, 256, false, FIN16); BAND(4, 4, 128, false, FIN16); BAND(8, 4, 256, true, FIN16);
  BAND(16, 4, 512, true, FIN16); BAND(4, 4, 128, true, FIN16); BAND(8, 8, 256, false, FIN16);
  BAND(32, 4, 1024, false, FIN16);
  return 0;
}
