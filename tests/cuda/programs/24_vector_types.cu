// Covers: CUDA vector types float2, float4, int2, int4, uchar4, double2 built
// with make_* functions, vectorized float4 loads/stores through
// reinterpret_cast, member access .x .y .z .w, vector types as kernel
// arguments and as elements of device arrays.
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

__device__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// n4 float4 elements, processed as vectors.
__global__ void scale4(const float* in, float* out, float4 s, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = reinterpret_cast<const float4*>(in)[i];
    float4 r = make_float4(v.x * s.x, v.y * s.y, v.z * s.z, v.w * s.w);
    reinterpret_cast<float4*>(out)[i] = r;
  }
}

__global__ void mixed(const int2* p, const float2* z, int4* oi, float2* oz, uchar4* oc,
                      double2* od, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int2 q = p[i];
  oi[i] = make_int4(q.x + q.y, q.x - q.y, q.x * q.y, max(q.x, q.y));
  oz[i] = cmul(z[i], make_float2(0.5f, -1.0f));
  oc[i] = make_uchar4((unsigned char)(q.x & 255), (unsigned char)(q.y & 255),
                      (unsigned char)((q.x + q.y) & 255), 255);
  od[i] = make_double2(z[i].x * 0.25, (double)q.x / 4.0);
}

int main() {
  const int n4 = 1000, n = 4 * n4;
  float* h = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 37 - 18);
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(float)));  // cudaMalloc is 256-byte aligned
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice));
  scale4<<<(n4 + 127) / 128, 128>>>(din, dout, make_float4(1.0f, -2.0f, 0.5f, 4.0f), n4);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += h[i] * (i % 4 + 1);
  printf("scale4 out[0..7] %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f weighted %.1f\n", h[0], h[1],
         h[2], h[3], h[4], h[5], h[6], h[7], s);

  const int m = 300;
  int2* hp = (int2*)malloc(m * sizeof(int2));
  float2* hz = (float2*)malloc(m * sizeof(float2));
  for (int i = 0; i < m; ++i) {
    hp[i] = make_int2(i % 50 - 20, (i * 7) % 31);
    hz[i] = make_float2((float)(i % 9), (float)(i % 5) - 2.0f);
  }
  int2* dp;
  float2 *dz, *doz;
  int4* doi;
  uchar4* doc;
  double2* dod;
  CHECK(cudaMalloc(&dp, m * sizeof(int2)));
  CHECK(cudaMalloc(&dz, m * sizeof(float2)));
  CHECK(cudaMalloc(&doz, m * sizeof(float2)));
  CHECK(cudaMalloc(&doi, m * sizeof(int4)));
  CHECK(cudaMalloc(&doc, m * sizeof(uchar4)));
  CHECK(cudaMalloc(&dod, m * sizeof(double2)));
  CHECK(cudaMemcpy(dp, hp, m * sizeof(int2), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dz, hz, m * sizeof(float2), cudaMemcpyHostToDevice));
  mixed<<<(m + 63) / 64, 64>>>(dp, dz, doi, doz, doc, dod, m);
  CHECK(cudaGetLastError());
  int4* oi = (int4*)malloc(m * sizeof(int4));
  float2* oz = (float2*)malloc(m * sizeof(float2));
  uchar4* oc = (uchar4*)malloc(m * sizeof(uchar4));
  double2* od = (double2*)malloc(m * sizeof(double2));
  CHECK(cudaMemcpy(oi, doi, m * sizeof(int4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(oz, doz, m * sizeof(float2), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(oc, doc, m * sizeof(uchar4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(od, dod, m * sizeof(double2), cudaMemcpyDeviceToHost));
  long long si = 0, sc = 0;
  double sz = 0.0, sd = 0.0;
  for (int i = 0; i < m; ++i) {
    si += oi[i].x + 2LL * oi[i].y + 3LL * oi[i].z + 4LL * oi[i].w;
    sc += oc[i].x + oc[i].y + oc[i].z + oc[i].w;
    sz += oz[i].x - 3.0 * oz[i].y;
    sd += od[i].x + od[i].y;
  }
  printf("int4[7] %d %d %d %d sum %lld\n", oi[7].x, oi[7].y, oi[7].z, oi[7].w, si);
  printf("float2[7] %.2f %.2f sum %.2f\n", oz[7].x, oz[7].y, sz);
  printf("uchar4[7] %u %u %u %u sum %lld\n", oc[7].x, oc[7].y, oc[7].z, oc[7].w, sc);
  printf("double2 sum %.3f\n", sd);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dp));
  CHECK(cudaFree(dz));
  CHECK(cudaFree(doz));
  CHECK(cudaFree(doi));
  CHECK(cudaFree(doc));
  CHECK(cudaFree(dod));
  free(h); free(hp); free(hz); free(oi); free(oz); free(oc); free(od);
  return 0;
}
