"""What the emu rewriter knows about CUDA names, as data.

The rewriter and the barrier analysis consult these tables; nothing here has
behaviour.  Adding support for a CUDA feature usually means moving a name from an
`UNSUPPORTED_*` table into the runtime headers (`include/t2c_emu/`).
"""
from __future__ import annotations

from ..target import M8N8K4, SM90

# Execution-space and inlining qualifiers: the rewriter removes them (or turns them
# into their C++ meaning) so that g++ sees an ordinary C++ declaration.
QUALIFIERS = frozenset({
    "__global__", "__device__", "__host__", "__forceinline__", "__noinline__",
    "__constant__", "__managed__", "__grid_constant__",
})
# Variables with these qualifiers are device memory: copies to/from them and kernel
# arguments pointing into them are checked like cudaMalloc'ed memory.
SYMBOL_QUALIFIERS = frozenset({"__device__", "__constant__", "__managed__"})

# Calls that suspend a CUDA thread until others arrive: a kernel reaching any of these
# (directly or through functions it calls) must run its threads as fibers.
BARRIER_CALLS = frozenset({
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
    "__syncwarp", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot_sync", "__ballot",
    "__any_sync", "__all_sync", "__any", "__all", "__match_any_sync", "__match_all_sync",
    "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
    "__reduce_or_sync", "__reduce_xor_sync",
})

_MATH = """sqrt cbrt rsqrt rcbrt exp exp2 exp10 expm1 log log2 log10 log1p pow sin cos tan
asin acos atan atan2 sinh cosh tanh asinh acosh atanh fabs floor ceil round trunc rint
lrint llrint lround llround nearbyint fmod remainder remquo fmin fmax fdim fma hypot
rhypot erf erfc erfinv erfcinv lgamma tgamma frexp ldexp modf scalbn scalbln ilogb logb
copysign nextafter sinpi cospi sincos sincospi normcdf norm3d rnorm3d fdivide""".split()
# Functions known to contain no barrier; any other name not defined in the translation
# unit makes the analysis assume the worst (fibers), which is slower but always correct.
SAFE_CALLS = frozenset(
    _MATH + [m + "f" for m in _MATH]
    + """abs labs llabs min max umin umax llmin llmax ullmin ullmax isnan isinf isfinite
    signbit printf fprintf sprintf snprintf puts assert memcpy memset memmove malloc free
    static_cast reinterpret_cast const_cast dynamic_cast sizeof alignof decltype
    clock clock64 dim3 exit abort""".split())
SAFE_PREFIXES = ("__", "atomic", "make_")

# Headers whose library the emulator does not model; the value names the feature.
UNSUPPORTED_HEADERS = {
    "cublas_v2.h": "cuBLAS", "cublas.h": "cuBLAS", "cublasLt.h": "cuBLASLt",
    "cufft.h": "cuFFT", "cufftXt.h": "cuFFT", "curand.h": "cuRAND",
    "curand_kernel.h": "cuRAND (device API)", "cusparse.h": "cuSPARSE",
    "cusolverDn.h": "cuSOLVER", "cudnn.h": "cuDNN", "nccl.h": "NCCL",
    "cuda_fp8.h": "fp8 types (cuda_fp8.h)", "mma.h": "tensor-core WMMA (mma.h)",
    "cooperative_groups/reduce.h": "cooperative groups' collectives (reduce.h)",
    "cooperative_groups/scan.h": "cooperative groups' collectives (scan.h)",
    "cooperative_groups/memcpy_async.h": "cooperative groups' asynchronous copies (memcpy_async.h)",
    "cuda_texture_types.h": "textures", "texture_fetch_functions.h": "textures",
    "cuda_gl_interop.h": "OpenGL interop", "nvrtc.h": "NVRTC", "helper_cuda.h": "CUDA samples helpers",
}
UNSUPPORTED_HEADER_PREFIXES = {"thrust/": "Thrust", "cub/": "CUB", "cuda/": "libcu++ (cuda/...)",
                               "cute/": "CuTe", "cutlass/": "CUTLASS"}

