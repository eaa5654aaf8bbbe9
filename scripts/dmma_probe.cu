// The fp64 tensor cores' limits on this GPU, for the gemm family's tiles (docs/poly.md, #7).
//
//   nvcc -O3 -arch=sm_90 -o /tmp/dmma_probe scripts/dmma_probe.cu && /tmp/dmma_probe
//
// 1. Issue rate of each f64 mma.sync shape with operands in registers (no memory): 8
//    independent accumulator sets per warp, 16 warps per SM, every SM.
// 2. gemm at PolyBench LARGE (C = beta C + alpha A B, 1000 x 1100 x 1200) with a block tile
//    BM x BN staged through shared memory STAGES deep (cp.async), warp tiles WM x WN on
//    m8n8k4 or m16n8k8, median of 50 launches; the result checked against a plain kernel.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

__device__ __forceinline__ void mma884(double (&c)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+d"(c[0]), "+d"(c[1]) : "d"(a), "d"(b));
}
__device__ __forceinline__ void mma1684(double (&c)[4], const double (&a)[2], double b) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a[0]), "d"(a[1]), "d"(b));
}
__device__ __forceinline__ void mma1688(double (&c)[4], const double (&a)[4], const double (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
__device__ __forceinline__ void mma16816(double (&c)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
               "{%12,%13,%14,%15}, {%0,%1,%2,%3};"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                 "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}

// ---- 1. issue rate --------------------------------------------------------------------------
template <int SHAPE> __global__ void rate(double *out, int iters) {
  const double x = threadIdx.x * 1e-3;
  double s = 0;
  if (SHAPE == 884) {
    double c[8][2] = {};
    for (int i = 0; i < iters; i++)
      #pragma unroll
      for (int q = 0; q < 8; q++) mma884(c[q], x, x);
    for (int q = 0; q < 8; q++) s += c[q][0] + c[q][1];
  } else {
    double c[8][4] = {}, a[8] = {x, x, x, x, x, x, x, x}, b[4] = {x, x, x, x};
    for (int i = 0; i < iters; i++)
      #pragma unroll
      for (int q = 0; q < 8; q++) {
        if (SHAPE == 1684) mma1684(c[q], *(const double (*)[2])a, b[0]);
        if (SHAPE == 1688) mma1688(c[q], *(const double (*)[4])a, *(const double (*)[2])b);
        if (SHAPE == 16816) mma16816(c[q], a, b);
      }
    for (int q = 0; q < 8; q++) s += c[q][0] + c[q][1] + c[q][2] + c[q][3];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int SHAPE> void measure_rate(int sms) {
  const int k = SHAPE == 884 ? 4 : SHAPE == 1684 ? 4 : SHAPE == 1688 ? 8 : 16;
  const int m = SHAPE == 884 ? 8 : 16, iters = 4096, threads = 512, blocks = sms;
  double *out; CHECK(cudaMalloc(&out, (size_t)blocks * threads * 8));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  rate<SHAPE><<<blocks, threads>>>(out, iters); CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < 5; r++) {
    cudaEventRecord(e0); rate<SHAPE><<<blocks, threads>>>(out, iters); cudaEventRecord(e1);
    CHECK(cudaEventSynchronize(e1)); float t; cudaEventElapsedTime(&t, e0, e1); ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double flops = 2.0 * m * 8 * k * 8.0 * iters * (threads / 32) * blocks;
  printf("mma.sync m%dn8k%d f64: %.1f TF/s (median of 5, %.3f ms)\n", m, k, flops / (ms[2] * 1e-3) / 1e12, ms[2]);
  cudaFree(out);
}

// ---- 2. gemm tiles ---------------------------------------------------------------------------
// A (m x k) staged as As[s][m][BK + 4], B (k x n) as Bs[s][k][BN + 4]: a pitch of 4 mod 16 doubles
// makes a fragment's 16 lanes per wavefront hit 16 different banks.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int SHAPE>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
gemm_tile(int ni, int nj, int nk, double alpha, double beta, double *C, const double *A, const double *B) {
  constexpr int THREADS = (BM / WM) * (BN / WN) * 32, PA = BK + 4, PB = BN + 4;
  extern __shared__ double smem[];
  double *As = smem, *Bs = smem + STAGES * BM * PA;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int wm = warp / (BN / WN) * WM, wn = warp % (BN / WN) * WN;
  const int i0 = blockIdx.y * BM, j0 = blockIdx.x * BN, g = lane / 4, q = lane % 4;
  auto load = [&](int stage, int k0) {
    for (int e = t; e < BM * BK; e += THREADS) {
      const int m = e / BK, k = e % BK, gi = i0 + m, gk = k0 + k;
      const bool in = gi < ni && gk < nk;
      __pipeline_memcpy_async(&As[(stage * BM + m) * PA + k], in ? &A[(size_t)gi * nk + gk] : A, 8, in ? 0 : 8);
    }
    for (int e = t; e < BK * BN; e += THREADS) {
      const int k = e / BN, n = e % BN, gj = j0 + n, gk = k0 + k;
      const bool in = gj < nj && gk < nk;
      __pipeline_memcpy_async(&Bs[(stage * BK + k) * PB + n], in ? &B[(size_t)gk * nj + gj] : B, 8, in ? 0 : 8);
    }
  };
  constexpr int MF = SHAPE == 884 ? WM / 8 : WM / 16, NF = WN / 8, CR = SHAPE == 884 ? 2 : 4;
  double acc[MF][NF][CR];
  auto points = [&](auto &&f) {          // f(a lane's accumulator, its point's i and j)
    #pragma unroll
    for (int mf = 0; mf < MF; mf++)
      #pragma unroll
      for (int nf = 0; nf < NF; nf++)
        #pragma unroll
        for (int r = 0; r < CR; r++)
          f(acc[mf][nf][r], i0 + wm + mf * (SHAPE == 884 ? 8 : 16) + g + (r / 2) * 8, j0 + wn + nf * 8 + q * 2 + r % 2);
  };
  points([&](double &a, int i, int j) { a = i < ni && j < nj ? beta * C[(size_t)i * nj + j] : 0.0; });
  const int tiles = (nk + BK - 1) / BK;
  #pragma unroll
  for (int s = 0; s < STAGES - 1; s++) { if (s < tiles) load(s, s * BK); __pipeline_commit(); }
  for (int kt = 0; kt < tiles; kt++) {
    __pipeline_wait_prior(STAGES - 2);
    __syncthreads();
    if (kt + STAGES - 1 < tiles) load((kt + STAGES - 1) % STAGES, (kt + STAGES - 1) * BK);
    __pipeline_commit();
    const double *as = As + (kt % STAGES) * BM * PA, *bs = Bs + (kt % STAGES) * BK * PB;
    if (SHAPE == 884) {
      #pragma unroll
      for (int kk = 0; kk < BK; kk += 4) {
        double a[MF], b[NF];
        #pragma unroll
        for (int mf = 0; mf < MF; mf++) a[mf] = alpha * as[(wm + mf * 8 + g) * PA + kk + q];
        #pragma unroll
        for (int nf = 0; nf < NF; nf++) b[nf] = bs[(kk + q) * PB + wn + nf * 8 + g];
        #pragma unroll
        for (int mf = 0; mf < MF; mf++)
          #pragma unroll
          for (int nf = 0; nf < NF; nf++) mma884(*(double (*)[2])acc[mf][nf], a[mf], b[nf]);
      }
    } else {
      #pragma unroll
      for (int kk = 0; kk < BK; kk += 8) {
        double a[MF][4], b[NF][2];
        #pragma unroll
        for (int mf = 0; mf < MF; mf++)
          #pragma unroll
          for (int r = 0; r < 4; r++) a[mf][r] = alpha * as[(wm + mf * 16 + g + (r % 2) * 8) * PA + kk + q + (r / 2) * 4];
        #pragma unroll
        for (int nf = 0; nf < NF; nf++)
          #pragma unroll
          for (int r = 0; r < 2; r++) b[nf][r] = bs[(kk + q + r * 4) * PB + wn + nf * 8 + g];
        #pragma unroll
        for (int mf = 0; mf < MF; mf++)
          #pragma unroll
          for (int nf = 0; nf < NF; nf++) mma1688(*(double (*)[4])acc[mf][nf], a[mf], b[nf]);
      }
    }
  }
  points([&](double &a, int i, int j) { if (i < ni && j < nj) C[(size_t)i * nj + j] = a; });
}

__global__ void gemm_plain(int ni, int nj, int nk, double alpha, double beta, double *C, const double *A, const double *B) {
  const int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nj) return;
  double s = 0;
  for (int k = 0; k < nk; k++) s = fma(A[(size_t)i * nk + k], B[(size_t)k * nj + j], s);
  C[(size_t)i * nj + j] = beta * C[(size_t)i * nj + j] + alpha * s;
}

struct Problem { int ni, nj, nk; double *C, *C0, *A, *B, *R; };

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int SHAPE>
void measure_gemm(const Problem &p, const char *note = "") {
  constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
  const size_t shared = (size_t)STAGES * (BM * (BK + 4) + BK * (BN + 4)) * 8;
  auto k = gemm_tile<BM, BN, BK, WM, WN, STAGES, SHAPE>;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
  int per_sm = 0; CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, THREADS, shared));
  cudaFuncAttributes fa; CHECK(cudaFuncGetAttributes(&fa, k));
  dim3 grid((p.nj + BN - 1) / BN, (p.ni + BM - 1) / BM);
  const size_t bytes = (size_t)p.ni * p.nj * 8;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int r = 0; r < 55; r++) {
    CHECK(cudaMemcpy(p.C, p.C0, bytes, cudaMemcpyDeviceToDevice));
    cudaEventRecord(e0); k<<<grid, THREADS, shared>>>(p.ni, p.nj, p.nk, 1.5, 1.2, p.C, p.A, p.B); cudaEventRecord(e1);
    CHECK(cudaEventSynchronize(e1)); float t; cudaEventElapsedTime(&t, e0, e1); if (r >= 5) ms.push_back(t);
  }
  std::vector<double> c(p.ni * (size_t)p.nj), ref(c.size());
  CHECK(cudaMemcpy(c.data(), p.C, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ref.data(), p.R, bytes, cudaMemcpyDeviceToHost));
  double err = 0;
  for (size_t i = 0; i < c.size(); i++) err = std::max(err, std::fabs(c[i] - ref[i]) / (1 + std::fabs(ref[i])));
  std::sort(ms.begin(), ms.end());
  const double flops = 2.0 * p.ni * p.nj * p.nk;
  printf("%s m%s block %3dx%-3d bk %2d warp %2dx%-2d stages %d: %4d blocks, %d/SM, %3d regs, %6.1f KB | "
         "%.4f ms (%.4f-%.4f) %5.2f TF/s  err %.1e %s\n",
         SHAPE == 884 ? "m8n8k4 " : "m16n8k8", "", BM, BN, BK, WM, WN, STAGES, grid.x * grid.y, per_sm, fa.numRegs,
         shared / 1024.0, ms[ms.size() / 2], ms[ms.size() / 5], ms[ms.size() * 4 / 5],
         flops / (ms[ms.size() / 2] * 1e-3) / 1e12, err, note);
}

int main() {
  cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0; cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  printf("%s, %d SMs, %.2f GHz\n", prop.name, prop.multiProcessorCount, khz / 1e6);
  measure_rate<884>(prop.multiProcessorCount);
  measure_rate<1684>(prop.multiProcessorCount);
  measure_rate<1688>(prop.multiProcessorCount);
  measure_rate<16816>(prop.multiProcessorCount);
  Problem p{1000, 1100, 1200};
  const size_t nc = (size_t)p.ni * p.nj, na = (size_t)p.ni * p.nk, nb = (size_t)p.nk * p.nj;
  std::vector<double> h(std::max({nc, na, nb}));
  CHECK(cudaMalloc(&p.C, nc * 8)); CHECK(cudaMalloc(&p.C0, nc * 8)); CHECK(cudaMalloc(&p.R, nc * 8));
  CHECK(cudaMalloc(&p.A, na * 8)); CHECK(cudaMalloc(&p.B, nb * 8));
  for (size_t i = 0; i < nc; i++) h[i] = (double)((i * 7) % 13) / 13; CHECK(cudaMemcpy(p.C0, h.data(), nc * 8, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < na; i++) h[i] = (double)((i * 5) % 11) / 11 - 0.4; CHECK(cudaMemcpy(p.A, h.data(), na * 8, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < nb; i++) h[i] = (double)((i * 3) % 17) / 17 - 0.5; CHECK(cudaMemcpy(p.B, h.data(), nb * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p.R, p.C0, nc * 8, cudaMemcpyDeviceToDevice));
  gemm_plain<<<dim3((p.nj + 127) / 128, p.ni), 128>>>(p.ni, p.nj, p.nk, 1.5, 1.2, p.R, p.A, p.B);
  CHECK(cudaDeviceSynchronize());
  measure_gemm<32, 128, 16, 16, 32, 2, 884>(p, "(t2c's tile today)");
  measure_gemm<32, 128, 16, 16, 32, 2, 1688>(p);
  measure_gemm<64, 64, 16, 32, 32, 2, 1688>(p);
  measure_gemm<64, 64, 16, 32, 32, 3, 1688>(p);
  measure_gemm<64, 64, 32, 32, 32, 3, 1688>(p);
  measure_gemm<64, 64, 16, 32, 32, 4, 1688>(p);
  measure_gemm<64, 64, 16, 32, 16, 3, 1688>(p);
  measure_gemm<64, 64, 16, 16, 32, 3, 1688>(p);
  measure_gemm<64, 128, 16, 32, 32, 3, 1688>(p);
  measure_gemm<64, 128, 16, 32, 64, 3, 1688>(p);
  measure_gemm<128, 64, 16, 32, 64, 3, 1688>(p);
  measure_gemm<128, 128, 16, 64, 32, 3, 1688>(p);
  measure_gemm<128, 128, 16, 32, 64, 3, 1688>(p);
  measure_gemm<64, 96, 16, 32, 32, 3, 1688>(p);
  measure_gemm<32, 64, 16, 16, 32, 3, 1688>(p);
  measure_gemm<32, 64, 32, 16, 32, 3, 1688>(p);
  measure_gemm<64, 32, 16, 32, 16, 3, 1688>(p);
  measure_gemm<64, 64, 16, 32, 32, 3, 884>(p);
  measure_gemm<64, 64, 16, 32, 64, 3, 884>(p);
  return 0;
}
