// t2c emu: cuda_bf16.h's __nv_bfloat16 on the CPU: the upper 16 bits of a float.  Conversions
// from float round to nearest even as the GPU's cvt.rn.bf16.f32 does (NaN as 0x7fff); the
// arithmetic goes through float and rounds each result once (the operators and __hadd-style
// overloads of cuda_fp16.h's model, which this header includes as the real one does).
#pragma once
#include <cstring>
#include "cuda_fp16.h"

struct __nv_bfloat16_raw { unsigned short x; };

static inline unsigned short t2c_float2bfloat16_bits(float f)
{
    unsigned int u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;       // NaN
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float t2c_bfloat162float_bits(unsigned short b)
{
    const unsigned int u = (unsigned int)b << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

struct __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
    __nv_bfloat16(float f) : __x(t2c_float2bfloat16_bits(f)) {}
    __nv_bfloat16(double f) : __x(t2c_float2bfloat16_bits((float)f)) {}
    __nv_bfloat16(int i) : __x(t2c_float2bfloat16_bits((float)i)) {}
    operator float() const { return t2c_bfloat162float_bits(__x); }
    operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
};
typedef __nv_bfloat16 nv_bfloat16;

struct __nv_bfloat162 { __nv_bfloat16 x, y; };

static inline float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16((float)i); }
static inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16((float)d); }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16(__nv_bfloat16_raw{u}); }
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{a, b}; }
static inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2((float)h.x, (float)h.y); }
static inline float __low2float(__nv_bfloat162 h) { return (float)h.x; }
static inline float __high2float(__nv_bfloat162 h) { return (float)h.y; }

T2C_HALF_OPS(__nv_bfloat16, __h)
static inline bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
static inline int __hisinf(__nv_bfloat16 a) { return (a.__x & 0x7fffu) == 0x7f80u ? (a.__x & 0x8000u ? -1 : 1) : 0; }
