#include <cuda_runtime.h>
#include <math.h>

__device__ float *poly_buf_a;   /* the reference's local array, sized by the call */
__device__ float *poly_buf_b;   /* the reference's local array, sized by the call */

/* sum_tree_tree0_leaves: the pairwise tree of x[i] for i < n into a[0], a block per 2048 leaves (8 a thread, then warp shuffles), the reference's pairing: then sum_tree_tree0_runs over the blocks' values. */
__global__ void __launch_bounds__(256) sum_tree_tree0_leaves(int n, float *x, float *s, long long poly_n, float *poly_dst)
{
  __shared__ float poly_s[2112];   /* leaf j at j + j / 32: no bank conflicts */
  __shared__ float poly_w[8];
  const long long poly_first = (long long)blockIdx.x * 2048;
  for (int poly_k = threadIdx.x; poly_k < 2048; poly_k += 256)
    if (poly_first + poly_k < poly_n) {
      const int i = (int)(poly_first + poly_k);
      poly_s[poly_k + poly_k / 32] = x[i];
    }
  __syncthreads();
  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;
  const long long poly_at = poly_first + 8LL * poly_t;   /* this thread's first leaf */
  float poly_v[8] = {};
#pragma unroll
  for (int poly_k = 0; poly_k < 8; poly_k++)
    if (poly_at + poly_k < poly_n) {
      const int poly_j = 8 * poly_t + poly_k;
      poly_v[poly_k] = poly_s[poly_j + poly_j / 32];
    }
#pragma unroll
  for (int poly_h = 1; poly_h < 8; poly_h *= 2)   /* the levels within a thread's run */
#pragma unroll
    for (int poly_k = 0; poly_k < 8; poly_k += 2 * poly_h)
      if (poly_at + poly_k + poly_h < poly_n) {
        const float poly_x = poly_v[poly_k], poly_y = poly_v[poly_k + poly_h];
        poly_v[poly_k] = poly_x + poly_y;
      }
  float poly_r = poly_v[0];
#pragma unroll
  for (int poly_d = 1; poly_d < 32; poly_d *= 2) {   /* the levels across a warp's runs */
    const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
    if (poly_lane % (2 * poly_d) == 0 && poly_at + 8LL * poly_d < poly_n) {
      const float poly_x = poly_r;
      poly_r = poly_x + poly_y;
    }
  }
  if (poly_lane == 0)
    poly_w[poly_t / 32] = poly_r;
  __syncthreads();
  if (poly_t < 32) {   /* the levels across the block's warps */
    poly_r = poly_w[poly_lane % 8];
#pragma unroll
    for (int poly_d = 1; poly_d < 8; poly_d *= 2) {
      const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
      if (poly_lane % (2 * poly_d) == 0 && poly_first + 256LL * (poly_lane + poly_d) < poly_n) {
        const float poly_x = poly_r;
        poly_r = poly_x + poly_y;
      }
    }
    if (poly_lane == 0)
      poly_dst[blockIdx.x] = poly_r;
  }
}

/* sum_tree_tree0_runs: the pairwise tree of sum_tree_tree0_leaves' values, 2048 a block, the same pairing. */
__global__ void __launch_bounds__(256) sum_tree_tree0_runs(const float *poly_src, long long poly_n, float *poly_dst)
{
  __shared__ float poly_s[2112];   /* leaf j at j + j / 32: no bank conflicts */
  __shared__ float poly_w[8];
  const long long poly_first = (long long)blockIdx.x * 2048;
  for (int poly_k = threadIdx.x; poly_k < 2048; poly_k += 256)
    if (poly_first + poly_k < poly_n) {
      poly_s[poly_k + poly_k / 32] = poly_src[poly_first + poly_k];
    }
  __syncthreads();
  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;
  const long long poly_at = poly_first + 8LL * poly_t;   /* this thread's first leaf */
  float poly_v[8] = {};
#pragma unroll
  for (int poly_k = 0; poly_k < 8; poly_k++)
    if (poly_at + poly_k < poly_n) {
      const int poly_j = 8 * poly_t + poly_k;
      poly_v[poly_k] = poly_s[poly_j + poly_j / 32];
    }
#pragma unroll
  for (int poly_h = 1; poly_h < 8; poly_h *= 2)   /* the levels within a thread's run */
#pragma unroll
    for (int poly_k = 0; poly_k < 8; poly_k += 2 * poly_h)
      if (poly_at + poly_k + poly_h < poly_n) {
        const float poly_x = poly_v[poly_k], poly_y = poly_v[poly_k + poly_h];
        poly_v[poly_k] = poly_x + poly_y;
      }
  float poly_r = poly_v[0];
#pragma unroll
  for (int poly_d = 1; poly_d < 32; poly_d *= 2) {   /* the levels across a warp's runs */
    const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
    if (poly_lane % (2 * poly_d) == 0 && poly_at + 8LL * poly_d < poly_n) {
      const float poly_x = poly_r;
      poly_r = poly_x + poly_y;
    }
  }
  if (poly_lane == 0)
    poly_w[poly_t / 32] = poly_r;
  __syncthreads();
  if (poly_t < 32) {   /* the levels across the block's warps */
    poly_r = poly_w[poly_lane % 8];
#pragma unroll
    for (int poly_d = 1; poly_d < 8; poly_d *= 2) {
      const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
      if (poly_lane % (2 * poly_d) == 0 && poly_first + 256LL * (poly_lane + poly_d) < poly_n) {
        const float poly_x = poly_r;
        poly_r = poly_x + poly_y;
      }
    }
    if (poly_lane == 0)
      poly_dst[blockIdx.x] = poly_r;
  }
}

