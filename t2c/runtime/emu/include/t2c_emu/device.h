// t2c emu: what kernel code sees — built-in index variables, barriers, warp
// intrinsics, atomics, and the math/bit intrinsics CUDA adds to C's math library.
//
// Barriers and warp operations are macros that pass __FILE__/__LINE__ so that a divergent
// barrier is reported at its line in the original .cu (the rewriter emits #line directives).
// Everything here runs on the host CPU; "device" only names the CUDA side of the API.
#pragma once
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <atomic>
#include <chrono>
#include <type_traits>
#include "types.h"

// Built-in variables: per OS thread, set by the scheduler before each CUDA thread runs.
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
static constexpr int warpSize = 32;

namespace t2c_emu {
// Exit codes and the stderr line format of runtime findings; settings.py mirrors them.
enum ExitCode {
    kExitInternal = 96,      // an emulator limit or bug, not the program's fault
    kExitDivergent = 97,     // divergent __syncthreads / warp operation
    kExitMemory = 98,        // out-of-bounds copy, host pointer in a kernel, bad free
    kExitUnsupported = 99,   // a CUDA feature the emulator does not model
    kExitTrap = 95,          // __trap() or a device-side assert
};
[[noreturn]] void finding(int code, const char* kind, const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

void syncthreads(const char* file, int line);
int syncthreads_op(int op, int predicate, const char* file, int line);   // op: 1 count, 2 and, 3 or
// cooperative_groups' grid barrier: every thread of every block of a cooperative launch
// (anywhere else a finding, as the grid of a plain launch need not be resident at once).
void grid_sync(const char* file, int line);
bool grid_is_cooperative();

// A warp-scoped barrier that also exchanges one 64-bit value per lane.
struct WarpView {
    const uint64_t* slots;   // the 32 values deposited at this operation, by lane
    unsigned lane;           // the caller's lane
    unsigned members;        // lanes that took part (mask restricted to existing lanes)
};
WarpView warp_exchange(unsigned mask, uint64_t value, const char* what, const char* file, int line);
unsigned activemask();

template <class T> inline uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "t2c emu: warp shuffles carry values of at most 8 bytes");
    uint64_t b = 0; memcpy(&b, &v, sizeof(T)); return b;
}
template <class T> inline T from_bits(uint64_t b) { T v; memcpy(&v, &b, sizeof(T)); return v; }

