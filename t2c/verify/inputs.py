"""Input synthesis from the IS input domains: one draw of every input for given sizes.

    synthesize(kernel, sizes, seed, distribution="domain") -> inputs;  distributions(kernel)

Takes the kernel, sizes, a seed and a distribution; draws every scalar and in/inout array with
a numpy Generator, always inside the declared domains: `domain`, `positive`, `small` (scaled by
1/sum of sizes: stable recurrences), `small_integers` (frequent equalities), `spd`,
`diagonally_dominant`. `distributions` lists those that change something for the kernel;
`original` inputs come from the reference's `t2c_init` instead (reference.run_reference). Draws
only: synth.py judges a draw. docs/verification.md, "Inputs: synthesized from a secret seed".
"""
from __future__ import annotations

import numpy as np

from ..ir import FLOAT_DTYPES, Kernel
from .compare import blocks
from .halfs import stored
from .reference import array_shape, np_dtype

DISTRIBUTIONS = ("domain", "positive", "small", "small_integers", "spd", "diagonally_dominant")


def _structured(rng, kind, low, high, shape):
    n = shape[0]
    m = rng.uniform(low, high, size=shape)
    if kind == "spd":
        return m @ m.T / max(n, 1) + np.eye(n)
    return m + np.diag(np.abs(m).sum(axis=1) + 1.0)


def _draw(rng, kind, low, high, shape, dtype):
    low = -1.0 if low is None else low
    high = 1.0 if high is None else high
    if kind == "integers":
        return rng.integers(int(low), int(high), size=shape, endpoint=True).astype(dtype)
    if kind == "offsets":       # nondecreasing from low to high: CSR row pointers, bag offsets
        out = np.sort(rng.integers(int(low), int(high), size=shape, endpoint=True), axis=-1)
        if out.size:
            out[..., 0], out[..., -1] = int(low), int(high)
        return out.astype(dtype)
    if kind in ("spd", "diagonally_dominant") and len(shape) == 2 and shape[0] == shape[1]:
        return _structured(rng, kind, low, high, shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype, copy=False)


def _uniform(rng, low, high, shape, dtype: str) -> np.ndarray:
    """uniform(low, high) values stored as the IS type `dtype`, drawn and stored block by block:
    the values one draw of the whole shape gives (the generator's stream is sequential), without
    its float64 array (at a full rung, hundreds of millions of elements)."""
    low = -1.0 if low is None else low
    high = 1.0 if high is None else high
    work = np.float64 if dtype in FLOAT_DTYPES else np_dtype(dtype)
    out = np.empty(shape, dtype=np_dtype(dtype))
    flat = out.reshape(-1)
    for _, b in blocks(flat.size):
        flat[b] = stored(rng.uniform(low, high, size=flat[b].size).astype(work, copy=False), dtype)
    return out


def _square(x) -> bool:
    return hasattr(x, "shape") and len(x.shape) == 2 and x.shape[0] == x.shape[1]


def distributions(k: Kernel) -> tuple[str, ...]:
    """The distributions that draw something different from `domain` for k."""
    ins = k.inputs
    out = ["domain"]
    if any(x.dtype in FLOAT_DTYPES for x in ins):
        out += ["positive", "small"]
    if any(x.dtype not in FLOAT_DTYPES for x in ins):
        out.append("small_integers")
    if any(_square(x) and x.dtype in FLOAT_DTYPES for x in ins):
        out += ["spd", "diagonally_dominant"]
    return tuple(out)


def synthesize(k: Kernel, sizes: dict[str, int], seed, distribution: str = "domain") -> dict[str, np.ndarray]:
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown distribution '{distribution}'; known: {', '.join(DISTRIBUTIONS)}")
    rng = np.random.default_rng(seed)
    domains = {d.target: d for d in k.domains if d.kind != "original"}
    out = {}
    for x in k.inputs:
        shape = array_shape(x, sizes) if hasattr(x, "shape") else ()
        d = domains.get(x.name)
        kind = d.kind if d else ("uniform" if x.dtype in FLOAT_DTYPES else "integers")
        low, high = d.bounds(sizes) if d else (None, None)
        if kind == "integers" and d is None:
            low, high = 0, 16
        floating = x.dtype in FLOAT_DTYPES
        if distribution == "positive" and floating and kind == "uniform":
            lo, hi = (-1.0 if low is None else low), (1.0 if high is None else high)
            low = (lo + hi) / 2
            high = hi
        elif distribution == "small" and floating and kind == "uniform":
            scale = 1.0 / max(1, sum(sizes.values()))
            low = (-1.0 if low is None else low) * scale
            high = (1.0 if high is None else high) * scale
        elif distribution == "small_integers" and kind == "integers":
            lo = 0 if low is None else int(low)
            high = min(int(high if high is not None else 16), lo + 3)
        elif distribution in ("spd", "diagonally_dominant") and floating and _square(x) \
                and kind == "uniform":
            kind = distribution
        if kind == "uniform":
            value = _uniform(rng, low, high, shape, x.dtype)
        else:
            value = stored(_draw(rng, kind, low, high, shape, np.float64 if floating else np_dtype(x.dtype)),
                           x.dtype)
        out[x.name] = value if shape else value[()]
    return out
