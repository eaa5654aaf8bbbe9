"""Comparing a candidate's outputs with the reference's: the tolerance model.

    compare(kernel, expected, got, sizes) -> Comparison;  rtol_for(dtype, sizes);  poison(...)

Takes the kernel's outputs, the expected and the candidate's arrays and the case's sizes; gives
a `Comparison`: verdict, worst error against the bound, relative L2 error, first failing index,
unwritten count. Integers are exact (but outputs rounded from floating point, by the IS's
`tolerances`); a non-finite value where the reference is finite fails; a float element passes
when |c - r| / max(|r|, s) <= RTOL_FACTOR * eps * K (s the array's RMS, K the sum of the sizes,
or of the literal extents of a kernel without sizes),
16-bit types with one ulp more. Refuses nothing: a missing or mis-shaped output is a failed
comparison. docs/verification.md, "The tolerance model".
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field

import numpy as np

from ..ir import FLOAT_DTYPES, HALF_DTYPES, Kernel
from .halfs import np_dtype, ulp, values

#: C in rtol = C * eps * K: FMA and reordering differences stay below it with room to
#: spare, while a result computed in float instead of double (error ~ 1e-8) is ~1e4 over.
RTOL_FACTOR = 16.0

#: Bit patterns written into `out` arrays before a call (NaN payload 0xdead... for
#: floating types, an unlikely value for integers) so that unwritten elements are named.
POISON_BITS = {
    "double": np.uint64(0x7FF8DEAD0BAD0001),
    "float": np.uint32(0x7FC0DEAD),
    "__half": np.uint16(0x7E5A),
    "__nv_bfloat16": np.uint16(0x7FDA),
}
POISON_INT = 0x5A5A5A5A



def _norm(x) -> float:
    """The L2 norm of finite values without overflow (values near 1e300 square to inf)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    big = float(np.abs(x).max(initial=0.0))
    return big * float(np.sqrt(np.dot(x / big, x / big))) if big > 0 and np.isfinite(big) else float(np.sqrt(np.dot(x, x)))

def reduction_length(sizes: dict[str, int]) -> int:
    """K of the model: an upper estimate of the rounding steps feeding one element."""
    return max(1, sum(int(v) for v in sizes.values()))


def rtol_for(dtype: str, sizes: dict[str, int]) -> float:
    if dtype not in FLOAT_DTYPES:
        return 0.0
    if dtype in HALF_DTYPES:                 # computed in float; the final rounding is apart
        dtype = "float"
    eps = float(np.finfo(np.float64 if dtype == "double" else np.float32).eps)
    return RTOL_FACTOR * eps * reduction_length(sizes)