template <class T> T shfl(const char* f, int l, unsigned mask, T var, int src, int width = warpSize) {
    WarpView w = warp_exchange(mask, to_bits(var), "__shfl_sync", f, l);
    unsigned base = w.lane & ~(unsigned)(width - 1);
    unsigned s = base + ((unsigned)src & (unsigned)(width - 1));
    return (w.members >> s) & 1u ? from_bits<T>(w.slots[s]) : var;
}
template <class T> T shfl_up(const char* f, int l, unsigned mask, T var, unsigned delta, int width = warpSize) {
    WarpView w = warp_exchange(mask, to_bits(var), "__shfl_up_sync", f, l);
    unsigned base = w.lane & ~(unsigned)(width - 1);
    if (w.lane < base + delta) return var;
    unsigned s = w.lane - delta;
    return (w.members >> s) & 1u ? from_bits<T>(w.slots[s]) : var;
}
template <class T> T shfl_down(const char* f, int l, unsigned mask, T var, unsigned delta, int width = warpSize) {
    WarpView w = warp_exchange(mask, to_bits(var), "__shfl_down_sync", f, l);
    unsigned base = w.lane & ~(unsigned)(width - 1);
    unsigned s = w.lane + delta;
    if (s >= base + (unsigned)width || s >= 32) return var;
    return (w.members >> s) & 1u ? from_bits<T>(w.slots[s]) : var;
}
template <class T> T shfl_xor(const char* f, int l, unsigned mask, T var, int lane_mask, int width = warpSize) {
    WarpView w = warp_exchange(mask, to_bits(var), "__shfl_xor_sync", f, l);
    unsigned base = w.lane & ~(unsigned)(width - 1);
    unsigned s = w.lane ^ (unsigned)lane_mask;
    if (s < base || s >= base + (unsigned)width || s >= 32) return var;
    return (w.members >> s) & 1u ? from_bits<T>(w.slots[s]) : var;
}
inline unsigned ballot(const char* f, int l, unsigned mask, int pred) {
    WarpView w = warp_exchange(mask, pred != 0, "__ballot_sync", f, l);
    unsigned out = 0;
    for (unsigned i = 0; i < 32; ++i)
        if (((w.members >> i) & 1u) && w.slots[i]) out |= 1u << i;
    return out;
}
inline int any(const char* f, int l, unsigned mask, int pred) { return ballot(f, l, mask, pred) != 0; }
inline int all(const char* f, int l, unsigned mask, int pred) {
    WarpView w = warp_exchange(mask, pred != 0, "__all_sync", f, l);
    for (unsigned i = 0; i < 32; ++i)
        if (((w.members >> i) & 1u) && !w.slots[i]) return 0;
    return 1;
}
inline void syncwarp(const char* f, int l, unsigned mask = 0xffffffffu) { warp_exchange(mask, 0, "__syncwarp", f, l); }
template <class T> unsigned match_any(const char* f, int l, unsigned mask, T v) {
    WarpView w = warp_exchange(mask, to_bits(v), "__match_any_sync", f, l);
    unsigned out = 0;
    for (unsigned i = 0; i < 32; ++i)
        if (((w.members >> i) & 1u) && w.slots[i] == w.slots[w.lane]) out |= 1u << i;
    return out;
}
template <class T> unsigned match_all(const char* f, int l, unsigned mask, T v, int* pred) {
    WarpView w = warp_exchange(mask, to_bits(v), "__match_all_sync", f, l);
    for (unsigned i = 0; i < 32; ++i)
        if (((w.members >> i) & 1u) && w.slots[i] != w.slots[w.lane]) { *pred = 0; return 0; }
    *pred = 1;
    return w.members;
}
template <class T, class Op> T warp_reduce(const char* f, int l, unsigned mask, T v, Op op, const char* what) {
    WarpView w = warp_exchange(mask, to_bits(v), what, f, l);
    bool first = true; T acc{};
    for (unsigned i = 0; i < 32; ++i)
        if ((w.members >> i) & 1u) { T x = from_bits<T>(w.slots[i]); acc = first ? x : op(acc, x); first = false; }
    return acc;
}
// cuda_pipeline.h: asynchronous copies, done when the thread waits for their batch (runtime.cpp)
void pipeline_memcpy_async(void* dst, const void* src, size_t size, size_t zfill, const char* file, int line);
void pipeline_commit();
void pipeline_wait_prior(size_t n);
inline void pipeline_copy_at(const char* f, int l, void* dst, const void* src, size_t size, size_t zfill = 0) {
    pipeline_memcpy_async(dst, src, size, zfill, f, l);
}

// The emulated instructions below read only register values: checking their own arrays finds
// nothing in a candidate and costs most of their time.
#define T2C_EMU_UNCHECKED __attribute__((no_sanitize("address", "undefined")))

// PTX mma.sync.aligned.m8n8k4.row.col.f64 (inline asm, rewritten to this call): the warp's
// 8x4 A times 4x8 B plus C. Lane l holds A[l/4][l%4] in a, B[l%4][l/4] in b and
// C[l/4][l%4*2 + 0, 1] in c0, c1; all 32 lanes must take part.
T2C_EMU_UNCHECKED inline void mma_m8n8k4_f64(const char* f, int l, double& d0, double& d1, double a, double b, double c0, double c1) {
    const char* what = "mma.sync.m8n8k4.f64";
    WarpView w = warp_exchange(0xffffffffu, to_bits(a), what, f, l);
    if (w.members != 0xffffffffu)
        finding(kExitDivergent, "divergent-barrier", f, l, "%s needs all 32 lanes of the warp; lanes %08x took part",
                what, w.members);
    double A[32];
    for (unsigned i = 0; i < 32; ++i) A[i] = from_bits<double>(w.slots[i]);
    w = warp_exchange(0xffffffffu, to_bits(b), what, f, l);
    unsigned row = w.lane / 4, col = w.lane % 4 * 2;
    for (unsigned k = 0; k < 4; ++k) {
        c0 = fma(A[row * 4 + k], from_bits<double>(w.slots[col * 4 + k]), c0);
        c1 = fma(A[row * 4 + k], from_bits<double>(w.slots[(col + 1) * 4 + k]), c1);
    }
    d0 = c0;
    d1 = c1;
}
// PTX mma.sync.aligned.m16n8k8.row.col.f64: the warp's 16x8 A times 8x8 B plus C. Lane l holds
// A[l/4 + 8 (r%2)][l%4 + 4 (r/2)] in a_r, B[l%4 + 4 r][l/4] in b_r, C[l/4][l%4*2 + 0, 1] in c0, c1
// and C[l/4 + 8][l%4*2 + 0, 1] in c2, c3; all 32 lanes must take part.
T2C_EMU_UNCHECKED inline void mma_m16n8k8_f64(const char* f, int l, double& d0, double& d1, double& d2, double& d3, double a0, double a1,
                            double a2, double a3, double b0, double b1, double c0, double c1, double c2, double c3) {
    const char* what = "mma.sync.m16n8k8.f64";
    // Each lane keeps only what its outputs read: A's rows l/4 and l/4 + 8, B's columns l%4*2 + 0, 1.
    double A[2][8], B[2][8];
    const double as[4] = {a0, a1, a2, a3}, bs[2] = {b0, b1};
    unsigned lane = 0;
    for (int r = 0; r < 4; ++r) {
        WarpView w = warp_exchange(0xffffffffu, to_bits(as[r]), what, f, l);
        if (w.members != 0xffffffffu)
            finding(kExitDivergent, "divergent-barrier", f, l, "%s needs all 32 lanes of the warp; lanes %08x took part",
                    what, w.members);
        lane = w.lane;
        for (unsigned k = 0; k < 4; ++k) A[r % 2][k + 4 * (r / 2)] = from_bits<double>(w.slots[lane / 4 * 4 + k]);
    }
    for (int r = 0; r < 2; ++r) {
        WarpView w = warp_exchange(0xffffffffu, to_bits(bs[r]), what, f, l);
        for (unsigned n = 0; n < 2; ++n)
            for (unsigned k = 0; k < 4; ++k) B[n][k + 4 * r] = from_bits<double>(w.slots[(lane % 4 * 2 + n) * 4 + k]);
    }
    double c[4] = {c0, c1, c2, c3};
    for (int q = 0; q < 4; ++q)
        for (int k = 0; k < 8; ++k) c[q] = fma(A[q / 2][k], B[q % 2][k], c[q]);
    d0 = c[0];
    d1 = c[1];
    d2 = c[2];
    d3 = c[3];
}
}  // namespace t2c_emu

