// Covers: atomicCAS retry loops building new atomics: float max on the int bit
// pattern (__float_as_int/__int_as_float), double add on 64-bit words
// (__double_as_longlong/__longlong_as_double), modular multiply on unsigned
// long long, and a spin lock (atomicCAS acquire / atomicExch release, one
// thread per block, __threadfence) guarding a plain read-modify-write.
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

__device__ float atomic_max_float(float* addr, float val) {
  int* ia = reinterpret_cast<int*>(addr);
  int old = *ia, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(ia, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

__device__ double atomic_add_double_cas(double* addr, double val) {
  unsigned long long* ua = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *ua, assumed;
  do {
    assumed = old;
    old = atomicCAS(ua, assumed,
                    (unsigned long long)__double_as_longlong(val + __longlong_as_double((long long)assumed)));
  } while (assumed != old);
  return __longlong_as_double((long long)old);
}

__device__ void atomic_mulmod(unsigned long long* addr, unsigned long long f,
                              unsigned long long mod) {
  unsigned long long old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, (assumed * f) % mod);
  } while (assumed != old);
}

__global__ void cas_kernel(float* fmax, double* dsum, unsigned long long* prod, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = (float)((i * 7919) % 10007) - 5000.5f;
  atomic_max_float(fmax, v);
  atomic_add_double_cas(dsum, (double)(i % 17) * 0.25);
  atomic_mulmod(prod, (unsigned long long)(i % 7 + 1), 1000000007ull);
}

__global__ void locked_counter(int* lock, int* counter, int* order_sum) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) { }
    __threadfence();
    volatile int* c = counter;
    int seen = *c;        // plain read-modify-write inside the lock
    *c = seen + 1;
    atomicAdd(order_sum, seen);  // seen values are 0..blocks-1 in some order
    __threadfence();
    atomicExch(lock, 0);
  }
}

int main() {
  const int n = 20000;
  float fmax0 = -1e30f;
  double dsum0 = 0.0;
  unsigned long long prod0 = 1;
  float* dfmax;
  double* ddsum;
  unsigned long long* dprod;
  CHECK(cudaMalloc(&dfmax, sizeof(float)));
  CHECK(cudaMalloc(&ddsum, sizeof(double)));
  CHECK(cudaMalloc(&dprod, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(dfmax, &fmax0, sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ddsum, &dsum0, sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dprod, &prod0, sizeof(prod0), cudaMemcpyHostToDevice));
  cas_kernel<<<(n + 255) / 256, 256>>>(dfmax, ddsum, dprod, n);
  CHECK(cudaGetLastError());

  int *dlock, *dcounter, *dorder;
  CHECK(cudaMalloc(&dlock, sizeof(int)));
  CHECK(cudaMalloc(&dcounter, sizeof(int)));
  CHECK(cudaMalloc(&dorder, sizeof(int)));
  CHECK(cudaMemset(dlock, 0, sizeof(int)));
  CHECK(cudaMemset(dcounter, 0, sizeof(int)));
  CHECK(cudaMemset(dorder, 0, sizeof(int)));
  const int blocks = 64;
  locked_counter<<<blocks, 32>>>(dlock, dcounter, dorder);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  float fmax;
  double dsum;
  unsigned long long prod;
  int counter, order;
  CHECK(cudaMemcpy(&fmax, dfmax, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&dsum, ddsum, sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&prod, dprod, sizeof(prod), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&counter, dcounter, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&order, dorder, sizeof(int), cudaMemcpyDeviceToHost));
  printf("float max %.1f\n", fmax);
  printf("double sum %.2f\n", dsum);
  printf("product mod p %llu\n", prod);
  printf("locked counter %d order sum %d\n", counter, order);
  CHECK(cudaFree(dfmax));
  CHECK(cudaFree(ddsum));
  CHECK(cudaFree(dprod));
  CHECK(cudaFree(dlock));
  CHECK(cudaFree(dcounter));
  CHECK(cudaFree(dorder));
  return 0;
}
