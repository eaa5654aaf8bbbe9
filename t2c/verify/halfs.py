"""The 16-bit floating element types (float16, bfloat16) as numpy arrays.

float16 is numpy's own type.  numpy has no bfloat16: an array of it is held as its bit
pattern (uint16), the upper half of a float32's, and these functions convert.  Rounding is to
nearest even, as CUDA's `__float2bfloat16_rn` rounds; a NaN stays a NaN (0x7fff).

    values(a, dtype)   an array of the IS dtype `dtype` -> its float64 values
    stored(x, dtype)   float values -> the array of that dtype (rounded once, to nearest even)
    finite(a, dtype)   whether every element of such an array is finite
    ulp(x, dtype)      one unit in the last place of `dtype` at each |x|
"""
from __future__ import annotations

import numpy as np

from ..ir import DTYPES

BFLOAT16 = "__nv_bfloat16"


def np_dtype(dtype: str) -> np.dtype:
    """The numpy type holding an IS dtype's elements (bfloat16: its bits, uint16)."""
    return np.dtype(DTYPES[dtype][1])


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
    """(x itself when it already has the type: no copy.)"""
    return bfloat16_bits(x) if dtype == BFLOAT16 else np.asarray(x).astype(DTYPES[dtype][1], copy=False)


def finite(a, dtype: str) -> bool:
    """Whether every element is finite (no float64 copy: widening keeps finiteness)."""
    return bool(np.isfinite(bfloat16_values(a) if dtype == BFLOAT16 else np.asarray(a)).all())


#: IS dtype -> (significand bits with the implicit one, the smallest normal value)
_FORMAT = {"__half": (11, 2.0**-14), BFLOAT16: (8, 2.0**-126)}


def ulp(x, dtype: str) -> np.ndarray:
    """The spacing of the type's values in the binade of |x| (below the smallest normal value,
    the subnormals' fixed spacing); at the largest finite value too, where numpy's spacing of
    the next value up would be infinite."""
    bits, tiny = _FORMAT[dtype]
    x = np.maximum(np.abs(np.asarray(x, dtype=np.float64)), tiny)
    return np.ldexp(1.0, np.frexp(x)[1] - bits)
