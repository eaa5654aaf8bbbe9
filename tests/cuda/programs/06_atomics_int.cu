// Covers: integer atomics on global memory: atomicAdd/Sub/Min/Max on int,
// atomicAnd/Or/Xor/Inc/Dec/Max/Min on unsigned, atomicAdd on unsigned long long,
// atomicExch (checked through an order-independent invariant), atomicAdd used
// as a ticket dispenser. Every printed value is independent of thread order.
#include <cstdio>
#include <cstdlib>
#include <climits>
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

struct Acc {
  int add, sub, mn, mx, exch;
  unsigned uand, uor, uxor, uinc, udec, umax, umin, ticket;
  unsigned long long ull, exch_old_sum;
};

__global__ void atomics(Acc* a, int* marks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = (i * 37) % 1000 - 300;
  unsigned h = (unsigned)i * 2654435761u;
  atomicAdd(&a->add, v);
  atomicSub(&a->sub, v);
  atomicMin(&a->mn, v);
  atomicMax(&a->mx, v);
  atomicAnd(&a->uand, h | 0x0F0F0F0Fu);
  if (i % 3 == 0) atomicOr(&a->uor, 1u << (i % 32));
  atomicXor(&a->uxor, h);
  atomicInc(&a->uinc, 99u);
  atomicDec(&a->udec, 99u);
  atomicMax(&a->umax, h >> 3);
  atomicMin(&a->umin, h | 1u);
  atomicAdd(&a->ull, (unsigned long long)h * 4096ull);
  int old = atomicExch(&a->exch, i);
  atomicAdd(&a->exch_old_sum, (unsigned long long)(long long)old);
  unsigned t = atomicAdd(&a->ticket, 1u);
  marks[t] += 1;  // each ticket is handed out exactly once
}

int main() {
  const int n = 10007;
  Acc init = {};
  init.mn = INT_MAX;
  init.mx = INT_MIN;
  init.exch = -5;
  init.uand = 0xFFFFFFFFu;
  init.umin = 0xFFFFFFFFu;
  Acc* d;
  int* marks;
  CHECK(cudaMalloc(&d, sizeof(Acc)));
  CHECK(cudaMalloc(&marks, n * sizeof(int)));
  CHECK(cudaMemset(marks, 0, n * sizeof(int)));
  CHECK(cudaMemcpy(d, &init, sizeof(Acc), cudaMemcpyHostToDevice));
  atomics<<<(n + 127) / 128, 128>>>(d, marks, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Acc a;
  CHECK(cudaMemcpy(&a, d, sizeof(Acc), cudaMemcpyDeviceToHost));
  int* hm = (int*)malloc(n * sizeof(int));
  CHECK(cudaMemcpy(hm, marks, n * sizeof(int), cudaMemcpyDeviceToHost));
  int ones = 0;
  for (int i = 0; i < n; ++i) ones += (hm[i] == 1);

  printf("add %d sub %d min %d max %d\n", a.add, a.sub, a.mn, a.mx);
  printf("and %08x or %08x xor %08x\n", a.uand, a.uor, a.uxor);
  printf("inc %u dec %u\n", a.uinc, a.udec);
  printf("umax %08x umin %08x\n", a.umax, a.umin);
  printf("ull %llu\n", a.ull);
  // old values returned by atomicExch plus the final value are always
  // {initial} + {0..n-1}, whatever the order.
  long long inv = (long long)a.exch_old_sum + a.exch;
  printf("exch invariant %lld (expect %lld)\n", inv, -5LL + (long long)n * (n - 1) / 2);
  printf("exch final in range %s\n", (a.exch >= 0 && a.exch < n) ? "yes" : "no");
  printf("tickets %u each-once %d\n", a.ticket, ones);
  CHECK(cudaFree(d));
  CHECK(cudaFree(marks));
  free(hm);
  return 0;
}
