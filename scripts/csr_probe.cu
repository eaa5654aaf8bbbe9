// The measured limit of gathers from arrays that L2 holds (issue #35): the loops corpus's spmv_csr
// and pagerank_pull at LARGE gather random elements of a vector of 16 MB and 12 MB, which the
// H100's 50 MB L2 keeps after the first touches. Timed here, at the same shapes, by hand: a plain
// random gather of doubles, then CSR SpMV and the PageRank pull step with a thread per row (the
// reference's walk) and with 2, 4, 8 lanes of a warp per row. Each figure is the median (p20-p80)
// of 30 runs after an L2 eviction. A probe, not a test.
//   nvcc -O3 -arch=sm_90 -o /tmp/csr_probe scripts/csr_probe.cu && /tmp/csr_probe
#include <algorithm>
#include <cstdio>
#include <vector>

__global__ void copy(size_t n, const double *__restrict__ x, double *__restrict__ y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) y[i] = x[i];
}
__global__ void gather(int n, const int *__restrict__ idx, const double *__restrict__ x, double *__restrict__ y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[idx[i]];
}
// y[i] = sum over k in row_ptr[i] .. row_ptr[i+1]-1 of val[k] * x[col[k]]: L lanes per row
template <int L>
__global__ void spmv(int n, const int *__restrict__ row_ptr, const int *__restrict__ col, const double *__restrict__ val,
                     const double *__restrict__ x, double *__restrict__ y)
{
  const int lane = threadIdx.x % L;
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) / L; i < n; i += gridDim.x * blockDim.x / L) {
    double s = 0;
    for (int k = row_ptr[i] + lane; k < row_ptr[i + 1]; k += L) s += val[k] * x[col[k]];
    for (int o = L / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o, L);
    if (lane == 0) y[i] = s;
  }
}
// next[v] = (1 - d) / nv + d * sum over e in start[v] .. start[v+1]-1 of rank[src[e]] / deg[src[e]]
template <int L>
__global__ void pull(int nv, double d, const int *__restrict__ start, const int *__restrict__ src, const int *__restrict__ deg,
                     const double *__restrict__ rank, double *__restrict__ next)
{
  const int lane = threadIdx.x % L;
  for (int v = (blockIdx.x * blockDim.x + threadIdx.x) / L; v < nv; v += gridDim.x * blockDim.x / L) {
    double s = 0;
    for (int e = start[v] + lane; e < start[v + 1]; e += L) { const int u = src[e]; s += rank[u] / deg[u]; }
    for (int o = L / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o, L);
    if (lane == 0) next[v] = (1.0 - d) / nv + d * s;
  }
}

static unsigned lcg(unsigned &s) { return s = s * 1664525u + 1013904223u; }
// Row bounds of `rows` rows holding `nnz` entries, lengths drawn uniformly around the mean.
static std::vector<int> offsets(int rows, int nnz, unsigned &s)
{
  std::vector<int> cut(rows - 1);
  for (auto &c : cut) c = (int)(lcg(s) % (unsigned)(nnz + 1));
  std::sort(cut.begin(), cut.end());
  std::vector<int> p(rows + 1);
  p[0] = 0; p[rows] = nnz;
  for (int i = 1; i < rows; i++) p[i] = cut[i - 1];
  return p;
}