#define __syncthreads() ::t2c_emu::syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) ::t2c_emu::syncthreads_op(1, (p), __FILE__, __LINE__)
#define __syncthreads_and(p) ::t2c_emu::syncthreads_op(2, (p), __FILE__, __LINE__)
#define __syncthreads_or(p) ::t2c_emu::syncthreads_op(3, (p), __FILE__, __LINE__)
#define __syncwarp(...) ::t2c_emu::syncwarp(__FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_sync(...) ::t2c_emu::shfl(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) ::t2c_emu::shfl_up(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) ::t2c_emu::shfl_down(__FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) ::t2c_emu::shfl_xor(__FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(m, p) ::t2c_emu::ballot(__FILE__, __LINE__, (m), (p))
#define __any_sync(m, p) ::t2c_emu::any(__FILE__, __LINE__, (m), (p))
#define __all_sync(m, p) ::t2c_emu::all(__FILE__, __LINE__, (m), (p))
#define __match_any_sync(m, v) ::t2c_emu::match_any(__FILE__, __LINE__, (m), (v))
#define __match_all_sync(m, v, p) ::t2c_emu::match_all(__FILE__, __LINE__, (m), (v), (p))
#define __reduce_add_sync(m, v) ::t2c_emu::warp_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a + b; }, "__reduce_add_sync")
#define __reduce_min_sync(m, v) ::t2c_emu::warp_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return b < a ? b : a; }, "__reduce_min_sync")
#define __reduce_max_sync(m, v) ::t2c_emu::warp_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a < b ? b : a; }, "__reduce_max_sync")
#define __reduce_and_sync(m, v) ::t2c_emu::warp_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a & b; }, "__reduce_and_sync")
#define __reduce_or_sync(m, v) ::t2c_emu::warp_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a | b; }, "__reduce_or_sync")
#define __reduce_xor_sync(m, v) ::t2c_emu::warp_reduce(__FILE__, __LINE__, (m), (v), [](auto a, auto b) { return a ^ b; }, "__reduce_xor_sync")
// The pre-CUDA-9 forms without a mask behave as if all 32 lanes were named.
#define __shfl(v, s, ...) ::t2c_emu::shfl(__FILE__, __LINE__, 0xffffffffu, (v), (s), ##__VA_ARGS__)
#define __shfl_up(v, d, ...) ::t2c_emu::shfl_up(__FILE__, __LINE__, 0xffffffffu, (v), (d), ##__VA_ARGS__)
#define __shfl_down(v, d, ...) ::t2c_emu::shfl_down(__FILE__, __LINE__, 0xffffffffu, (v), (d), ##__VA_ARGS__)
#define __shfl_xor(v, m, ...) ::t2c_emu::shfl_xor(__FILE__, __LINE__, 0xffffffffu, (v), (m), ##__VA_ARGS__)
#define __ballot(p) ::t2c_emu::ballot(__FILE__, __LINE__, 0xffffffffu, (p))
#define __any(p) ::t2c_emu::any(__FILE__, __LINE__, 0xffffffffu, (p))
#define __all(p) ::t2c_emu::all(__FILE__, __LINE__, 0xffffffffu, (p))
#define __trap() ::t2c_emu::finding(::t2c_emu::kExitTrap, "trap", __FILE__, __LINE__, "__trap() called")
static inline unsigned __activemask() { return t2c_emu::activemask(); }
static inline unsigned __lanemask_lt() { return (1u << ((threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y) & 31)) - 1u; }