/* sum_tree_exchange4: one thread runs `s[0] = a[0]` (outside the loops). */
__global__ void __launch_bounds__(256) sum_tree_exchange4(int n, float *x, float *s, int poly_lo0, int poly_n0, long long poly_count)
{
  for (long long poly_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; poly_t < poly_count; poly_t += (long long)gridDim.x * blockDim.x) {
    long long poly_q = poly_t;
    const int poly_one = poly_lo0 + (int)(poly_q);
    s[0] = poly_buf_a[0];
  }
}

extern "C" void sum_tree_device(int n, float *x, float *s)
{
  static bool poly_pool_kept = false;   /* scratch stays in the pool between calls */
  if (!poly_pool_kept) {
    int poly_device;
    cudaMemPool_t poly_pool;
    unsigned long long poly_keep = ~0ULL;
    cudaGetDevice(&poly_device);
    cudaDeviceGetDefaultMemPool(&poly_pool, poly_device);
    cudaMemPoolSetAttribute(poly_pool, cudaMemPoolAttrReleaseThreshold, &poly_keep);
    poly_pool_kept = true;
  }
  float *poly_local_a = NULL;   /* poly_buf_a for these sizes */
  cudaMallocAsync((void **)&poly_local_a, (size_t)(n) * sizeof(float) + 1, 0);
  cudaMemcpyToSymbolAsync(poly_buf_a, &poly_local_a, sizeof(poly_local_a), 0, cudaMemcpyHostToDevice, 0);
  float *poly_local_b = NULL;   /* poly_buf_b for these sizes */
  cudaMallocAsync((void **)&poly_local_b, (size_t)(n) * sizeof(float) + 1, 0);
  cudaMemcpyToSymbolAsync(poly_buf_b, &poly_local_b, sizeof(poly_local_b), 0, cudaMemcpyHostToDevice, 0);
  int i;
  int h;
  {   /* the pairwise tree: a pass over the leaves, then over the values of each pass */
    long long poly_n = n;
    if (poly_n > 0) {
      long long poly_blocks = (poly_n + 2047) / 2048;
      float *poly_dst = poly_blocks == 1 ? poly_local_a : poly_local_b;
      sum_tree_tree0_leaves<<<(unsigned)poly_blocks, 256>>>(n, x, s, poly_n, poly_dst);
      while (poly_blocks > 1) {
        float *poly_src = poly_dst;
        poly_n = poly_blocks;
        poly_blocks = (poly_n + 2047) / 2048;
        poly_dst = poly_blocks == 1 || poly_src == poly_local_b ? poly_local_a : poly_local_b;
        sum_tree_tree0_runs<<<(unsigned)poly_blocks, 256>>>(poly_src, poly_n, poly_dst);
      }
    }
  }
  {
    const int poly_n0 = 1;   /* poly_one */
    const long long poly_count = (long long)poly_n0;
    if (poly_n0 > 0)
      sum_tree_exchange4<<<poly_count < 256 * 65535LL ? (unsigned)((poly_count + 255) / 256) : 65535u, 256>>>(n, x, s, 0, poly_n0, poly_count);
  }
  cudaFreeAsync(poly_local_a, 0);
  cudaFreeAsync(poly_local_b, 0);
}

