"""Comparing a candidate's outputs with the reference's: the tolerance model.

    compare(kernel, expected, got, sizes) -> Comparison;  rtol_for(dtype, sizes);  poison(...)

Takes the kernel's outputs, the expected and the candidate's arrays and the case's sizes; gives
a `Comparison`: verdict, worst error against the bound, relative L2 error, first failing index,
unwritten count. Integers are exact (but outputs rounded from floating point, by the IS's
`tolerances`); a non-finite value where the reference is finite fails; a float element passes
when |c - r| / max(|r|, s) <= RTOL_FACTOR * eps * K (s the array's RMS, K the sum of the sizes,
or of the literal extents of a kernel without sizes),
16-bit types with one ulp more. Refuses nothing: a missing or mis-shaped output is a failed
comparison. Arrays are walked in blocks of `BLOCK` elements (`blocks`, which the draws use too),
never copied whole. docs/verification.md, "The tolerance model".
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field

import numpy as np

from ..ir import FLOAT_DTYPES, HALF_DTYPES, Kernel
from .halfs import BFLOAT16, np_dtype, ulp, values

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
    "bool": np.uint8(0x5A),                 # neither false nor true
}
POISON_INT = 0x5A5A5A5A


#: Elements per block of the element-wise passes over a case's arrays (a comparison, a draw, a
#: perturbation): a block's float64 working copies stay in cache, so an array of hundreds of
#: millions of elements (a full rung) costs a few passes over its own storage and no temporary
#: of its size.
BLOCK = 1 << 14


def blocks(n: int):
    """(start, slice) of each block of a flat array of n elements, in order."""
    return ((s, slice(s, s + BLOCK)) for s in range(0, n, BLOCK))


def _largest(x: np.ndarray) -> float:
    """max |x| (NaN where x holds a NaN, inf where an inf), without an |x| array."""
    return float(np.maximum(x.max(), -x.min())) if x.size else 0.0


class _Norm:
    """The L2 norm of finite values without overflow (values near 1e300 square to inf), summed
    block by block: each block scaled by its own largest magnitude, the blocks' sums brought to
    the largest of them at the end.  numpy's own sums, in a fixed blocking: the result does not
    depend on how many threads a BLAS would split a long dot product into."""

    def __init__(self):
        self.bigs: list[float] = []
        self.sums: list[float] = []

    def add(self, x) -> None:
        x = np.asarray(x, dtype=np.float64).ravel()
        for _, b in blocks(x.size):
            self.take(x[b], _largest(x[b]))

    def take(self, part: np.ndarray, big: float) -> None:
        """One block whose largest magnitude (`_largest`) is known already."""
        self.bigs.append(big)
        if big > 0 and np.isfinite(big):
            scaled = part / big
            self.sums.append(float(np.square(scaled, out=scaled).sum()))
        else:
            self.sums.append(0.0)                 # zeros, or a non-finite value: the norm is that

    def value(self) -> float:
        bigs = np.array(self.bigs)
        top = float(bigs.max(initial=0.0))
        if not (top > 0 and np.isfinite(top)):
            return abs(top)                       # zero, or inf/NaN where a value is
        return top * float(np.sqrt(np.dot((bigs / top) ** 2, np.array(self.sums))))


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
    integer = dtype not in FLOAT_DTYPES
    scan = _integer_scan(e, g, dtype, units) if integer else _float_scan(e, g, dtype, rtol_for(dtype, sizes))
    if not scan.bad:
        return ArrayComparison(name, True, scan.max_error, scan.bound, scan.rel_l2, integer=integer)
    first = scan.first
    idx = tuple(int(i) for i in np.unravel_index(first, expected.shape)) if expected.shape else ()
    shown = (e[first].item(), g[first].item())
    if dtype in HALF_DTYPES:
        shown = tuple(values(x[first:first + 1], dtype)[0].item() for x in (e, g))
    return ArrayComparison(name, False, scan.max_error, scan.bound, scan.rel_l2, idx, *shown,
                           scan.bad, scan.unwritten, scan.nonfinite, integer=integer)


@dataclass
class _Scan:
    """What a comparison finds over the blocks of one array."""
    bound: float
    max_error: float = 0.0
    rel_l2: float = 0.0
    bad: int = 0                      # failing elements
    first: int | None = None          # the first of them (flat index)
    unwritten: int = 0
    nonfinite: int = 0

    def errors(self, start: int, err: np.ndarray) -> None:
        """Take one block's element errors (max propagating NaN, as the whole array's would)."""
        top = err.max(initial=0.0)
        self.max_error = float(np.maximum(self.max_error, top))
        if top <= self.bound:
            return                        # no element of the block fails
        bad = err > self.bound
        count = int(np.count_nonzero(bad))
        if count and self.first is None:
            self.first = start + int(np.flatnonzero(bad)[0])
        self.bad += count


def _f64(a: np.ndarray, dtype: str) -> np.ndarray:
    """A block's values as float64, to be read only (a double block is itself)."""
    return values(a, dtype) if dtype == BFLOAT16 else a.astype(np.float64, copy=False)


