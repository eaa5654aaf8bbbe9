// Covers: cudaEventCreate, cudaEventCreateWithFlags, cudaEventRecord on the
// default stream and on a created stream, cudaEventSynchronize, cudaEventQuery,
// cudaEventElapsedTime (only checked to be >= 0, never printed), and
// cudaEventDestroy, around real work whose result is printed.
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

__global__ void collatz_steps(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = i + 1;
  int steps = 0;
  while (v != 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    ++steps;
  }
  out[i] = steps;
}

int main() {
  const int n = 100000;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  cudaEvent_t start, stop, marker;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&marker, cudaEventDisableTiming));

  CHECK(cudaEventRecord(start));
  collatz_steps<<<(n + 255) / 256, 256>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("elapsed time non-negative: %s\n", ms >= 0.0f ? "yes" : "no");
  printf("query stop after sync: %s\n", cudaEventQuery(stop) == cudaSuccess ? "complete" : "pending");

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t s0, s1;
  CHECK(cudaEventCreate(&s0));
  CHECK(cudaEventCreate(&s1));
  CHECK(cudaEventRecord(s0, s));
  CHECK(cudaMemsetAsync(d, 0, 10 * sizeof(int), s));
  CHECK(cudaEventRecord(marker, s));
  CHECK(cudaEventRecord(s1, s));
  CHECK(cudaEventSynchronize(s1));
  CHECK(cudaEventSynchronize(marker));
  float ms2 = -1.0f;
  CHECK(cudaEventElapsedTime(&ms2, s0, s1));
  printf("stream elapsed non-negative: %s\n", ms2 >= 0.0f ? "yes" : "no");

  int* h = (int*)malloc(n * sizeof(int));
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long total = 0;
  int best = 0, arg = 0;
  for (int i = 0; i < n; ++i) {
    total += h[i];
    if (h[i] > best) { best = h[i]; arg = i; }
  }
  printf("steps[0..9] zeroed %d %d, steps[10] %d steps[26] %d\n", h[0], h[9], h[10], h[26]);
  printf("total steps %lld longest %d at n=%d\n", total, best, arg + 1);

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaEventDestroy(marker));
  CHECK(cudaEventDestroy(s0));
  CHECK(cudaEventDestroy(s1));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d));
  free(h);
  return 0;
}
