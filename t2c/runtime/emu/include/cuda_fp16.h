// t2c emu: cuda_fp16.h's __half (IEEE binary16) on the CPU.  The value is its bit pattern;
// conversions from float round to nearest even as the GPU's cvt.rn.f16.f32 does (subnormals,
// overflow to infinity, NaN as 0x7fff), and arithmetic goes through float, rounding each result
// once: for +, -, *, / float holds the exact result closely enough (24 >= 2*11 + 2 bits) that
// this is the correctly rounded result a GPU's half instruction gives.  The subset: the type,
// conversions, the arithmetic and comparison operators and intrinsics, and __half2.
#pragma once
#include <cstring>

struct __half_raw { unsigned short x; };

static inline unsigned short t2c_float2half_bits(float f)
{
    unsigned int u;
    std::memcpy(&u, &f, sizeof u);
    const unsigned int sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return 0x7fffu;                     // NaN
    if (a >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);   // 65520 and up: infinity
    if (a >= 0x38800000u) {                                   // a normal half (>= 2^-14)
        const unsigned int r = a - 0x38000000u;               // the exponent rebiased 127 -> 15
        return (unsigned short)(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u) return (unsigned short)sign;         // below 2^-25: zero
    const unsigned int m = (a & 0x7fffffu) | 0x800000u, shift = 126u - (a >> 23);
    unsigned int q = m >> shift;                              // units of 2^-24, the subnormal step
    const unsigned int rest = m & ((1u << shift) - 1u), tie = 1u << (shift - 1u);
    if (rest > tie || (rest == tie && (q & 1u))) q++;
    return (unsigned short)(sign | q);
}

static inline float t2c_half2float_bits(unsigned short h)
{
    const unsigned int sign = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0 && m != 0) {                                   // subnormal: m * 2^-24, exact
        const float f = (float)m * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    const unsigned int u = sign | (e == 0x1fu ? 0x7f800000u | (m << 13) : e ? ((e + 112u) << 23) | (m << 13) : 0u);
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

struct __half {
    unsigned short __x;
    __half() = default;
    __half(__half_raw r) : __x(r.x) {}
    __half(float f) : __x(t2c_float2half_bits(f)) {}
    __half(double f) : __x(t2c_float2half_bits((float)f)) {}
    __half(int i) : __x(t2c_float2half_bits((float)i)) {}
    operator float() const { return t2c_half2float_bits(__x); }
    operator __half_raw() const { return __half_raw{__x}; }
};

struct __half2 { __half x, y; };

static inline float __half2float(__half h) { return (float)h; }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline __half __int2half_rn(int i) { return __half((float)i); }
static inline __half __double2half(double d) { return __half((float)d); }
static inline unsigned short __half_as_ushort(__half h) { return h.__x; }
static inline __half __ushort_as_half(unsigned short u) { return __half(__half_raw{u}); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
static inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
static inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }

#define T2C_HALF_OPS(T, T2)                                                                       \
    static inline T operator+(const T &a, const T &b) { return T((float)a + (float)b); }           \
    static inline T operator-(const T &a, const T &b) { return T((float)a - (float)b); }           \
    static inline T operator*(const T &a, const T &b) { return T((float)a * (float)b); }           \
    static inline T operator/(const T &a, const T &b) { return T((float)a / (float)b); }           \
    static inline T operator-(const T &a) { T r = a; r.__x ^= 0x8000u; return r; }              \
    static inline T operator+(const T &a) { return a; }                                          \
    static inline T &operator+=(T &a, const T &b) { return a = a + b; }                          \
    static inline T &operator-=(T &a, const T &b) { return a = a - b; }                          \
    static inline T &operator*=(T &a, const T &b) { return a = a * b; }                          \
    static inline T &operator/=(T &a, const T &b) { return a = a / b; }                          \
    static inline bool operator==(const T &a, const T &b) { return (float)a == (float)b; }       \
    static inline bool operator!=(const T &a, const T &b) { return (float)a != (float)b; }       \
    static inline bool operator<(const T &a, const T &b) { return (float)a < (float)b; }         \
    static inline bool operator<=(const T &a, const T &b) { return (float)a <= (float)b; }       \
    static inline bool operator>(const T &a, const T &b) { return (float)a > (float)b; }         \
    static inline bool operator>=(const T &a, const T &b) { return (float)a >= (float)b; }       \
    static inline T T2##add(T a, T b) { return a + b; }                                          \
    static inline T T2##sub(T a, T b) { return a - b; }                                          \
    static inline T T2##mul(T a, T b) { return a * b; }                                          \
    static inline T T2##div(T a, T b) { return a / b; }                                          \
    static inline T T2##neg(T a) { return -a; }                                                  \
    static inline T T2##abs(T a) { T r = a; r.__x &= 0x7fffu; return r; }                        \
    /* a*b is exact in double; the sum then rounds twice (double, float) before the half: a */  \
    /* double rounding that may differ from the GPU's single one in rare ties */                \
    static inline T T2##fma(T a, T b, T c) { return T((float)((double)(float)a * (float)b + (float)c)); } \
    static inline T T2##max(T a, T b) { return (float)a >= (float)b || (float)b != (float)b ? a : b; } \
    static inline T T2##min(T a, T b) { return (float)a <= (float)b || (float)b != (float)b ? a : b; } \
    static inline bool T2##eq(T a, T b) { return a == b; }                                       \
    static inline bool T2##ne(T a, T b) { return a != b; }                                       \
    static inline bool T2##lt(T a, T b) { return a < b; }                                        \
    static inline bool T2##le(T a, T b) { return a <= b; }                                       \
    static inline bool T2##gt(T a, T b) { return a > b; }                                        \
    static inline bool T2##ge(T a, T b) { return a >= b; }
T2C_HALF_OPS(__half, __h)
static inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
static inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? (a.__x & 0x8000u ? -1 : 1) : 0; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
