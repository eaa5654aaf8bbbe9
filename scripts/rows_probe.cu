#include <cuda_runtime.h>
#include <math.h>
__global__ void v0(int b, int c, const float *X, float *Y)
{
  __shared__ float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = X[(r * c) + j];
        if (j < 4096)
          poly_row_X[j] = poly_v_X;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(poly_part_acc_r1, poly_v_X);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
    {
      const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
      Y[(r * c) + j] = expf(poly_v_X - poly_row_mx) / poly_row_den;
    }
    __syncthreads();
  }
}

__global__ void v1(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
#pragma unroll 4
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = X[(r * c) + j];
        if (j < 4096)
          poly_row_X[j] = poly_v_X;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(poly_part_acc_r1, poly_v_X);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
    {
      const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
      Y[(r * c) + j] = expf(poly_v_X - poly_row_mx) / poly_row_den;
    }
    __syncthreads();
  }
}

__global__ void v2(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
#pragma unroll 4
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = X[(r * c) + j];
        if (j < 4096)
          poly_row_X[j] = poly_v_X;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(poly_part_acc_r1, poly_v_X);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
#pragma unroll 4
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
#pragma unroll 4
    for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
    {
      const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
      Y[(r * c) + j] = expf(poly_v_X - poly_row_mx) / poly_row_den;
    }
    __syncthreads();
  }
}