__global__ void __launch_bounds__(256) v0(int n, float *x, float *s, long long poly_n, float *poly_dst)
{
  __shared__ float poly_s[2112];   /* leaf j at j + j / 32: no bank conflicts */
  __shared__ float poly_w[8];
  const long long poly_first = (long long)blockIdx.x * 2048;
  for (int poly_k = threadIdx.x; poly_k < 2048; poly_k += 256)
    if (poly_first + poly_k < poly_n) {
      const int i = (int)(poly_first + poly_k);
      poly_s[poly_k + poly_k / 32] = x[i];
    }
  __syncthreads();
  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;
  const long long poly_at = poly_first + 8LL * poly_t;   /* this thread's first leaf */
  float poly_v[8] = {};
#pragma unroll
  for (int poly_k = 0; poly_k < 8; poly_k++)
    if (poly_at + poly_k < poly_n) {
      const int poly_j = 8 * poly_t + poly_k;
      poly_v[poly_k] = poly_s[poly_j + poly_j / 32];
    }
#pragma unroll
  for (int poly_h = 1; poly_h < 8; poly_h *= 2)   /* the levels within a thread's run */
#pragma unroll
    for (int poly_k = 0; poly_k < 8; poly_k += 2 * poly_h)
      if (poly_at + poly_k + poly_h < poly_n) {
        const float poly_x = poly_v[poly_k], poly_y = poly_v[poly_k + poly_h];
        poly_v[poly_k] = poly_x + poly_y;
      }
  float poly_r = poly_v[0];
#pragma unroll
  for (int poly_d = 1; poly_d < 32; poly_d *= 2) {   /* the levels across a warp's runs */
    const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
    if (poly_lane % (2 * poly_d) == 0 && poly_at + 8LL * poly_d < poly_n) {
      const float poly_x = poly_r;
      poly_r = poly_x + poly_y;
    }
  }
  if (poly_lane == 0)
    poly_w[poly_t / 32] = poly_r;
  __syncthreads();
  if (poly_t < 32) {   /* the levels across the block's warps */
    poly_r = poly_w[poly_lane % 8];
#pragma unroll
    for (int poly_d = 1; poly_d < 8; poly_d *= 2) {
      const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
      if (poly_lane % (2 * poly_d) == 0 && poly_first + 256LL * (poly_lane + poly_d) < poly_n) {
        const float poly_x = poly_r;
        poly_r = poly_x + poly_y;
      }
    }
    if (poly_lane == 0)
      poly_dst[blockIdx.x] = poly_r;
  }
}

__global__ void __launch_bounds__(256) v1(int n, const float *__restrict__ x, float *s, long long poly_n, float *poly_dst)
{
  __shared__ float poly_s[2112];   /* leaf j at j + j / 32: no bank conflicts */
  __shared__ float poly_w[8];
  const long long poly_first = (long long)blockIdx.x * 2048;
#pragma unroll
  for (int poly_k = threadIdx.x; poly_k < 2048; poly_k += 256)
    if (poly_first + poly_k < poly_n) {
      const int i = (int)(poly_first + poly_k);
      poly_s[poly_k + poly_k / 32] = x[i];
    }
  __syncthreads();
  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;
  const long long poly_at = poly_first + 8LL * poly_t;   /* this thread's first leaf */
  float poly_v[8] = {};
#pragma unroll
  for (int poly_k = 0; poly_k < 8; poly_k++)
    if (poly_at + poly_k < poly_n) {
      const int poly_j = 8 * poly_t + poly_k;
      poly_v[poly_k] = poly_s[poly_j + poly_j / 32];
    }
#pragma unroll
  for (int poly_h = 1; poly_h < 8; poly_h *= 2)   /* the levels within a thread's run */
#pragma unroll
    for (int poly_k = 0; poly_k < 8; poly_k += 2 * poly_h)
      if (poly_at + poly_k + poly_h < poly_n) {
        const float poly_x = poly_v[poly_k], poly_y = poly_v[poly_k + poly_h];
        poly_v[poly_k] = poly_x + poly_y;
      }
  float poly_r = poly_v[0];
#pragma unroll
  for (int poly_d = 1; poly_d < 32; poly_d *= 2) {   /* the levels across a warp's runs */
    const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
    if (poly_lane % (2 * poly_d) == 0 && poly_at + 8LL * poly_d < poly_n) {
      const float poly_x = poly_r;
      poly_r = poly_x + poly_y;
    }
  }
  if (poly_lane == 0)
    poly_w[poly_t / 32] = poly_r;
  __syncthreads();
  if (poly_t < 32) {   /* the levels across the block's warps */
    poly_r = poly_w[poly_lane % 8];
#pragma unroll
    for (int poly_d = 1; poly_d < 8; poly_d *= 2) {
      const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
      if (poly_lane % (2 * poly_d) == 0 && poly_first + 256LL * (poly_lane + poly_d) < poly_n) {
        const float poly_x = poly_r;
        poly_r = poly_x + poly_y;
      }
    }
    if (poly_lane == 0)
      poly_dst[blockIdx.x] = poly_r;
  }
}