// ---- memory fences: blocks of one launch may run on several OS threads ----
static inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static inline void __nanosleep(unsigned) {}
static inline long long clock64() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- atomics: real atomics, because blocks may run on several OS threads at once ----
#define T2C_RMW(NAME, T, BUILTIN) \
    static inline T NAME(T* p, T v) { return BUILTIN(p, v, __ATOMIC_RELAXED); }
#define T2C_INT_ATOMICS(T) \
    T2C_RMW(atomicAdd, T, __atomic_fetch_add) T2C_RMW(atomicAnd, T, __atomic_fetch_and) \
    T2C_RMW(atomicOr, T, __atomic_fetch_or) T2C_RMW(atomicXor, T, __atomic_fetch_xor) \
    T2C_RMW(atomicExch, T, __atomic_exchange_n) \
    static inline T atomicCAS(T* p, T cmp, T v) { \
        __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return cmp; } \
    static inline T atomicMin(T* p, T v) { T o = __atomic_load_n(p, __ATOMIC_RELAXED); \
        while (v < o && !__atomic_compare_exchange_n(p, &o, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} return o; } \
    static inline T atomicMax(T* p, T v) { T o = __atomic_load_n(p, __ATOMIC_RELAXED); \
        while (v > o && !__atomic_compare_exchange_n(p, &o, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} return o; }
T2C_INT_ATOMICS(int)
T2C_INT_ATOMICS(unsigned int)
T2C_INT_ATOMICS(unsigned long long)
T2C_INT_ATOMICS(long long)
#undef T2C_INT_ATOMICS
#undef T2C_RMW
static inline int atomicSub(int* p, int v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
static inline unsigned atomicSub(unsigned* p, unsigned v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
static inline unsigned short atomicCAS(unsigned short* p, unsigned short c, unsigned short v) {
    __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return c; }
static inline unsigned atomicInc(unsigned* p, unsigned lim) {
    unsigned o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &o, o >= lim ? 0u : o + 1u, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return o;
}
static inline unsigned atomicDec(unsigned* p, unsigned lim) {
    unsigned o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &o, (o == 0u || o > lim) ? lim : o - 1u, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    return o;
}
namespace t2c_emu {
// Floating-point read-modify-write as a compare-and-swap loop on the bit pattern.
template <class F, class U, class Op> F float_rmw(F* p, Op op) {
    U* q = reinterpret_cast<U*>(p);
    U old = __atomic_load_n(q, __ATOMIC_RELAXED), nw;
    F f, g;
    do { memcpy(&f, &old, sizeof f); g = op(f); memcpy(&nw, &g, sizeof g); }
    while (!__atomic_compare_exchange_n(q, &old, nw, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return f;
}
}  // namespace t2c_emu
static inline float atomicAdd(float* p, float v) { return t2c_emu::float_rmw<float, uint32_t>(p, [v](float x) { return x + v; }); }
static inline double atomicAdd(double* p, double v) { return t2c_emu::float_rmw<double, uint64_t>(p, [v](double x) { return x + v; }); }
static inline float atomicSub(float* p, float v) { return t2c_emu::float_rmw<float, uint32_t>(p, [v](float x) { return x - v; }); }
static inline float atomicExch(float* p, float v) { return t2c_emu::float_rmw<float, uint32_t>(p, [v](float) { return v; }); }
static inline float atomicMax(float* p, float v) { return t2c_emu::float_rmw<float, uint32_t>(p, [v](float x) { return fmaxf(x, v); }); }
static inline float atomicMin(float* p, float v) { return t2c_emu::float_rmw<float, uint32_t>(p, [v](float x) { return fminf(x, v); }); }
static inline double atomicMax(double* p, double v) { return t2c_emu::float_rmw<double, uint64_t>(p, [v](double x) { return fmax(x, v); }); }
static inline double atomicMin(double* p, double v) { return t2c_emu::float_rmw<double, uint64_t>(p, [v](double x) { return fmin(x, v); }); }
#define T2C_SCOPED(N) template <class... A> static inline auto N##_block(A... a) { return N(a...); } \
                      template <class... A> static inline auto N##_system(A... a) { return N(a...); }
T2C_SCOPED(atomicAdd) T2C_SCOPED(atomicSub) T2C_SCOPED(atomicExch) T2C_SCOPED(atomicMin)
T2C_SCOPED(atomicMax) T2C_SCOPED(atomicInc) T2C_SCOPED(atomicDec) T2C_SCOPED(atomicCAS)
T2C_SCOPED(atomicAnd) T2C_SCOPED(atomicOr) T2C_SCOPED(atomicXor)
#undef T2C_SCOPED

// ---- min/max as CUDA's math headers offer them for mixed integer and float arguments ----
template <class A, class B> static inline typename std::common_type<A, B>::type min(A a, B b) {
    typedef typename std::common_type<A, B>::type C; return (C)b < (C)a ? (C)b : (C)a; }
template <class A, class B> static inline typename std::common_type<A, B>::type max(A a, B b) {
    typedef typename std::common_type<A, B>::type C; return (C)a < (C)b ? (C)b : (C)a; }
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- fast-math intrinsics: on the CPU they are the accurate functions ----
// glibc declares (but does not define) __expf & co. with C linkage, so they are defined
// here with that same linkage.
extern "C" {
inline float __expf(float x) noexcept { return expf(x); }
inline float __exp10f(float x) noexcept { return exp10f(x); }
inline float __logf(float x) noexcept { return logf(x); }
inline float __log2f(float x) noexcept { return log2f(x); }
inline float __log10f(float x) noexcept { return log10f(x); }
inline float __sinf(float x) noexcept { return sinf(x); }
inline float __cosf(float x) noexcept { return cosf(x); }
inline float __tanf(float x) noexcept { return tanf(x); }
inline float __powf(float x, float y) noexcept { return powf(x, y); }
inline void __sincosf(float x, float* s, float* c) noexcept { sincosf(x, s, c); }
}
static inline float __fdividef(float a, float b) { return a / b; }
static inline float fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
static inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
static inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __drcp_rn(double x) { return 1.0 / x; }
static inline double __dsqrt_rn(double x) { return sqrt(x); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }

// ---- conversions and bit reinterpretation ----
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
static inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
static inline long long __float2ll_rn(float x) { return (long long)nearbyintf(x); }
static inline int __double2int_rn(double x) { return (int)nearbyint(x); }
static inline int __double2int_rz(double x) { return (int)x; }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline double __int2double_rn(int x) { return (double)x; }
static inline float __double2float_rn(double x) { return (float)x; }
static inline int __float_as_int(float x) { int i; memcpy(&i, &x, 4); return i; }
static inline float __int_as_float(int i) { float x; memcpy(&x, &i, 4); return x; }
static inline unsigned __float_as_uint(float x) { unsigned i; memcpy(&i, &x, 4); return i; }
static inline float __uint_as_float(unsigned i) { float x; memcpy(&x, &i, 4); return x; }
static inline long long __double_as_longlong(double x) { long long i; memcpy(&i, &x, 8); return i; }
static inline double __longlong_as_double(long long i) { double x; memcpy(&x, &i, 8); return x; }
static inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return (int)(__double_as_longlong(x) & 0xffffffff); }
static inline double __hiloint2double(int hi, int lo) {
    return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo)); }

// ---- integer intrinsics ----
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
    unsigned r = 0; for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i); return r; }
static inline unsigned long long __brevll(unsigned long long x) {
    unsigned long long r = 0; for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i); return r; }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = ((unsigned long long)y << 32) | x; unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
static inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffff) * (b & 0xffffff); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
static inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
static inline unsigned __sad(int a, int b, unsigned c) { return (unsigned)(a > b ? a - b : b - a) + c; }
static inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return (a > b ? a - b : b - a) + c; }

// ---- cache-hinted loads and stores are plain accesses ----
template <class T> static inline T __ldg(const T* p) { return *p; }
template <class T> static inline T __ldca(const T* p) { return *p; }
template <class T> static inline T __ldcg(const T* p) { return *p; }
template <class T> static inline T __ldcs(const T* p) { return *p; }
template <class T> static inline T __ldlu(const T* p) { return *p; }
template <class T> static inline T __ldcv(const T* p) { return *p; }
template <class T> static inline void __stcg(T* p, T v) { *p = v; }
template <class T> static inline void __stcs(T* p, T v) { *p = v; }
template <class T> static inline void __stwb(T* p, T v) { *p = v; }
template <class T> static inline void __stwt(T* p, T v) { *p = v; }
