"""Input synthesis from the IS input domains (the first, plain form).

`synthesize(kernel, sizes, seed, domain_kind=None)` draws every input (scalars and
in/inout arrays) from its declared domain with a numpy Generator seeded by `seed`:
uniform reals, integer ranges, symmetric positive definite or diagonally dominant
matrices.  `original` inputs come from the reference driver's `t2c_init` instead
(see reference.run_reference with inputs=None).
"""
from __future__ import annotations

import numpy as np

from ..ir import FLOAT_DTYPES, Kernel
from .reference import array_shape, np_dtype


def _draw(rng, kind, low, high, shape, dtype):
    low = -1.0 if low is None else low
    high = 1.0 if high is None else high
    if kind == "integers":
        return rng.integers(int(low), int(high), size=shape, endpoint=True).astype(dtype)
    if kind in ("spd", "diagonally_dominant") and len(shape) == 2 and shape[0] == shape[1]:
        n = shape[0]
        m = rng.uniform(low, high, size=shape)
        if kind == "spd":
            m = m @ m.T / max(n, 1) + np.eye(n)
        else:
            m += np.diag(np.abs(m).sum(axis=1) + 1.0)
        return m.astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def synthesize(k: Kernel, sizes: dict[str, int], seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    domains = {d.target: d for d in k.domains if d.kind != "original"}
    out = {}
    for x in k.inputs:
        shape = array_shape(x, sizes) if hasattr(x, "shape") else ()
        d = domains.get(x.name)
        kind = d.kind if d else ("uniform" if x.dtype in FLOAT_DTYPES else "integers")
        low, high = (d.low, d.high) if d else (None, None)
        if kind == "integers" and d is None:
            low, high = 0, 16
        value = _draw(rng, kind, low, high, shape, np_dtype(x.dtype))
        out[x.name] = value if shape else value[()]
    return out
