// Covers: warp shuffles: __shfl_down_sync tree reduction (lane 0 gets the sum),
// __shfl_xor_sync butterfly (every lane gets the sum), __shfl_sync broadcast
// from a lane, __shfl_xor_sync with width 8 (sub-groups), float shuffles, and a
// block reduction that combines per-warp sums through shared memory.
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

#define FULL 0xffffffffu

__device__ int warp_sum_down(int v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(FULL, v, off);
  return v;
}

__device__ float warp_sum_xor(float v) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL, v, m);
  return v;
}

// Per warp: out[w*4+0] = down-sum (lane 0), out[w*4+1] = 1 if every lane's xor-sum
// equals it, out[w*4+2] = value of lane 5 broadcast (summed over lanes),
// out[w*4+3] = sum over lanes of the width-8 group maxima.
__global__ void warp_ops(const int* in, int* out) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int w = g >> 5;
  int v = in[g];
  int down = warp_sum_down(v);
  float x = warp_sum_xor((float)v);
  int total = __shfl_sync(FULL, down, 0);  // broadcast lane 0's result
  int all_same = __all_sync(FULL, (int)x == total);
  int b5 = __shfl_sync(FULL, v, 5);
  int gm = v;
  for (int m = 4; m > 0; m >>= 1) gm = max(gm, __shfl_xor_sync(FULL, gm, m, 8));
  int sum_b5 = warp_sum_down(b5);
  int sum_gm = warp_sum_down(gm);
  if (lane == 0) {
    out[w * 4 + 0] = down;
    out[w * 4 + 1] = all_same;
    out[w * 4 + 2] = sum_b5;
    out[w * 4 + 3] = sum_gm;
  }
}

__global__ void block_reduce(const int* in, int* out, int n) {
  __shared__ int warp_sums[32];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  int v = (g < n) ? in[g] : 0;
  v = warp_sum_down(v);
  if (lane == 0) warp_sums[wid] = v;
  __syncthreads();
  if (wid == 0) {
    int nw = blockDim.x / 32;
    v = (lane < nw) ? warp_sums[lane] : 0;
    v = warp_sum_down(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

int main() {
  const int n = 4096, warps = n / 32;
  int* h = (int*)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) h[i] = (i * 97 + 13) % 201 - 100;
  int *din, *dout, *dsum;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, warps * 4 * sizeof(int)));
  CHECK(cudaMalloc(&dsum, sizeof(int)));
  CHECK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dsum, 0, sizeof(int)));
  warp_ops<<<n / 256, 256>>>(din, dout);
  CHECK(cudaGetLastError());
  block_reduce<<<(3999 + 511) / 512, 512>>>(din, dsum, 3999);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int* o = (int*)malloc(warps * 4 * sizeof(int));
  int bsum;
  CHECK(cudaMemcpy(o, dout, warps * 4 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&bsum, dsum, sizeof(int), cudaMemcpyDeviceToHost));
  long long c0 = 0, c2 = 0, c3 = 0;
  int same = 0;
  for (int w = 0; w < warps; ++w) {
    c0 += (long long)o[w * 4] * (w + 1);
    same += o[w * 4 + 1];
    c2 += o[w * 4 + 2];
    c3 += o[w * 4 + 3];
  }
  printf("warp0: sum %d bcast %d groupmax %d\n", o[0], o[2], o[3]);
  printf("warp %d: sum %d bcast %d groupmax %d\n", warps - 1, o[(warps - 1) * 4],
         o[(warps - 1) * 4 + 2], o[(warps - 1) * 4 + 3]);
  printf("weighted warp sums %lld xor-agree %d/%d bcast %lld groupmax %lld\n", c0, same,
         warps, c2, c3);
  printf("block reduce of first 3999: %d\n", bsum);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsum));
  free(h);
  free(o);
  return 0;
}
