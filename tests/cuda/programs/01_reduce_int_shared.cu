// Covers: shared-memory tree reduction of ints with __syncthreads, many blocks,
// a bounds check on a size that is not a multiple of the block, and a second
// single-block launch that reduces the per-block partial sums (block-stride loop).
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

#define BLOCK 256

__global__ void reduce_int(const int* in, int* partial, int n) {
  __shared__ int s[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  s[tid] = (i < n) ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

// One block: every thread first accumulates a strided slice, then tree-reduces.
__global__ void reduce_partials(const int* partial, int* out, int m) {
  __shared__ int s[BLOCK];
  int tid = threadIdx.x;
  int acc = 0;
  for (int j = tid; j < m; j += blockDim.x) acc += partial[j];
  s[tid] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) *out = s[0];
}

int main() {
  const int n = 100000;
  const int blocks = (n + BLOCK - 1) / BLOCK;
  int* h = (int*)malloc(n * sizeof(int));
  long long cpu = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = (int)(((long long)i * 7919) % 1000) - 500;
    cpu += h[i];
  }
  int *d_in, *d_part, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_part, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_out, sizeof(int)));
  CHECK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));

  reduce_int<<<blocks, BLOCK>>>(d_in, d_part, n);
  CHECK(cudaGetLastError());
  reduce_partials<<<1, BLOCK>>>(d_part, d_out, blocks);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  int* part = (int*)malloc(blocks * sizeof(int));
  int total = 0;
  CHECK(cudaMemcpy(part, d_part, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, d_out, sizeof(int), cudaMemcpyDeviceToHost));

  long long host_sum_of_parts = 0;
  for (int b = 0; b < blocks; ++b) host_sum_of_parts += part[b];
  printf("blocks %d\n", blocks);
  printf("partial[0] %d partial[1] %d partial[last] %d\n", part[0], part[1],
         part[blocks - 1]);
  printf("sum of partials %lld\n", host_sum_of_parts);
  printf("gpu total %d\n", total);
  printf("cpu total %lld\n", cpu);
  printf("%s\n", (total == cpu && host_sum_of_parts == cpu) ? "MATCH" : "MISMATCH");

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_part));
  CHECK(cudaFree(d_out));
  free(h);
  free(part);
  return 0;
}
