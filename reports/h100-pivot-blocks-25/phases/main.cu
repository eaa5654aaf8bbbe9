// Times lu's pivot-block phases under ncu: the candidate's device entry on a diagonally dominant matrix.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include CANDIDATE
int main() {
  const int n = 2000;
  std::vector<double> h((size_t)n * n);
  srand(1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) h[(size_t)i * n + j] = (i == j ? n : 0) + rand() / (double)RAND_MAX;
  double *d;
  cudaMalloc(&d, h.size() * sizeof(double));
  for (int r = 0; r < 2; r++) {
    cudaMemcpy(d, h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice);
    kernel_lu_device(n, d);
    cudaDeviceSynchronize();
  }
  printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
