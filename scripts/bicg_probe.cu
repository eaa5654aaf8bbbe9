// How close can bicg (and mvt: the same two products of one matrix) come to one read of its
// matrix?  s[j] = sum_i r[i] A[i][j] and q[i] = sum_j A[i][j] p[j] over an n x m double matrix
// (bicg LARGE: 2100 x 1900), L2 evicted before every launch sequence (a 256 MiB memset, as the
// bench rung does), median of 50 after 5 warm-ups, s and q checked against host sums.
//   t2c:     zero s and q; columns (16 x 64 lanes, lane 0 adds in order); rows (128 lanes)
//   merged:  the columns' and the rows' blocks in one launch of 1024 threads (either first),
//            s and q set, not cleared first
//   band:    one pass: a block per band of R rows; each thread takes columns j, loads the band's
//            R elements of column j at once, adds r[i] A[i][j] over the band into P[band][j]
//            and A[i][j] p[j] into R row sums; the rows' sums meet in shared memory in a fixed
//            order; a second launch adds the bands' P in band order (deterministic)
// nvcc -O3 -arch=sm_90 -o /tmp/bp scripts/bicg_probe.cu && /tmp/bp [rows cols]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_common.cuh"

__global__ void zero2(int a, double *x, int b, double *y) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < a) x[k] = 0;
  else if (k - a < b) y[k - a] = 0;
}
// columns: 16 columns x 64 lanes (tx, ty), block b
__device__ void cols_at(int n, int m, const double *A, const double *r, double *s, bool add, int b, int tx, int ty,
                        double (*parts)[16]) {
  int j = b * 16 + tx;
  double p = 0;
  if (j < m)
    for (int i = ty; i < n; i += 64) p += r[i] * A[(size_t)i * m + j];
  parts[ty][tx] = p;
  __syncthreads();
  if (j < m && ty == 0) {
    for (int o = 1; o < 64; o++) p += parts[o][tx];
    s[j] = add ? s[j] + p : p;
  }
}
// rows: 128 lanes per row, T threads per block, block b
template <int T>
__device__ void rows_at(int n, int m, const double *A, const double *p, double *q, bool add, int b, int t, double *warps) {
  int i = (b * T + t) / 128, lane = t % 128;
  bool live = i < n;
  double part = 0;
  if (live)
    for (int j = lane; j < m; j += 128) part += A[(size_t)i * m + j] * p[j];
  for (int o = 16; o > 0; o >>= 1) part += __shfl_down_sync(0xffffffffu, part, o);
  if (t % 32 == 0) warps[t / 32] = part;
  __syncthreads();
  if (live && lane == 0) {
    for (int o = 1; o < 4; o++) part += warps[t / 32 + o];
    q[i] = add ? q[i] + part : part;
  }
}
__global__ void cols(int n, int m, const double *A, const double *r, double *s, bool add) {
  __shared__ double parts[64][16];
  cols_at(n, m, A, r, s, add, blockIdx.x, threadIdx.x, threadIdx.y, parts);
}
__global__ void rows(int n, int m, const double *A, const double *p, double *q, bool add) {
  __shared__ double warps[8];
  rows_at<256>(n, m, A, p, q, add, blockIdx.x, threadIdx.x, warps);
}
// one launch: blocks [0, first) of one part, the rest the other; 1024 threads
__global__ void __launch_bounds__(1024) merged(int n, int m, const double *A, const double *r, const double *p,
                                               double *s, double *q, int ncols, bool cols_first) {
  __shared__ double parts[64][16];
  __shared__ double warps[32];
  int b = blockIdx.x;
  bool is_col = cols_first ? b < ncols : b >= (int)gridDim.x - ncols;
  if (is_col)
    cols_at(n, m, A, r, s, false, cols_first ? b : b - (gridDim.x - ncols), threadIdx.x % 16, threadIdx.x / 16, parts);
  else
    rows_at<1024>(n, m, A, p, q, false, cols_first ? b - ncols : b, threadIdx.x, warps);
}
template <int R, int T>
__global__ void __launch_bounds__(T) band(int n, int m, const double *A, const double *r, const double *p,
                                          double *q, double *P) {
  __shared__ double sums[T / 32][R];
  int i0 = blockIdx.x * R, rows_here = min(R, n - i0);
  double acc[R], rr[R];
#pragma unroll
  for (int k = 0; k < R; k++) { acc[k] = 0; rr[k] = k < rows_here ? r[i0 + k] : 0; }
  for (int j = threadIdx.x; j < m; j += T) {
    double a[R];
#pragma unroll
    for (int k = 0; k < R; k++) a[k] = k < rows_here ? A[(size_t)(i0 + k) * m + j] : 0;
    double pj = p[j], col = 0;
#pragma unroll
    for (int k = 0; k < R; k++) { col += rr[k] * a[k]; acc[k] += a[k] * pj; }
    P[(size_t)blockIdx.x * m + j] = col;
  }
#pragma unroll
  for (int k = 0; k < R; k++)
    for (int o = 16; o > 0; o >>= 1) acc[k] += __shfl_down_sync(0xffffffffu, acc[k], o);
  if (threadIdx.x % 32 == 0)
#pragma unroll
    for (int k = 0; k < R; k++) sums[threadIdx.x / 32][k] = acc[k];
  __syncthreads();
  if (threadIdx.x < rows_here) {
    double t = 0;
    for (int w = 0; w < T / 32; w++) t += sums[w][threadIdx.x];
    q[i0 + threadIdx.x] = t;
  }
}