def poison(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Starting contents of an `out` array: every element the poison value."""
    if dtype in POISON_BITS:
        bits = POISON_BITS[dtype]
        return np.full(shape, bits, dtype=bits.dtype).view(np_dtype(dtype))
    info = np.iinfo(np_dtype(dtype))
    return np.full(shape, min(POISON_INT, info.max), dtype=np_dtype(dtype))


def is_poison(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in POISON_BITS:
        bits = POISON_BITS[dtype]
        return values.view(bits.dtype) == bits
    info = np.iinfo(values.dtype)
    return values == min(POISON_INT, info.max)


@dataclass(frozen=True)
class ArrayComparison:
    name: str
    ok: bool
    max_error: float                 # max over elements of |c-r| / max(|r|, s); inf for NaN
    bound: float                     # rtol; for integers the units it may differ by (0: exact)
    rel_l2: float                    # ||c - r|| / ||r|| (over finite elements)
    first_bad: tuple[int, ...] | None = None
    expected: float | None = None    # values at first_bad
    got: float | None = None
    bad: int = 0                     # failing elements
    unwritten: int = 0               # elements still holding the poison
    nonfinite: int = 0               # non-finite where the reference is finite
    problem: str = ""                # missing, wrong shape, ...
    integer: bool = False            # an integer array: its bound counts units, not roundings

    def describe(self) -> str:
        if self.problem:
            return f"{self.name}: {self.problem}"
        if self.ok:
            return f"{self.name}: max error {self.max_error:.2e} <= {self.bound:.2e}"
        idx = ",".join(map(str, self.first_bad or ()))
        parts = [f"{self.name}[{idx}] = {self.got!r}, expected {self.expected!r}"]
        if self.unwritten:
            parts.append(f"{self.unwritten} element(s) unwritten (still hold the poison)")
        if self.nonfinite:
            parts.append(f"{self.nonfinite} NaN/inf where the reference is finite")
        parts.append(f"{self.bad} bad element(s); max error {self.max_error:.2e} against the bound "
                     f"{self.bound:.2e}, relative L2 {self.rel_l2:.2e}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Comparison:
    ok: bool
    arrays: tuple[ArrayComparison, ...] = field(default_factory=tuple)

    @property
    def first_failure(self) -> ArrayComparison | None:
        return next((a for a in self.arrays if not a.ok), None)

    @property
    def max_ratio(self) -> float:
        """Worst max_error / bound over the floating arrays (0 when all exact).  Integer arrays
        with units of tolerance do not count: a legitimate re-evaluation may round them either
        way (one unit, the whole bound), which says nothing about the draw's conditioning."""
        r = [a.max_error / a.bound for a in self.arrays if a.bound > 0 and not a.integer]
        return max(r, default=0.0)

    @property
    def failure_ratio(self) -> float:
        """Worst max_error / bound over the failing arrays: what a rejected candidate's report
        shows (inf when no bound measures it: an exact array that differs, NaN, a missing one)."""
        r = [a.max_error / a.bound if a.bound > 0 and not a.problem else math.inf
             for a in self.arrays if not a.ok]
        return max(r, default=0.0)

    def describe(self) -> str:
        bad = self.worst_failure
        return bad.describe() if bad else "; ".join(a.describe() for a in self.arrays)

    @property
    def worst_failure(self) -> ArrayComparison | None:
        """The failing array that says most: a missing output, then unwritten elements
        (a NaN in another array may only be their consequence), then NaN/inf, then values."""
        bad = [a for a in self.arrays if not a.ok]
        for test in (lambda a: a.problem, lambda a: a.unwritten, lambda a: a.nonfinite, lambda a: True):
            hit = next((a for a in bad if test(a)), None)
            if hit:
                return hit
        return None

    @property
    def reason(self) -> str:
        """The short reason word(s) for a failure: unwritten, NaN, mismatch, missing."""
        bad = self.worst_failure
        if bad is None:
            return ""
        if bad.problem:
            return bad.problem
        if bad.unwritten:
            return "unwritten output elements"
        if bad.nonfinite:
            return "NaN/inf output where the reference is finite"
        return "output mismatch"


def compare_array(name: str, dtype: str, expected: np.ndarray, got, sizes: dict[str, int],
                  units: int = 0) -> ArrayComparison:
    expected = np.asarray(expected)
    if got is None:
        return ArrayComparison(name, False, float("inf"), 0.0, float("inf"), problem="output missing")
    got = np.asarray(got)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return ArrayComparison(name, False, float("inf"), 0.0, float("inf"),
                               problem=f"output has shape {got.shape} {got.dtype}, expected "
                                       f"{expected.shape} {expected.dtype}")
    e = expected.reshape(-1)
    g = got.reshape(-1)
    unwritten_mask = is_poison(g, dtype) if e.size else np.zeros(0, bool)
    if dtype not in FLOAT_DTYPES:
        diff = np.abs(e.astype(np.float64) - g.astype(np.float64))
        bad = diff > units
        norm = float(_norm(e.astype(np.float64)))
        rel_l2 = float(_norm(diff)) / norm if norm else float(_norm(diff))
        max_error = float(diff.max(initial=0.0))
        bound, nonfinite = float(units), 0
    else:
        e64, g64 = values(e, dtype), values(g, dtype)
        finite_ref = np.isfinite(e64)
        nonfinite_mask = finite_ref & ~np.isfinite(g64)
        scale = _norm(e64[finite_ref]) / np.sqrt(finite_ref.sum()) if finite_ref.any() else 0.0   # RMS
        denom = np.maximum(np.abs(e64), scale if scale > 0 else np.finfo(np.float64).tiny)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.abs(g64 - e64)
            if dtype in HALF_DTYPES:
                err = np.maximum(err - ulp(np.maximum(np.abs(e64), np.abs(g64)), dtype), 0.0)
            err = err / denom
        err = np.where(nonfinite_mask, np.inf, err)
        # The reference is finite on every kept case (synth discards the rest); a
        # non-finite reference element then needs the identical non-finite value.
        same_nonfinite = ~finite_ref & ((g64 == e64) | (np.isnan(g64) & np.isnan(e64)))
        err = np.where(~finite_ref, np.where(same_nonfinite, 0.0, np.inf), err)
        bound = rtol_for(dtype, sizes)
        bad = err > bound
        fin = finite_ref & np.isfinite(g64)
        num = float(_norm(g64[fin] - e64[fin]))
        den = float(_norm(e64[finite_ref]))
        rel_l2 = (num / den if den else num) if not nonfinite_mask.any() else float("inf")
        max_error = float(err.max(initial=0.0))
        nonfinite = int((nonfinite_mask & ~unwritten_mask).sum())
    nbad = int(bad.sum())
    integer = dtype not in FLOAT_DTYPES
    if not nbad:
        return ArrayComparison(name, True, max_error, bound, rel_l2, integer=integer)
    first = int(np.flatnonzero(bad)[0])
    idx = tuple(int(i) for i in np.unravel_index(first, expected.shape)) if expected.shape else ()
    shown = (e64[first].item(), g64[first].item()) if dtype in HALF_DTYPES else (e[first].item(), g[first].item())
    return ArrayComparison(name, False, max_error, bound, rel_l2, idx, *shown,
                           nbad, int(unwritten_mask.sum()), nonfinite, integer=integer)


def compare(k: Kernel, expected: dict[str, np.ndarray], got: dict[str, np.ndarray],
            sizes: dict[str, int]) -> Comparison:
    """Compare every output of k (arrays of intent out/inout and the return value)."""
    results = []
    for x in k.outputs:
        results.append(compare_array(x.name, x.dtype, expected[x.name], got.get(x.name),
                                     _counted_sizes(k, sizes), k.units(x.name, sizes)))
    return Comparison(all(r.ok for r in results), tuple(results))


def _counted_sizes(k: Kernel, sizes: dict[str, int]) -> dict[str, int]:
    """The sizes K sums: the case's; for a kernel with no size parameter (every extent a literal,
    `#define N 64`), its arrays' distinct extents, which stand where the sizes would."""
    if sizes or k.sizes:
        return sizes
    return {e: int(e) for e in sorted({e for a in k.arrays for e in a.shape if e.isdigit()})}