__global__ void v3(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
      for (j = (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
      {
        float poly_l[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
          poly_l[u] = j + u * (int)blockDim.x < c ? __ldg(&X[(r * c) + j + u * (int)blockDim.x]) : -INFINITY;
#pragma unroll
        for (int u = 0; u < 4; u++) {
          const int jj = j + u * (int)blockDim.x;
          if (jj < 4096 && jj < c)
            poly_row_X[jj] = poly_l[u];
          poly_part_acc_r1 = fmaxf(poly_part_acc_r1, poly_l[u]);
        }
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
    {
      const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
      Y[(r * c) + j] = expf(poly_v_X - poly_row_mx) / poly_row_den;
    }
    __syncthreads();
  }
}

__global__ void v4(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ __align__(16) float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
      for (j = 4 * (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
      {
        const float4 poly_q = *(const float4 *)&X[(r * c) + j];
        *(float4 *)&poly_row_X[j] = poly_q;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(fmaxf(poly_part_acc_r1, poly_q.x), fmaxf(poly_q.y, fmaxf(poly_q.z, poly_q.w)));
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = 4 * (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
    {
      const float4 poly_q = *(const float4 *)&poly_row_X[j];
      float4 poly_o;
      poly_o.x = expf(poly_q.x - poly_row_mx) / poly_row_den;
      poly_o.y = expf(poly_q.y - poly_row_mx) / poly_row_den;
      poly_o.z = expf(poly_q.z - poly_row_mx) / poly_row_den;
      poly_o.w = expf(poly_q.w - poly_row_mx) / poly_row_den;
      *(float4 *)&Y[(r * c) + j] = poly_o;
    }
    __syncthreads();
  }
}

__global__ void v5(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ __align__(16) float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
      for (j = 4 * (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
      {
        const float4 poly_q = *(const float4 *)&X[(r * c) + j];
        *(float4 *)&poly_row_X[j] = poly_q;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(fmaxf(poly_part_acc_r1, poly_q.x), fmaxf(poly_q.y, fmaxf(poly_q.z, poly_q.w)));
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
    {
      const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
      Y[(r * c) + j] = expf(poly_v_X - poly_row_mx) / poly_row_den;
    }
    __syncthreads();
  }
}

__global__ void v6(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ __align__(16) float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ double poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  double acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = X[(r * c) + j];
        if (j < 4096)
          poly_row_X[j] = poly_v_X;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(poly_part_acc_r1, poly_v_X);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      double poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = 4 * (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
    {
      const float4 poly_q = *(const float4 *)&poly_row_X[j];
      float4 poly_o;
      poly_o.x = expf(poly_q.x - poly_row_mx) / poly_row_den;
      poly_o.y = expf(poly_q.y - poly_row_mx) / poly_row_den;
      poly_o.z = expf(poly_q.z - poly_row_mx) / poly_row_den;
      poly_o.w = expf(poly_q.w - poly_row_mx) / poly_row_den;
      *(float4 *)&Y[(r * c) + j] = poly_o;
    }
    __syncthreads();
  }
}

__global__ void v7(int b, int c, const float *__restrict__ X, float *__restrict__ Y)
{
  __shared__ __align__(16) float poly_row_X[4096];   /* the row's first 4096 elements of X */
  __shared__ float poly_warps_acc_r1[32];
  __shared__ float poly_warps_acc_r2[32];
  float poly_row_mx;   /* mx[r]: every thread's copy */
  float poly_row_den;   /* den[r]: every thread's copy */
  float acc_r1;
  float acc_r2;
  int j;
  for (int r = (int)blockIdx.x; r < b; r += (int)gridDim.x) {
    acc_r1 = -(1.0f / 0.0f);
    {   /* phase 2: each thread folds its elements, then the block combines them */
      float poly_part_acc_r1 = -INFINITY;
      for (j = 4 * (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
      {
        const float4 poly_q = *(const float4 *)&X[(r * c) + j];
        *(float4 *)&poly_row_X[j] = poly_q;   /* kept for the phases after */
        poly_part_acc_r1 = fmaxf(fmaxf(poly_part_acc_r1, poly_q.x), fmaxf(poly_q.y, fmaxf(poly_q.z, poly_q.w)));
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, __shfl_down_sync(0xffffffffu, poly_part_acc_r1, poly_o));
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r1[threadIdx.x / 32] = poly_part_acc_r1;
      __syncthreads();
      poly_part_acc_r1 = poly_warps_acc_r1[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r1 = fmax(poly_part_acc_r1, poly_warps_acc_r1[poly_w]);
      acc_r1 = fmax(acc_r1, poly_part_acc_r1);
      __syncthreads();
    }
    poly_row_mx = acc_r1;
    acc_r2 = 0.0f;
    {   /* phase 5: each thread folds its elements, then the block combines them */
      float poly_part_acc_r2 = 0;
      for (j = (int)threadIdx.x; j < c; j += (int)blockDim.x)
      {
        const float poly_v_X = j < 4096 ? poly_row_X[j] : X[(r * c) + j];
        poly_part_acc_r2 += expf(poly_v_X - poly_row_mx);
      }
      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)
        poly_part_acc_r2 = poly_part_acc_r2 + __shfl_down_sync(0xffffffffu, poly_part_acc_r2, poly_o);
      if (threadIdx.x % 32 == 0)
        poly_warps_acc_r2[threadIdx.x / 32] = poly_part_acc_r2;
      __syncthreads();
      poly_part_acc_r2 = poly_warps_acc_r2[0];   /* every thread: the same total, in a fixed order */
      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)
        poly_part_acc_r2 = poly_part_acc_r2 + poly_warps_acc_r2[poly_w];
      acc_r2 = acc_r2 + poly_part_acc_r2;
      __syncthreads();
    }
    poly_row_den = acc_r2;
    for (j = 4 * (int)threadIdx.x; j < c; j += 4 * (int)blockDim.x)
    {
      const float4 poly_q = *(const float4 *)&poly_row_X[j];
      float4 poly_o;
      poly_o.x = expf(poly_q.x - poly_row_mx) / poly_row_den;
      poly_o.y = expf(poly_q.y - poly_row_mx) / poly_row_den;
      poly_o.z = expf(poly_q.z - poly_row_mx) / poly_row_den;
      poly_o.w = expf(poly_q.w - poly_row_mx) / poly_row_den;
      *(float4 *)&Y[(r * c) + j] = poly_o;
    }
    __syncthreads();
  }
}


#include <stdio.h>
#include <algorithm>
#include <vector>
#include "probe_common.cuh"
int main() {
  const int b = 4096, c = 4096; size_t n = (size_t)b * c;
  float *X, *Y, *Z; cudaMalloc(&X, 4 * n); cudaMalloc(&Y, 4 * n); cudaMalloc(&Z, 4 * n);
  std::vector<float> h(n); for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 2000) / 100.f - 10.f;
  cudaMemcpy(X, h.data(), 4 * n, cudaMemcpyHostToDevice);
  std::vector<float> y0(n), y1(n);
  printf("softmax_let's row-phases kernel (v0, as generated) against variants, %d x %d floats, median of 20 after an L2 flush\n"
         "v1: restrict, unroll 4; v3: four loads a thread first; v4: 16-byte loads into shared memory and 16-byte stores;\n"
         "v5: 16-byte loads only; v6: 16-byte stores only; v7: v4 with the sum in float (a different result)\n", b, c);
#define RUN(K, T) { float t = time_it([&] { K<<<b, T>>>(b, c, X, Y); }); cudaMemcpy(y1.data(), Y, 4 * n, cudaMemcpyDeviceToHost); \
    double d = 0; for (size_t i = 0; i < n; i++) d = std::max(d, (double)fabsf(y1[i] - y0[i])); printf("%-28s %.4f ms  max diff to v0 %.3g\n", #K " " #T, t, d); }
  v0<<<b, 256>>>(b, c, X, Y); cudaMemcpy(y0.data(), Y, 4 * n, cudaMemcpyDeviceToHost);
  RUN(v0, 256) RUN(v1, 256) RUN(v3, 256) RUN(v4, 256) RUN(v5, 256) RUN(v6, 256) RUN(v7, 256) RUN(v4, 128) RUN(v4, 512) RUN(v4, 1024) RUN(v0, 256)
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
