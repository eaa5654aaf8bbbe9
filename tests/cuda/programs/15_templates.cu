// Covers: a templated kernel instantiated for float and double (and int),
// template __device__ functions, a non-type template parameter (block size) in
// a shared-memory reduction, functor structs with templated operator(), and
// overloaded __device__ functions chosen by argument type.
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

template <typename T> __device__ T square(T v) { return v * v; }
template <typename T> __device__ T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

__device__ int tweak(int x) { return 2 * x; }
__device__ float tweak(float x) { return x + 0.5f; }
__device__ double tweak(double x) { return x + 0.25; }

struct AddOp {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
  template <typename T> __device__ static T identity() { return T(0); }
};
struct MaxOp {
  template <typename T> __device__ T operator()(T a, T b) const { return a > b ? a : b; }
  template <typename T> __device__ static T identity() { return T(-1000000); }
};

template <typename T>
__global__ void transform(const T* x, T* y, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tweak(clamp_to(a * square(x[i]), T(-50), T(50)));
}

template <typename T, int BS, typename Op>
__global__ void reduce(const T* x, T* out, int n, Op op) {
  __shared__ T s[BS];
  int t = threadIdx.x;
  T acc = Op::template identity<T>();
  for (int i = t; i < n; i += BS) acc = op(acc, x[i]);
  s[t] = acc;
  __syncthreads();
  for (int st = BS / 2; st > 0; st >>= 1) {
    if (t < st) s[t] = op(s[t], s[t + st]);
    __syncthreads();
  }
  if (t == 0) *out = s[0];
}

template <typename T>
void run(const char* name, T a) {
  const int n = 777;
  T* h = (T*)malloc(n * sizeof(T));
  for (int i = 0; i < n; ++i) h[i] = (T)((i % 23) - 11);
  T *dx, *dy, *dr;
  CHECK(cudaMalloc(&dx, n * sizeof(T)));
  CHECK(cudaMalloc(&dy, n * sizeof(T)));
  CHECK(cudaMalloc(&dr, 2 * sizeof(T)));
  CHECK(cudaMemcpy(dx, h, n * sizeof(T), cudaMemcpyHostToDevice));
  transform<T><<<(n + 127) / 128, 128>>>(dx, dy, a, n);
  CHECK(cudaGetLastError());
  reduce<T, 64, AddOp><<<1, 64>>>(dy, dr, n, AddOp());
  CHECK(cudaGetLastError());
  reduce<T, 128, MaxOp><<<1, 128>>>(dy, dr + 1, n, MaxOp());
  CHECK(cudaGetLastError());
  T r[2], y3;
  CHECK(cudaMemcpy(r, dr, sizeof(r), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&y3, dy + 3, sizeof(T), cudaMemcpyDeviceToHost));
  printf("%s: y[3] %.2f sum %.2f max %.2f\n", name, (double)y3, (double)r[0], (double)r[1]);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dr));
  free(h);
}

int main() {
  run<float>("float", 0.5f);
  run<double>("double", 0.5);
  run<int>("int", 1);
  return 0;
}
