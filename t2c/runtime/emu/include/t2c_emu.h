// t2c emu: the one header a rewritten .cu includes first.  It stands in for
// cuda_runtime.h and the implicit CUDA device headers so that the file compiles with g++.
#pragma once
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define T2C_EMU 1
#define CUDART_VERSION 13000
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>

// Qualifiers the rewriter removes; defined here too for headers it did not see.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static
#define __forceinline__ inline __attribute__((always_inline))
// __noinline__ is not a macro here: libstdc++ spells __attribute__((__noinline__)); the rewriter replaces it.
#define __launch_bounds__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __cudart_builtin__
#define CUDARTAPI
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))

#include "t2c_emu/types.h"
#include "t2c_emu/device.h"
#include "t2c_emu/api.h"
#include "t2c_emu/launch.h"