def _integer_scan(e: np.ndarray, g: np.ndarray, dtype: str, units: int) -> _Scan:
    """Integers: |c - r| in units; relative L2 over the whole arrays."""
    scan, ref, dev = _Scan(float(units)), _Norm(), _Norm()
    for start, b in blocks(e.size):
        eb, gb = e[b].astype(np.float64), g[b].astype(np.float64)
        diff = np.abs(eb - gb)
        ref.add(eb)
        dev.add(diff)
        scan.errors(start, diff)
        scan.unwritten += int(np.count_nonzero(is_poison(g[b], dtype)))
    norm, d = ref.value(), dev.value()
    scan.rel_l2 = d / norm if norm else d
    return scan


def _float_scan(e: np.ndarray, g: np.ndarray, dtype: str, bound: float) -> _Scan:
    """Reals, in two passes over the blocks: the norms first (the RMS s is the scale of every
    element's error), then each element's |c - r| / max(|r|, s).  A block whose values are all
    finite on both sides (the largest magnitudes of r and c - r say so) needs no mask; the
    others (`irregular`) are masked as the model says, in both passes."""
    scan, ref, dev = _Scan(bound), _Norm(), _Norm()
    finite_ref, irregular, nonfinite_any = 0, set(), False
    for start, b in blocks(e.size):
        eb, gb = _f64(e[b], dtype), _f64(g[b], dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = gb - eb
            big_ref, big_diff = _largest(eb), _largest(diff)
            if np.isfinite(big_ref) and np.isfinite(big_diff):
                ref.take(eb, big_ref)
                dev.take(diff, big_diff)
                finite_ref += eb.size
                continue
            irregular.add(start)
            fr, fg = np.isfinite(eb), np.isfinite(gb)
            fin = fr & fg
            ref.add(eb[fr])
            dev.add(diff[fin])
        finite_ref += int(np.count_nonzero(fr))
        nonfinite_any = nonfinite_any or bool((fr & ~fg).any())
    den, num = ref.value(), dev.value()
    scale = den / np.sqrt(finite_ref) if finite_ref else 0.0                      # RMS
    floor = scale if scale > 0 else np.finfo(np.float64).tiny
    scan.rel_l2 = (num / den if den else num) if not nonfinite_any else float("inf")
    for start, b in blocks(e.size):
        eb, gb = _f64(e[b], dtype), _f64(g[b], dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            err = np.subtract(gb, eb)
            np.abs(err, out=err)
            if dtype in HALF_DTYPES:
                err = np.maximum(err - ulp(np.maximum(np.abs(eb), np.abs(gb)), dtype), 0.0)
            denom = np.abs(eb)
            np.maximum(denom, floor, out=denom)
            err /= denom
        if start in irregular:
            fr, fg = np.isfinite(eb), np.isfinite(gb)
            nonfinite = fr & ~fg
            err[nonfinite] = np.inf
            # The reference is finite on every kept case (synth discards the rest); a
            # non-finite reference element then needs the identical non-finite value.
            other = ~fr
            same = (gb == eb) | (np.isnan(gb) & np.isnan(eb))
            err[other] = np.where(same[other], 0.0, np.inf)
            unwritten = is_poison(g[b], dtype)            # the poison is a NaN: only here
            scan.unwritten += int(np.count_nonzero(unwritten))
            scan.nonfinite += int(np.count_nonzero(nonfinite & ~unwritten))
        scan.errors(start, err)
    return scan


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

