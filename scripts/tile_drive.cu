// Times one generated candidate's NAME_device entry on fixed inputs at LARGE, L2 evicted before
// each call as t2c's bench does (scripts/tile_probe.py writes the candidates, each ending in a
// `#define CALL kernel_NAME_device(...)`, and the script that builds and runs them):
//   nvcc -O3 -arch=sm_90 -DKFILE='"gemm__v.cu"' -o /tmp/gemm__v scripts/tile_drive.cu && /tmp/gemm__v
// Prints the median of 40 calls (p20-p80) and a weighted sum of every array after one call from
// the fixed inputs: variants of one kernel must print the same sum to the last digits shown (the
// same products in another order may differ in the last bits).  A measurement probe, not a check:
// the ladder verifies (scripts/options_ab.py).
#include KFILE
#include <cstdio>
#include <vector>
#include <algorithm>
int main() {
  const size_t big = 1200 * 1200; double *P[7]; std::vector<double> h(big);
  for (int a = 0; a < 7; a++) {
    cudaMalloc(&P[a], big * 8);
    for (size_t i = 0; i < big; i++) h[i] = (double)((i * (7 + 2 * a)) % 13) / 13 - 0.3;
    cudaMemcpy(P[a], h.data(), big * 8, cudaMemcpyHostToDevice);
  }
  double *C = P[0], *A = P[1], *B = P[2], *D = P[3], *E = P[4], *F = P[5], *G = P[6], *tmp = P[6];
  CALL;
  double sum = 0; for (int a = 0; a < 7; a++) { cudaMemcpy(h.data(), P[a], big * 8, cudaMemcpyDeviceToHost); for (size_t i = 0; i < big; i++) sum += h[i] * (1 + i % 7); }
  void *flush; cudaMalloc(&flush, (size_t)256 << 20);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); std::vector<float> ms;
  for (int r = 0; r < 45; r++) {
    cudaMemset(flush, 0, (size_t)256 << 20); cudaDeviceSynchronize();
    cudaEventRecord(e0); CALL; cudaEventRecord(e1); cudaEventSynchronize(e1);
    float t; cudaEventElapsedTime(&t, e0, e1); if (r >= 5) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  printf("%-34s %.4f ms (%.4f-%.4f) sum %.12e %s\n", KFILE, ms[ms.size() / 2], ms[ms.size() / 5], ms[ms.size() * 4 / 5], sum, cudaGetErrorString(cudaGetLastError()));
}
