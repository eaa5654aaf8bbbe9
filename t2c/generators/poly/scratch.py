"""A candidate's scratch in NAME_device: device memory for the call, taken and given back in it.

    take(var, nbytes, pool) -> C call;  give_back(var, pool) -> C statement
    scratch_head(pool, locals) -> lines;  entries(k, body, pool, takes) -> the two entry points

Local arrays sized by the call, copies of inputs, a time-tiled loop's other copy and a sort's
buffers are taken and given back within the call (the static check holds it). With `pool`, the
body runs as `poly_entry(..., poly_pool)`: NAME_device, called again and again on device arrays,
takes scratch from the device's default stream-ordered pool, kept between calls (POOL_KEPT);
the drop-in NAME, which a program calls once, takes it by cudaMalloc beside its arrays, as the
pool's first use costs milliseconds. Without `pool`, both take it by cudaMalloc and cudaFree,
which waits for the device. docs/poly-options.md, `pool`.
"""
from __future__ import annotations

from ...ir import Kernel, abi

DEVICE = ["  int poly_device = 0;   /* the call's device: its pool, the symbols set on it */",
          "  cudaGetDevice(&poly_device);"]
POOL_KEPT = DEVICE + ["  static bool poly_pool_kept = false;   /* scratch stays in the pool between calls */",
                      "  if (poly_pool && !poly_pool_kept) {",
                      "    cudaMemPool_t poly_pool_of;",
                      "    unsigned long long poly_keep = ~0ULL;",
                      "    cudaDeviceGetDefaultMemPool(&poly_pool_of, poly_device);",
                      "    cudaMemPoolSetAttribute(poly_pool_of, cudaMemPoolAttrReleaseThreshold, &poly_keep);",
                      "    poly_pool_kept = true;", "  }"]


def take(var: str, nbytes: str, pool: bool) -> str:
    """The call (a C expression, a cudaError_t) that points `var` at `nbytes` of scratch."""
    malloc = f"cudaMalloc((void **)&{var}, {nbytes})"
    return f"(poly_pool ? cudaMallocAsync((void **)&{var}, {nbytes}, 0) : {malloc})" if pool else malloc


def give_back(var: str, pool: bool) -> str:
    """The statement that gives `var`'s scratch back (`take`'s counterpart)."""
    return f"if (poly_pool) cudaFreeAsync({var}, 0); else cudaFree({var});" if pool else f"cudaFree({var});"


def scratch_head(pool: bool, locals_: bool) -> list[str]:
    """NAME_device's first lines where it takes scratch: the pool kept, or the device the local
    arrays' symbols are set on (cuda.point)."""
    return POOL_KEPT if pool else DEVICE if locals_ else []


def entries(k: Kernel, body: list[str], pool: bool, takes: bool) -> list[str]:
    """NAME_device and the drop-in NAME around `body` (NAME_device's lines inside its braces);
    where the body takes scratch from the pool, it becomes `poly_entry`, which each calls with
    `poly_pool` its own way."""
    if not (pool and takes):
        return [abi.head(k, "_device"), "{", *body, "}", "", *abi.dropin(k)]
    ret = abi.result_type(k)
    run = f"poly_entry({abi.call_args(k)}, true)"
    return [f"static {ret} poly_entry({abi.param_list(k)}, bool poly_pool)", "{", *body, "}", "",
            abi.head(k, "_device"), "{", f"  return {run};" if k.returns else f"  {run};", "}", "",
            *abi.dropin(k, "poly_entry", ", false")]
