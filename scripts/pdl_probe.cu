// Does programmatic dependent launch (sm_90) shorten a host loop of dependent launches?
// jacobi-2d's sweeps at LARGE (1300 x 1300 doubles, 500 steps of two launches), each launch
// timed in a row of 1000: plain <<<>>> launches against cudaLaunchKernelEx with
// cudaLaunchAttributeProgrammaticStreamSerialization, every kernel waiting for its predecessor's
// completion (cudaGridDependencySynchronize) before it touches memory; the results compared.
// nvcc -O3 -arch=sm_90 -o /tmp/pdl scripts/pdl_probe.cu && /tmp/pdl
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

template <bool WAIT>
__global__ void sweep(int n, const double *A, double *B) {
  if (WAIT) cudaGridDependencySynchronize();
  int i = blockIdx.y * blockDim.y + threadIdx.y + 1, j = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i < n - 1 && j < n - 1)
    B[i * n + j] = 0.2 * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
template <bool WAIT>
__global__ void empty(int) { if (WAIT) cudaGridDependencySynchronize(); }

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

template <class F>
static float timeit(F run) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  run(); cudaDeviceSynchronize();
  std::vector<float> ms;
  for (int r = 0; r < 11; r++) {
    cudaEventRecord(a); run(); cudaEventRecord(b); cudaEventSynchronize(b);
    float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t);
  }
  return median(ms);
}

int main() {
  const int n = 1300, steps = 500;
  std::vector<double> h((size_t)n * n);
  for (size_t k = 0; k < h.size(); k++) h[k] = (double)(k % 97) / 97;
  double *A, *B;
  cudaMalloc(&A, h.size() * 8); cudaMalloc(&B, h.size() * 8);
  dim3 block(32, 8), grid((n - 2 + 31) / 32, (n - 2 + 7) / 8);
  auto reset = [&] { cudaMemcpy(A, h.data(), h.size() * 8, cudaMemcpyHostToDevice); cudaMemcpy(B, h.data(), h.size() * 8, cudaMemcpyHostToDevice); };
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid; cfg.blockDim = block; cfg.dynamicSmemBytes = 0; cfg.stream = 0; cfg.attrs = attr; cfg.numAttrs = 1;
  auto plain = [&] { for (int t = 0; t < steps; t++) { sweep<false><<<grid, block>>>(n, A, B); sweep<false><<<grid, block>>>(n, B, A); } };
  auto pdl = [&] { for (int t = 0; t < steps; t++) { cudaLaunchKernelEx(&cfg, sweep<true>, n, (const double *)A, B); cudaLaunchKernelEx(&cfg, sweep<true>, n, (const double *)B, A); } };
  reset(); float t0 = timeit(plain);
  std::vector<double> r0(h.size()); cudaMemcpy(r0.data(), A, h.size() * 8, cudaMemcpyDeviceToHost);
  reset(); float t1 = timeit(pdl);
  std::vector<double> r1(h.size()); cudaMemcpy(r1.data(), A, h.size() * 8, cudaMemcpyDeviceToHost);
  double diff = 0; for (size_t k = 0; k < h.size(); k++) diff = std::max(diff, std::fabs(r0[k] - r1[k]));
  printf("jacobi-2d sweeps, 1000 launches: plain %.3f ms (%.2f us each), programmatic %.3f ms (%.2f us each), %.2fx; max |difference| %.1e%s\n",
         t0, t0, t1, t1, t0 / t1, diff, cudaGetLastError() == cudaSuccess ? "" : "  CUDA ERROR");
  cudaLaunchConfig_t one = cfg; one.gridDim = dim3(1); one.blockDim = dim3(32);
  float e0 = timeit([&] { for (int k = 0; k < 1000; k++) empty<false><<<1, 32>>>(0); });
  float e1 = timeit([&] { for (int k = 0; k < 1000; k++) cudaLaunchKernelEx(&one, empty<true>, 0); });
  cudaLaunchConfig_t wide = cfg;
  float w0 = timeit([&] { for (int k = 0; k < 1000; k++) empty<false><<<grid, block>>>(0); });
  float w1 = timeit([&] { for (int k = 0; k < 1000; k++) cudaLaunchKernelEx(&wide, empty<true>, 0); });
  printf("1000 empty launches of 1 block: plain %.2f us each, programmatic %.2f; of %u blocks: plain %.2f, programmatic %.2f%s\n",
         e0, e1, grid.x * grid.y, w0, w1, cudaGetLastError() == cudaSuccess ? "" : "  CUDA ERROR");
  return 0;
}