# Identifiers that name an unsupported feature wherever they appear.
UNSUPPORTED_NAMES = {
    **{n: "textures" for n in """tex1D tex1Dfetch tex2D tex3D tex1DLayered tex2DLayered texCubemap
       tex2Dgather texture cudaBindTexture cudaBindTexture2D cudaUnbindTexture
       cudaCreateTextureObject cudaDestroyTextureObject cudaTextureObject_t cudaTextureDesc
       cudaCreateChannelDesc cudaChannelFormatDesc""".split()},
    **{n: "surfaces" for n in """surf1Dread surf1Dwrite surf2Dread surf2Dwrite surf3Dread surf3Dwrite
       cudaSurfaceObject_t cudaCreateSurfaceObject""".split()},
    **{n: "CUDA arrays" for n in """cudaArray cudaArray_t cudaMallocArray cudaMalloc3DArray
       cudaMemcpyToArray cudaMemcpy2DToArray cudaMemcpyFromArray cudaMemcpy3D cudaMalloc3D""".split()},
    **{n: "multi-device cooperative launches" for n in """cudaLaunchCooperativeKernelMultiDevice
       this_multi_grid multi_grid_group""".split()},
    # cooperative_groups.h: the emulator models the grid and the block (this_grid, this_thread_block)
    **{n: "cooperative groups other than the grid and the block" for n in """tiled_partition
       thread_block_tile coalesced_threads coalesced_group this_cluster cluster_group labeled_partition
       binary_partition""".split()},
    **{n: "CUDA graphs" for n in """cudaGraph_t cudaGraphCreate cudaStreamBeginCapture
       cudaStreamEndCapture cudaGraphInstantiate cudaGraphLaunch cudaGraphExec_t""".split()},
    **{n: "multi-GPU peer access and IPC" for n in """cudaMemcpyPeer cudaMemcpyPeerAsync
       cudaDeviceEnablePeerAccess cudaIpcGetMemHandle cudaIpcOpenMemHandle""".split()},
    **{n: "asynchronous copies other than cuda_pipeline.h's primitives"
       for n in "memcpy_async __cvta_generic_to_shared".split()},
    "cudaLaunchKernel": "cudaLaunchKernel (launch with <<<>>> instead)",
    "wmma": "tensor-core WMMA", "nvcuda": "tensor-core WMMA",
}

# Inline PTX the runtime models, by its template with whitespace removed: the constraints of
# its outputs and inputs, and the runtime function that does the same for a CUDA thread (its
# arguments: __FILE__, __LINE__, the outputs by reference, then the values of the inputs,
# where a "+" output is also an input after them).  Any other asm is refused.  The shapes are
# the target's (runtime.target: what the poly generator emits), each with the runtime's model
# `mma_<shape>_f64`; a fragment holds m * k / 32 values of A, k * n / 32 of B, m * n / 32 of C.
def _mma_forms(mma) -> dict:
    a, b, c = (mma.m * mma.k // 32, mma.k * mma.n // 32, mma.m * mma.n // 32)
    regs = lambda first, count: "{" + ",".join(f"%{i}" for i in range(first, first + count)) + "}"
    ins = regs(c, a) + "," + regs(c + a, b)
    fn = f"::t2c_emu::mma_{mma.shape}_f64"
    forms = {f"{mma.ptx}{regs(0, c)},{ins},{regs(0, c)};": (("+d",) * c, ("d",) * (a + b), fn)}
    if mma == M8N8K4:            # also with C apart from D (the runtime's model takes both forms)
        forms[f"{mma.ptx}{regs(0, c)},{ins},{regs(c + a + b, c)};"] = (("=d",) * c, ("d",) * (a + b + c), fn)
    return forms


MODELED_ASM = {t: form for mma in SM90.mma for t, form in _mma_forms(mma).items()}
