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
#include <cstdlib>
int main() {
  // PROBE_RANDOM=1: uniform random inputs (as the ladder's) instead of 13 repeating values;
  // PROBE_RESTORE=1: the inputs copied back before each call (as the bench rung does)
  const bool random = getenv("PROBE_RANDOM"), restore = getenv("PROBE_RESTORE");
  const size_t big = 1400 * 1400; double *P[7]; std::vector<double> h(big), in[7];
  unsigned long long seed = 88172645463325252ULL;
  for (int a = 0; a < 7; a++) {
    cudaMalloc(&P[a], big * 8);
    for (size_t i = 0; i < big; i++) {
      seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
      h[i] = random ? (double)(seed >> 11) / 9007199254740992.0 : (double)((i * (7 + 2 * a)) % 13) / 13 - 0.3;
    }
    in[a] = h;
    cudaMemcpy(P[a], h.data(), big * 8, cudaMemcpyHostToDevice);
  }
  double *C = P[0], *A = P[1], *B = P[2], *D = P[3], *E = P[4], *F = P[5], *G = P[6], *tmp = P[6];
  CALL;
  double sum = 0; for (int a = 0; a < 7; a++) { cudaMemcpy(h.data(), P[a], big * 8, cudaMemcpyDeviceToHost); for (size_t i = 0; i < big; i++) sum += h[i] * (1 + i % 7); }
  void *flush; cudaMalloc(&flush, (size_t)256 << 20);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); std::vector<float> ms;
  for (int r = 0; r < 45; r++) {
    if (restore) for (int a = 0; a < 7; a++) cudaMemcpy(P[a], in[a].data(), big * 8, cudaMemcpyHostToDevice);
    cudaMemset(flush, 0, (size_t)256 << 20); cudaDeviceSynchronize();
    cudaEventRecord(e0); CALL; cudaEventRecord(e1); cudaEventSynchronize(e1);
    float t; cudaEventElapsedTime(&t, e0, e1); if (r >= 5) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  printf("%-34s %.4f ms (%.4f-%.4f) sum %.12e %s\n", KFILE, ms[ms.size() / 2], ms[ms.size() / 5], ms[ms.size() * 4 / 5], sum, cudaGetErrorString(cudaGetLastError()));
}
