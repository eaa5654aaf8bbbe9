// Covers: cudaStreamCreate / cudaStreamDestroy, pinned host memory
// (cudaMallocHost / cudaFreeHost), cudaMemcpyAsync host->device and
// device->host on several streams, kernel launches on a stream (4th launch
// argument), cudaStreamSynchronize, a cross-stream dependency through
// cudaEventRecord + cudaStreamWaitEvent, and cudaStreamQuery after sync.
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

#define NSTREAMS 4

__global__ void work(int* x, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = x[i];
    for (int k = 0; k < 8; ++k) v = (v * mul + add) % 65521;
    x[i] = v;
  }
}

// Adds chunk 0's first element to every element of the chunk it runs on.
__global__ void add_first_of(const int* src, int* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += src[0];
}

int main() {
  const int chunk = 5000, n = NSTREAMS * chunk;
  int* h;
  int* d;
  CHECK(cudaMallocHost(&h, n * sizeof(int)));
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  for (int i = 0; i < n; ++i) h[i] = i % 4099;
  cudaStream_t s[NSTREAMS];
  for (int k = 0; k < NSTREAMS; ++k) CHECK(cudaStreamCreate(&s[k]));
  cudaEvent_t chunk0_done;
  CHECK(cudaEventCreate(&chunk0_done));

  for (int k = 0; k < NSTREAMS; ++k) {
    int* hp = h + k * chunk;
    int* dp = d + k * chunk;
    CHECK(cudaMemcpyAsync(dp, hp, chunk * sizeof(int), cudaMemcpyHostToDevice, s[k]));
    work<<<(chunk + 127) / 128, 128, 0, s[k]>>>(dp, chunk, 3 + k, 7 * k + 1);
    CHECK(cudaGetLastError());
    if (k == 0) CHECK(cudaEventRecord(chunk0_done, s[0]));
  }
  // Stream 3 must see chunk 0 finished before it adds chunk 0's first element.
  CHECK(cudaStreamWaitEvent(s[3], chunk0_done, 0));
  add_first_of<<<(chunk + 127) / 128, 128, 0, s[3]>>>(d, d + 3 * chunk, chunk);
  CHECK(cudaGetLastError());
  for (int k = 0; k < NSTREAMS; ++k)
    CHECK(cudaMemcpyAsync(h + k * chunk, d + k * chunk, chunk * sizeof(int),
                          cudaMemcpyDeviceToHost, s[k]));
  for (int k = 0; k < NSTREAMS; ++k) CHECK(cudaStreamSynchronize(s[k]));
  for (int k = 0; k < NSTREAMS; ++k)
    printf("stream %d query after sync: %s\n", k,
           cudaStreamQuery(s[k]) == cudaSuccess ? "done" : "busy");

  for (int k = 0; k < NSTREAMS; ++k) {
    long long cs = 0;
    for (int i = 0; i < chunk; ++i) cs += (long long)h[k * chunk + i] * (i % 13 + 1);
    printf("chunk %d first %d last %d checksum %lld\n", k, h[k * chunk],
           h[k * chunk + chunk - 1], cs);
  }
  CHECK(cudaEventDestroy(chunk0_done));
  for (int k = 0; k < NSTREAMS; ++k) CHECK(cudaStreamDestroy(s[k]));
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(h));
  return 0;
}