__global__ void __launch_bounds__(256) v2(int n, const float *__restrict__ x, float *s, long long poly_n, float *poly_dst)
{
  __shared__ float poly_s[2112];   /* leaf j at j + j / 32: no bank conflicts */
  __shared__ float poly_w[8];
  const long long poly_first = (long long)blockIdx.x * 2048;
  if (poly_first + 2048 <= poly_n) {
    float poly_l[8];
#pragma unroll
    for (int u = 0; u < 8; u++)
      poly_l[u] = x[poly_first + threadIdx.x + 256 * u];
#pragma unroll
    for (int u = 0; u < 8; u++) {
      const int poly_k = threadIdx.x + 256 * u;
      poly_s[poly_k + poly_k / 32] = poly_l[u];
    }
  } else
  for (int poly_k = threadIdx.x; poly_k < 2048; poly_k += 256)
    if (poly_first + poly_k < poly_n) {
      const int i = (int)(poly_first + poly_k);
      poly_s[poly_k + poly_k / 32] = x[i];
    }
  __syncthreads();
  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;
  const long long poly_at = poly_first + 8LL * poly_t;   /* this thread's first leaf */
  float poly_v[8] = {};
#pragma unroll
  for (int poly_k = 0; poly_k < 8; poly_k++)
    if (poly_at + poly_k < poly_n) {
      const int poly_j = 8 * poly_t + poly_k;
      poly_v[poly_k] = poly_s[poly_j + poly_j / 32];
    }
#pragma unroll
  for (int poly_h = 1; poly_h < 8; poly_h *= 2)   /* the levels within a thread's run */
#pragma unroll
    for (int poly_k = 0; poly_k < 8; poly_k += 2 * poly_h)
      if (poly_at + poly_k + poly_h < poly_n) {
        const float poly_x = poly_v[poly_k], poly_y = poly_v[poly_k + poly_h];
        poly_v[poly_k] = poly_x + poly_y;
      }
  float poly_r = poly_v[0];
#pragma unroll
  for (int poly_d = 1; poly_d < 32; poly_d *= 2) {   /* the levels across a warp's runs */
    const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
    if (poly_lane % (2 * poly_d) == 0 && poly_at + 8LL * poly_d < poly_n) {
      const float poly_x = poly_r;
      poly_r = poly_x + poly_y;
    }
  }
  if (poly_lane == 0)
    poly_w[poly_t / 32] = poly_r;
  __syncthreads();
  if (poly_t < 32) {   /* the levels across the block's warps */
    poly_r = poly_w[poly_lane % 8];
#pragma unroll
    for (int poly_d = 1; poly_d < 8; poly_d *= 2) {
      const float poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);
      if (poly_lane % (2 * poly_d) == 0 && poly_first + 256LL * (poly_lane + poly_d) < poly_n) {
        const float poly_x = poly_r;
        poly_r = poly_x + poly_y;
      }
    }
    if (poly_lane == 0)
      poly_dst[blockIdx.x] = poly_r;
  }
}


#include <stdio.h>
#include <algorithm>
#include <vector>
static char *flush; static size_t flushb = 256 << 20;
template <class F> float time_it(F f) {
  std::vector<float> ms; cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int r = 0; r < 25; r++) { cudaMemset(flush, r, flushb); cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float t; cudaEventElapsedTime(&t, a, b); if (r >= 5) ms.push_back(t); }
  std::sort(ms.begin(), ms.end()); return ms[ms.size() / 2];
}
int main() {
  const int n = 16777216; float *x, *s, *d; cudaMalloc(&x, 4L * n); cudaMalloc(&s, 4); cudaMalloc(&d, 4L * n / 2048); cudaMalloc(&flush, flushb);
  cudaMemset(x, 0, 4L * n); int nb = n / 2048;
  printf("leaves v0 (as generated)        %.4f ms\n", time_it([&] { v0<<<nb, 256>>>(n, x, s, n, d); }));
  printf("leaves v1 (restrict, unrolled)  %.4f ms\n", time_it([&] { v1<<<nb, 256>>>(n, x, s, n, d); }));
  printf("leaves v2 (8 loads first)       %.4f ms\n", time_it([&] { v2<<<nb, 256>>>(n, x, s, n, d); }));
  printf("whole call sum_tree_device      %.4f ms\n", time_it([&] { sum_tree_device(n, x, s); }));
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
