// Which mapping reads a matrix at the bandwidth floor?  Row sums y[i] = sum_j A[i][j] x[j] and
// column sums y[j] = sum_i A[i][j] x[i] over a 1900 x 2100 double matrix (atax/bicg LARGE), each
// mapping timed with CUDA events (median of 50 launches after 5 warm-ups), with its result checked
// against a host sum.  nvcc -O3 -arch=sm_90 -o /tmp/mv scripts/matvec_probe.cu && /tmp/mv [rows cols]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Column sums: CW columns per block (threadIdx.x), L lanes (threadIdx.y) split the rows; lane 0
// adds the lanes' parts in order.  The shape the generator emits today is CW = 32, L = 8.
template <int CW, int L>
__global__ void col(int m, int n, const double *A, const double *x, double *y) {
  int j = blockIdx.x * CW + threadIdx.x, lane = threadIdx.y;
  __shared__ double parts[L][CW];
  double p = 0;
  if (j < n)
    for (int i = lane; i < m; i += L) p += A[(size_t)i * n + j] * x[i];
  parts[lane][threadIdx.x] = p;
  __syncthreads();
  if (j < n && lane == 0) {
    for (int o = 1; o < L; o++) p += parts[o][threadIdx.x];
    y[j] = p;
  }
}

// Row sums: W threads per row (a warp or more), strided over j, shuffle (and shared) tree.
template <int W, int U>
__global__ void row(int m, int n, const double *A, const double *x, double *y) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) / W, t = threadIdx.x % W;
  __shared__ double parts[32];
  double p[U] = {};
  if (i < m) {
    int j = t;
    for (; j + (U - 1) * W < n; j += U * W)
#pragma unroll
      for (int u = 0; u < U; u++) p[u] += A[(size_t)i * n + j + u * W] * x[j + u * W];
    for (; j < n; j += W) p[0] += A[(size_t)i * n + j] * x[j];
  }
  double s = p[0];
  for (int u = 1; u < U; u++) s += p[u];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (W > 32) {
    if (threadIdx.x % 32 == 0) parts[threadIdx.x / 32] = s;
    __syncthreads();
    if (t == 0 && i < m) { for (int w = 1; w < W / 32; w++) s += parts[threadIdx.x / 32 + w]; }
  }
  if (t == 0 && i < m) y[i] = s;
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

static double *g_flush; static size_t g_fl; static bool g_cold;
template <class F>
static void timeit(const char *name, F launch, double bytes, const double *dy, const std::vector<double> &want) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int r = 0; r < 5; r++) launch();
  std::vector<float> ms;
  for (int r = 0; r < 50; r++) { if (g_cold) cudaMemsetAsync(g_flush, 0, g_fl); cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t); }
  std::vector<double> got(want.size()); cudaMemcpy(got.data(), dy, got.size() * 8, cudaMemcpyDeviceToHost);
  double err = 0; for (size_t k = 0; k < got.size(); k++) err = std::max(err, std::fabs(got[k] - want[k]) / (1 + std::fabs(want[k])));
  float med = median(ms); std::sort(ms.begin(), ms.end());
  printf("%-28s %8.2f us (p20 %.2f p80 %.2f)  %6.0f GB/s  err %.1e%s\n", name, med * 1e3, ms[10] * 1e3, ms[40] * 1e3,
         bytes / (med * 1e-3) / 1e9, err, cudaGetLastError() == cudaSuccess ? "" : "  CUDA ERROR");
}

int main(int argc, char **argv) {
  int m = argc > 2 ? atoi(argv[1]) : 1900, n = argc > 2 ? atoi(argv[2]) : 2100;
  std::vector<double> A((size_t)m * n), xr(n), xc(m), wr(m, 0), wc(n, 0);
  for (size_t k = 0; k < A.size(); k++) A[k] = (double)((k * 7919) % 1000) / 1000 - 0.5;
  for (int j = 0; j < n; j++) xr[j] = (double)(j % 17) / 17;
  for (int i = 0; i < m; i++) xc[i] = (double)(i % 13) / 13;
  for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { wr[i] += A[(size_t)i * n + j] * xr[j]; wc[j] += A[(size_t)i * n + j] * xc[i]; }
  double *dA, *dxr, *dxc, *dy;
  cudaMalloc(&dA, A.size() * 8); cudaMalloc(&dxr, n * 8); cudaMalloc(&dxc, m * 8); cudaMalloc(&dy, std::max(m, n) * 8);
  cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dxr, xr.data(), n * 8, cudaMemcpyHostToDevice); cudaMemcpy(dxc, xc.data(), m * 8, cudaMemcpyHostToDevice);
  // L2 is 60 MiB: a 32 MB matrix stays there between launches; flush it with a 256 MiB write.
  double *flush; size_t fl = 256u << 20; cudaMalloc(&flush, fl);
  double bytes = 8.0 * ((double)m * n + m + n);
  printf("matrix %d x %d doubles (%.1f MB); timings include an L2 flush? %s\n", m, n, 8e-6 * m * n, argc > 3 ? "yes" : "no");
  g_flush = flush; g_fl = fl; g_cold = argc > 3;
#define COL(CW, L) timeit("col CW=" #CW " L=" #L, [&] { col<CW, L><<<(n + CW - 1) / CW, dim3(CW, L)>>>(m, n, dA, dxc, dy); }, bytes, dy, wc)
  COL(32, 8); COL(32, 16); COL(32, 32); COL(16, 16); COL(16, 32); COL(16, 64); COL(8, 32); COL(8, 64); COL(8, 128); COL(4, 64);
#define ROW(W, U, B) timeit("row W=" #W " U=" #U " block=" #B, [&] { row<W, U><<<(unsigned)(((size_t)m * W + B - 1) / B), B>>>(m, n, dA, dxr, dy); }, bytes, dy, wr)
  ROW(32, 1, 256); ROW(32, 2, 256); ROW(32, 4, 256); ROW(64, 1, 256); ROW(64, 4, 256); ROW(128, 2, 256); ROW(32, 4, 128);
  return 0;
}
