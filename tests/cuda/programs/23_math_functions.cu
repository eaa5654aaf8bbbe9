// Covers: device math: expf, __expf, logf, sqrtf, sqrt, rsqrtf, fmaf and fma
// (single rounding, shown against __fmul_rn/__fadd_rn and __dmul_rn/__dadd_rn),
// __fdividef, IEEE division, sincosf, sincos, exp/log in double, and exact
// functions floorf/ceilf/truncf/roundf/fminf/fmaxf/fabsf/copysignf.
// Approximate functions are checked against a host double reference with a
// tolerance and only the count of passing inputs is printed; a few values are
// printed with 4 decimals, far from any rounding boundary.
#include <cstdio>
#include <cstdlib>
#include <cmath>
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

#define NF 10  // functions evaluated per input

__global__ void approx(const float* x, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];                    // in [-5, 5)
  float p = fabsf(v) + 0.125f;       // positive argument
  float s, c;
  sincosf(v, &s, &c);
  double sd, cd;
  sincos((double)v, &sd, &cd);
  double* o = out + (size_t)i * NF;
  o[0] = expf(v);
  o[1] = __expf(v);
  o[2] = logf(p);
  o[3] = rsqrtf(p);
  o[4] = __fdividef(v, p);
  o[5] = s;
  o[6] = c;
  o[7] = sd;
  o[8] = exp((double)v);
  o[9] = sqrtf(p);
}

// Inputs come in as arguments so that nothing is folded at compile time.
__global__ void exact(float a, float b, double da, double db, float* f, double* d) {
  f[0] = fmaf(a, b, -1.0f);                    // -2^-26, single rounding
  f[1] = __fadd_rn(__fmul_rn(a, b), -1.0f);    // product rounds to 1 first: 0
  float two = b + 1.0f / 8192.0f + 1.0f;      // exactly 2
  f[2] = sqrtf(two + 0.25f);
  f[3] = sqrtf(two);
  f[4] = 1.0f / (two + 1.0f);
  f[5] = floorf(-2.5f * a / a) + 10.0f * ceilf(-1.25f * two);
  f[6] = truncf(-1.35f * two) + 10.0f * roundf(1.25f * two) + 100.0f * roundf(-0.25f * two);
  f[7] = fminf(1.5f * two, -2.0f * two) + fmaxf(1.5f * two, -2.0f * two) * 10.0f +
         fabsf(-3.0f * two) * 100.0f;
  f[8] = copysignf(1.5f * two, -0.0f * two);
  d[0] = fma(da, db, -1.0);                    // -2^-60
  d[1] = __dadd_rn(__dmul_rn(da, db), -1.0);   // 0
  double dtwo = db + 1.0 / 1073741824.0 + 1.0;  // exactly 2
  d[2] = sqrt(dtwo);
  d[3] = 1.0 / (dtwo + 1.0);
}

int main() {
  const int n = 1000;
  float* hx = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) hx[i] = (float)(i - 500) / 100.0f;  // exact inputs, 1.0 at i=600
  float* dx;
  double* dout;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * NF * sizeof(double)));
  CHECK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  approx<<<(n + 127) / 128, 128>>>(dx, dout, n);
  CHECK(cudaGetLastError());
  float* df;
  double* dd;
  CHECK(cudaMalloc(&df, 9 * sizeof(float)));
  CHECK(cudaMalloc(&dd, 4 * sizeof(double)));
  exact<<<1, 1>>>(1.0f + 1.0f / 8192.0f, 1.0f - 1.0f / 8192.0f, 1.0 + 1.0 / 1073741824.0,
                  1.0 - 1.0 / 1073741824.0, df, dd);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  double* o = (double*)malloc(n * NF * sizeof(double));
  float hf[9];
  double hd[4];
  CHECK(cudaMemcpy(o, dout, n * NF * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hf, df, sizeof(hf), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hd, dd, sizeof(hd), cudaMemcpyDeviceToHost));

  const char* names[NF] = {"expf", "__expf", "logf", "rsqrtf", "__fdividef",
                           "sincosf.sin", "sincosf.cos", "sincos.sin", "exp", "sqrtf"};
  const double rel[NF] = {1e-6, 1e-5, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-14, 1e-14, 1e-6};
  int ok[NF] = {0};
  for (int i = 0; i < n; ++i) {
    double v = hx[i], p = fabs((double)hx[i]) + 0.125;
    double ref[NF] = {exp(v), exp(v), log(p), 1.0 / sqrt(p), v / p,
                      sin(v), cos(v), sin(v), exp(v), sqrt(p)};
    for (int k = 0; k < NF; ++k) {
      double err = fabs(o[i * NF + k] - ref[k]);
      if (err <= rel[k] * fabs(ref[k]) + rel[k]) ++ok[k];
    }
  }
  for (int k = 0; k < NF; ++k) printf("%-12s within tolerance %d/%d\n", names[k], ok[k], n);
  int i1 = 600;  // x = 1.0
  printf("x=%.2f expf %.4f __expf %.4f sin %.4f cos %.4f rsqrt(|x|+1/8) %.4f\n", hx[i1],
         o[i1 * NF + 0], o[i1 * NF + 1], o[i1 * NF + 5], o[i1 * NF + 6], o[i1 * NF + 3]);
  printf("fmaf %.9g separate %.9g\n", hf[0], hf[1]);
  printf("sqrtf(2.25) %.9g sqrtf(2) %.9g 1/3f %.9g\n", hf[2], hf[3], hf[4]);
  printf("floor/ceil %.1f trunc/round %.1f fmin/fmax/fabs %.1f copysign %.1f\n", hf[5], hf[6],
         hf[7], hf[8]);
  printf("fma %.9g separate %.9g\n", hd[0], hd[1]);
  printf("sqrt(2) %.17g 1/3 %.17g\n", hd[2], hd[3]);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(df));
  CHECK(cudaFree(dd));
  free(hx);
  free(o);
  return 0;
}
