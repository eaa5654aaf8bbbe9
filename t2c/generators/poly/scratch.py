"""A candidate's scratch in NAME_device: device memory for the call, taken and given back in it.

    take(var, nbytes, pool) -> C call;  give_back(var, pool) -> C statement;  scratch_head(pool, locals)

Local arrays sized by the call, copies of inputs, a time-tiled loop's other copy and a sort's
buffers are taken and given back within NAME_device (the static check holds it): with `pool`, from
the device's default stream-ordered pool, kept in the pool between calls (POOL_KEPT); else by
cudaMalloc and cudaFree, which waits for the device. docs/poly-options.md, `pool`.
"""
from __future__ import annotations

DEVICE = ["  int poly_device = 0;   /* the call's device: its pool, the symbols set on it */",
          "  cudaGetDevice(&poly_device);"]
POOL_KEPT = DEVICE + ["  static bool poly_pool_kept = false;   /* scratch stays in the pool between calls */",
                      "  if (!poly_pool_kept) {",
                      "    cudaMemPool_t poly_pool;",
                      "    unsigned long long poly_keep = ~0ULL;",
                      "    cudaDeviceGetDefaultMemPool(&poly_pool, poly_device);",
                      "    cudaMemPoolSetAttribute(poly_pool, cudaMemPoolAttrReleaseThreshold, &poly_keep);",
                      "    poly_pool_kept = true;", "  }"]


def take(var: str, nbytes: str, pool: bool) -> str:
    """The call (a C expression, a cudaError_t) that points `var` at `nbytes` of scratch."""
    return f"cudaMallocAsync((void **)&{var}, {nbytes}, 0)" if pool else f"cudaMalloc((void **)&{var}, {nbytes})"


def give_back(var: str, pool: bool) -> str:
    """The statement that gives `var`'s scratch back (`take`'s counterpart)."""
    return f"cudaFreeAsync({var}, 0);" if pool else f"cudaFree({var});"


def scratch_head(pool: bool, locals_: bool) -> list[str]:
    """NAME_device's first lines where it takes scratch: the pool kept, or the device the local
    arrays' symbols are set on (cuda.point)."""
    return POOL_KEPT if pool else DEVICE if locals_ else []
