"""The 16-bit floating element types (float16, bfloat16) as numpy arrays.

float16 is numpy's own type.  numpy has no bfloat16: an array of it is held as its bit
pattern (uint16), the upper half of a float32's, and these functions convert.  Rounding is to
nearest even, as CUDA's `__float2bfloat16_rn` rounds; a NaN stays a NaN (0x7fff).

    values(a, dtype)   an array of the IS dtype `dtype` -> its float64 values
    stored(x, dtype)   float values -> the array of that dtype (rounded once, to nearest even)
    ulp(x, dtype)      one unit in the last place of `dtype` at each |x| (its upper spacing)
"""
from __future__ import annotations

import numpy as np

from ..ir import DTYPES

BFLOAT16 = "__nv_bfloat16"


def bfloat16_bits(x) -> np.ndarray:
    """float values -> bfloat16 bit patterns, rounded to nearest even (float32 first)."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    return np.where(nan, 0x7FFF, rounded).astype(np.uint16)


def bfloat16_values(bits) -> np.ndarray:
    """bfloat16 bit patterns -> their float32 values (exact)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def values(a, dtype: str) -> np.ndarray:
    return (bfloat16_values(a) if dtype == BFLOAT16 else np.asarray(a)).astype(np.float64)


def stored(x, dtype: str) -> np.ndarray:
    return bfloat16_bits(x) if dtype == BFLOAT16 else np.asarray(x).astype(DTYPES[dtype][1])


def ulp(x, dtype: str) -> np.ndarray:
    """float16: numpy's spacing; bfloat16: float32's spacing times 2^16 (same exponent range, 16
    fewer significand bits), which holds for subnormals too."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    if dtype == BFLOAT16:
        return np.spacing(x.astype(np.float32)).astype(np.float64) * 65536.0
    return np.spacing(x.astype(DTYPES[dtype][1])).astype(np.float64)