int main()
{
  const int n = 2000000, nnz = 20000000;       // spmv_csr at LARGE
  const int nv = 1000000, ne = 8000000;        // pagerank_pull at LARGE
  unsigned s = 1;
  std::vector<int> hp = offsets(n, nnz, s), hc(nnz), hs(ne), hd(nv), hq = offsets(nv, ne, s);
  for (auto &c : hc) c = (int)(lcg(s) % n);
  for (auto &c : hs) c = (int)(lcg(s) % nv);
  for (auto &c : hd) c = 1 + (int)(lcg(s) % 20);
  std::vector<double> hv(nnz), hx(n);
  for (auto &v : hv) v = (lcg(s) % 1000) / 1000.0;
  for (auto &v : hx) v = (lcg(s) % 1000) / 1000.0;
  int *row_ptr, *col, *start, *src, *deg; double *val, *x, *y, *big, *big2; char *flush;
  cudaMalloc(&row_ptr, 4 * (n + 1)); cudaMalloc(&col, 4L * nnz); cudaMalloc(&val, 8L * nnz); cudaMalloc(&x, 8L * n);
  cudaMalloc(&y, 8L * nnz); cudaMalloc(&start, 4 * (nv + 1)); cudaMalloc(&src, 4L * ne); cudaMalloc(&deg, 4L * nv);
  cudaMalloc(&big, 8L * nnz); cudaMalloc(&big2, 8L * nnz); cudaMalloc(&flush, (size_t)256 << 20);
  cudaMemcpy(row_ptr, hp.data(), 4 * (n + 1), cudaMemcpyHostToDevice);
  cudaMemcpy(col, hc.data(), 4L * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(val, hv.data(), 8L * nnz, cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), 8L * n, cudaMemcpyHostToDevice);
  cudaMemcpy(start, hq.data(), 4 * (nv + 1), cudaMemcpyHostToDevice);
  cudaMemcpy(src, hs.data(), 4L * ne, cudaMemcpyHostToDevice);
  cudaMemcpy(deg, hd.data(), 4L * nv, cudaMemcpyHostToDevice);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int grid = 16 * sms;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto run = [&](const char *name, double bytes, double gathers, auto launch) {
    std::vector<float> t;
    for (int r = 0; r < 32; r++) {
      cudaMemset(flush, r, (size_t)256 << 20);
      cudaEventRecord(e0);
      launch();
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      if (r >= 2) t.push_back(ms * 1000);
    }
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
      printf("%-32s failed: %s\n", name, cudaGetErrorString(err));
      return;
    }
    std::sort(t.begin(), t.end()); size_t k = t.size();
    printf("%-32s median %8.2f us  p20-p80 %8.2f-%8.2f  %6.0f GB/s  %6.1f G gathers/s\n", name, t[k / 2], t[k / 5],
           t[4 * k / 5], bytes / (t[k / 2] * 1e3), gathers / (t[k / 2] * 1e3));
  };
  // minimal traffic: every array read or written once (the gathered vector counted once)
  const double spmv_bytes = 4.0 * (n + 1) + 12.0 * nnz + 8.0 * n + 8.0 * n;
  const double pull_bytes = 4.0 * (nv + 1) + 4.0 * ne + 4.0 * nv + 8.0 * nv + 8.0 * nv;
  run("copy of 160 MB (yardstick)", 16.0 * nnz, 0, [&] { copy<<<grid, 256>>>(nnz, big, big2); });
  run("gather 20 M doubles from 16 MB", 12.0 * nnz + 8.0 * n, nnz, [&] { gather<<<grid, 256>>>(nnz, col, x, y); });
  run("spmv_csr, thread per row", spmv_bytes, nnz, [&] { spmv<1><<<grid, 256>>>(n, row_ptr, col, val, x, y); });
  run("spmv_csr, 2 lanes per row", spmv_bytes, nnz, [&] { spmv<2><<<grid, 256>>>(n, row_ptr, col, val, x, y); });
  run("spmv_csr, 4 lanes per row", spmv_bytes, nnz, [&] { spmv<4><<<grid, 256>>>(n, row_ptr, col, val, x, y); });
  run("spmv_csr, 8 lanes per row", spmv_bytes, nnz, [&] { spmv<8><<<grid, 256>>>(n, row_ptr, col, val, x, y); });
  run("pagerank_pull, thread per row", pull_bytes, 2.0 * ne, [&] { pull<1><<<grid, 256>>>(nv, 0.85, start, src, deg, x, y); });
  run("pagerank_pull, 2 lanes per row", pull_bytes, 2.0 * ne, [&] { pull<2><<<grid, 256>>>(nv, 0.85, start, src, deg, x, y); });
  run("pagerank_pull, 4 lanes per row", pull_bytes, 2.0 * ne, [&] { pull<4><<<grid, 256>>>(nv, 0.85, start, src, deg, x, y); });
  run("pagerank_pull, 8 lanes per row", pull_bytes, 2.0 * ne, [&] { pull<8><<<grid, 256>>>(nv, 0.85, start, src, deg, x, y); });
  return cudaGetLastError() != cudaSuccess;
}