static double check(const double *d, const std::vector<double> &want) {
  std::vector<double> got(want.size());
  cudaMemcpy(got.data(), d, got.size() * 8, cudaMemcpyDeviceToHost);
  double err = 0;
  for (size_t k = 0; k < got.size(); k++) err = std::max(err, std::fabs(got[k] - want[k]) / (1 + std::fabs(want[k])));
  return err;
}
template <class F>
static void timeit(const char *name, F launch, double bytes, const double *ds, const std::vector<double> &s,
                   const double *dq, const std::vector<double> &q) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  if (ds) { cudaMemset((void *)ds, 0xff, s.size() * 8); cudaMemset((void *)dq, 0xff, q.size() * 8); }
  for (int k = 0; k < 5; k++) launch();
  std::vector<float> ms;
  for (int k = 0; k < 50; k++) {
    cudaMemsetAsync(g_flush, 0, g_fl);
    cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
    float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);
  }
  double err = ds ? std::max(check(ds, s), check(dq, q)) : 0;
  float med = median(ms); std::sort(ms.begin(), ms.end());
  cudaError_t e = cudaGetLastError();
  printf("%-40s %7.2f us (p20 %.2f p80 %.2f)  %5.0f GB/s  %5.1f%% of 4.25 TB/s  err %.1e%s%s\n", name, med * 1e3,
         ms[10] * 1e3, ms[40] * 1e3, bytes / (med * 1e-3) / 1e9, 100 * bytes / (med * 1e-3) / 4.25e12, err,
         e == cudaSuccess ? "" : "  CUDA ERROR ", e == cudaSuccess ? "" : cudaGetErrorString(e));
}

int main(int argc, char **argv) {
  int n = argc > 2 ? atoi(argv[1]) : 2100, m = argc > 2 ? atoi(argv[2]) : 1900;
  std::vector<double> A((size_t)n * m), r(n), p(m), s(m, 0), q(n, 0);
  for (size_t k = 0; k < A.size(); k++) A[k] = (double)((k * 7919) % 1000) / 1000 - 0.5;
  for (int i = 0; i < n; i++) r[i] = (double)(i % 13) / 13;
  for (int j = 0; j < m; j++) p[j] = (double)(j % 17) / 17;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) { s[j] += r[i] * A[(size_t)i * m + j]; q[i] += A[(size_t)i * m + j] * p[j]; }
  double *dA, *dr, *dp, *ds, *dq, *dP, *dout;
  cudaMalloc(&dA, A.size() * 8); cudaMalloc(&dr, n * 8); cudaMalloc(&dp, m * 8); cudaMalloc(&ds, m * 8);
  cudaMalloc(&dq, n * 8); cudaMalloc(&dP, (size_t)n * m * 8); cudaMalloc(&dout, 1 << 24); cudaMalloc(&g_flush, g_fl);
  cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dr, r.data(), n * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dp, p.data(), m * 8, cudaMemcpyHostToDevice);
  double bytes = 8.0 * ((double)n * m + 2.0 * m + 2.0 * n);
  printf("matrix %d x %d doubles (%.1f MB), L2 evicted before each launch sequence\n", n, m, 8e-6 * n * m);
  std::vector<double> none;
  timeit("floor: read all, 1056 x 256", [&] { floor_sum<<<1056, 256>>>((size_t)n * m, dA, dout); }, 8.0 * n * m, nullptr, none, nullptr, none);
  int ncols = (m + 15) / 16, rows256 = (n + 1) / 2, rows1024 = (n + 7) / 8;
  timeit("t2c: zero + columns + rows", [&] {
    zero2<<<(m + n + 255) / 256, 256>>>(m, ds, n, dq);
    cols<<<ncols, dim3(16, 64)>>>(n, m, dA, dr, ds, true); rows<<<rows256, 256>>>(n, m, dA, dp, dq, true); }, bytes, ds, s, dq, q);
  timeit("columns + rows (no zero)", [&] {
    cols<<<ncols, dim3(16, 64)>>>(n, m, dA, dr, ds, false); rows<<<rows256, 256>>>(n, m, dA, dp, dq, false); }, bytes, ds, s, dq, q);
  timeit("rows + columns (no zero)", [&] {
    rows<<<rows256, 256>>>(n, m, dA, dp, dq, false); cols<<<ncols, dim3(16, 64)>>>(n, m, dA, dr, ds, false); }, bytes, ds, s, dq, q);
  timeit("merged, columns first", [&] { merged<<<ncols + rows1024, 1024>>>(n, m, dA, dr, dp, ds, dq, ncols, true); }, bytes, ds, s, dq, q);
  timeit("merged, rows first", [&] { merged<<<ncols + rows1024, 1024>>>(n, m, dA, dr, dp, ds, dq, ncols, false); }, bytes, ds, s, dq, q);
#define BAND(R, T, L) { int bands = (n + R - 1) / R; \
    timeit("band R=" #R " T=" #T " finish " #L, [&] { band<R, T><<<bands, T>>>(n, m, dA, dr, dp, dq, dP); \
      finish_lanes<L><<<(m + 15) / 16, dim3(16, L)>>>(bands, m, dP, ds); }, bytes, ds, s, dq, q); }
  BAND(16, 256, 16); BAND(8, 256, 16); BAND(16, 128, 16); BAND(4, 256, 16); BAND(8, 128, 16); BAND(32, 256, 16);
  BAND(16, 512, 16); BAND(16, 256, 64);
  return 0;
}
