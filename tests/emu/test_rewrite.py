"""rewrite_cuda: launches, qualifiers, __shared__, symbols, line keeping, refusals."""
from __future__ import annotations

import pytest

from t2c.runtime.emu import EmuUnsupported, rewrite_cuda


def body(out: str) -> list[str]:
    """The rewritten lines after the two-line prologue, so index i is .cu line i + 1."""
    lines = out.splitlines()
    assert lines[0] == '#include "t2c_emu.h"' and lines[1].startswith("#line 1 ")
    return lines[2:]


def test_prologue_names_original_file():
    out = rewrite_cuda("int x;\n", 'dir/my "k".cu')
    assert out.splitlines()[1] == '#line 1 "dir/my \\"k\\".cu"'


@pytest.mark.parametrize("config, grid, block, smem, stream", [
    ("g, b", "(g)", "(b)", "(0)", "(0)"),
    ("dim3(2, 3), 64, 128", "(dim3(2, 3))", "(64)", "(128)", "(0)"),
    ("(n + 255) / 256, 256, 0, s", "((n + 255) / 256)", "(256)", "(0)", "(s)"),
])
def test_launch_forms(config, grid, block, smem, stream):
    src = "__global__ void k(int* p, int n) { p[threadIdx.x] = n; }\n" \
          f"void host(int* p, int n) {{ k<<<{config}>>>(p, n + 1); }}\n"
    line = body(rewrite_cuda(src, "a.cu"))[1]
    assert "<<<" not in line
    assert f"LaunchSite{{__FILE__, __LINE__, \"k\"}}, {grid}, {block}, {smem}, {stream}, " in line
    assert "[&](auto&... t2c_a) { k(t2c_a...); }, p, n + 1)" in line
    assert "::t2c_emu::launch<false>" in line   # no barrier: plain loop


def test_launch_kernel_ex_is_the_same_launch_with_its_configuration():
    src = ("__global__ void k(int* p, int n) { p[threadIdx.x] = n; __syncthreads(); }\n"
           "void host(int* p, int n) { cudaLaunchConfig_t c = {}; cudaLaunchKernelEx(&c, k, p, n + 1); }\n")
    line = body(rewrite_cuda(src, "a.cu"))[1]
    assert "cudaLaunchKernelEx" not in line and "::t2c_emu::launch_ex<true>" in line   # a barrier: fibers
    assert 'LaunchSite{__FILE__, __LINE__, "k"}, (&c), [&](auto&... t2c_a) { k(t2c_a...); }, p, n + 1)' in line


def test_template_launch_and_barrier_kernel_uses_fibers():
    src = ("template <int B, typename T> __global__ void r(T* x) { __shared__ T s[B]; s[0] = x[0]; __syncthreads(); }\n"
           "void h(float* x) { r<128, float><<<1, 128>>>(x); }\n")
    line = body(rewrite_cuda(src, "a.cu"))[1]
    assert "::t2c_emu::launch<true>" in line
    assert '"r<128, float>"' in line and "{ r<128, float>(t2c_a...); }" in line


def test_barrier_through_called_device_function():
    src = ("__device__ void stage() { __syncthreads(); }\n"
           "__device__ int helper(int x) { return x + 1; }\n"
           "__global__ void a(int* p) { stage(); }\n"
           "__global__ void b(int* p) { p[0] = helper(p[0]) + max(1, 2) + sqrtf(2.0f); }\n"
           "__global__ void c(int* p) { unknown_function(p); }\n"
           "void h(int* p) { a<<<1,1>>>(p); b<<<1,1>>>(p); c<<<1,1>>>(p); }\n")
    line = body(rewrite_cuda(src, "a.cu"))[5]
    launches = line.split("::t2c_emu::launch<")[1:]
    assert [l[:5] for l in launches] == ["true>", "false", "true>"]


def test_multiline_launch_keeps_line_numbers():
    src = ("__global__ void k(int* p, int n) {}\n"
           "void h(int* p) {\n"
           "  k<<<1,\n"
           "      32>>>(p,\n"
           "            7);\n"
           "  int marker = 1;\n"
           "}\n")
    lines = body(rewrite_cuda(src, "a.cu"))
    assert len(lines) == 7
    assert "t2c_emu::launch" in lines[2] and lines[5].strip() == "int marker = 1;"


def test_qualifiers():
    src = ("__device__ __forceinline__ float sq(float x) { return x * x; }\n"
           "__host__ __device__ float both(float x) { return x; }\n"
           "static __device__ __noinline__ float slow(float x) { return x; }\n"
           "__global__ void __launch_bounds__(256, 2) k(const float* __restrict__ a) {}\n"
           "__device__ float proto(float);\n")
    lines = body(rewrite_cuda(src, "a.cu"))
    assert lines[0].split() == ["inline", "float", "sq(float", "x)", "{", "return", "x", "*", "x;", "}"]
    assert lines[1].split()[:2] == ["float", "both(float"]
    assert "static" in lines[2] and "inline" in lines[2] and "__attribute__((noinline))" in lines[2]
    assert "__global__" not in lines[3] and "__launch_bounds__" not in lines[3] and "__restrict__" in lines[3]
    assert lines[4].split()[0] == "inline"


def test_static_shared_in_template_and_multiple_declarators():
    src = ("template <int T> __global__ void k() {\n"
           "  __shared__ float tile[T][T + 1], row[T];\n"
           "  tile[0][0] = row[0];\n"
           "}\n")
    line = body(rewrite_cuda(src, "a.cu"))[1]
    assert "typedef float t2c_shT_tile[T][T + 1];" in line
    assert "t2c_shT_tile& tile = ::t2c_emu::block_shared<t2c_shT_tile>(&t2c_shk_tile" in line
    assert "typedef float t2c_shT_row[T];" in line and "t2c_shT_row& row =" in line


def test_extern_shared_becomes_pointer_to_dynamic_shared():
    src = ("__global__ void k() {\n"
           "  extern __shared__ __align__(16) unsigned char raw[];\n"
           "  extern __shared__ float f[];\n"
           "}\n")
    lines = body(rewrite_cuda(src, "a.cu"))
    assert "::std::remove_extent_t<t2c_shT_raw>* raw = " in lines[1] and "dynamic_shared" in lines[1]
    assert "__align__(16) unsigned char" in lines[1]
    assert "typedef float t2c_shT_f[];" in lines[2]


def test_namespace_scope_shared_uses_accessor():
    src = "__shared__ int counter[4];\n__global__ void k() { counter[threadIdx.x] = 1; }\n"
    lines = body(rewrite_cuda(src, "a.cu"))
    assert "t2c_sh_counter()" in lines[0]
    assert "(t2c_sh_counter())[threadIdx.x]" in lines[1]


def test_device_and_constant_variables_are_registered():
    src = "__constant__ float c[16];\n__device__ int n = 3, m;\nextern __device__ int e;\n"
    lines = body(rewrite_cuda(src, "a.cu"))
    assert 'static ::t2c_emu::Symbol t2c_sym_c((const void*)&c, sizeof(c), "c"' in lines[0]
    assert "t2c_sym_n(" in lines[1] and "t2c_sym_m(" in lines[1]
    assert "Symbol" not in lines[2]


def test_launch_inside_macro():
    src = ("__global__ void k(int* p) {}\n"
           "#define LAUNCH(p) do { \\\n"
           "    k<<<1, 32>>>(p); \\\n"
           "  } while (0)\n"
           "void h(int* p) { LAUNCH(p); }\n")
    lines = body(rewrite_cuda(src, "a.cu"))
    assert len(lines) == 5
    assert "::t2c_emu::launch<false>" in lines[2] and lines[2].rstrip().endswith("\\")


@pytest.mark.parametrize("src, what, line", [
    ("int f() {\n  asm volatile(\"membar.gl;\");\n  return 0; }\n", "inline assembly", 2),
    ("#include <cstdio>\n#include <cublas_v2.h>\n", "cuBLAS", 2),
    ("#include <thrust/device_vector.h>\n", "Thrust", 1),
    ("texture<float, 1> tex;\n", "textures", 1),
    ("__global__ void k(float* o, int i) {\n o[0] = tex1Dfetch(t, i); }\n", "textures", 2),
    ("#include <cooperative_groups/reduce.h>\n", "cooperative groups' collectives", 1),
    ("#include <cooperative_groups.h>\n__global__ void k() {\n  auto t = cooperative_groups::tiled_partition<32>(\n"
     "    cooperative_groups::this_thread_block()); }\n", "cooperative groups other than the grid and the block", 3),
    ("__global__ void k() {}\nvoid h(void** a) {\n  void* f = (void*)k;\n"
     "  cudaLaunchCooperativeKernel(f, 1, 32, a, 0, 0); }\n", "of f, not a kernel defined in this file", 4),
    ("__global__ void c() {}\n__global__ void p() {\n  c<<<1, 1>>>();\n}\n", "dynamic parallelism", 3),
    ("#include <cuda_fp8.h>\n", "fp8 types", 1),
])
def test_unsupported_features_are_refused_with_line(src, what, line):
    with pytest.raises(EmuUnsupported) as e:
        rewrite_cuda(src, "x.cu")
    assert what in e.value.what and e.value.line == line and e.value.file == "x.cu"
    assert str(e.value).startswith("unsupported under emulation: ") and str(e.value).endswith(f"at x.cu:{line}")


def test_cooperative_launch_names_the_kernel_through_its_casts():
    """The runtime reads the kernel's parameter types from the kernel itself, so the `(void*)`
    that cudaLaunchCooperativeKernel's C signature needs is taken off; the rest is passed on."""
    src = ("#include <cooperative_groups.h>\n"
           "__global__ void k(int n, double* a) { cooperative_groups::this_grid().sync(); }\n"
           "void h(int n, double* a) {\n  void* args[] = {&n, &a};\n"
           "  cudaLaunchCooperativeKernel((void *)(&k), dim3(2), dim3(32), args, 0, 0);\n}\n")
    lines = body(rewrite_cuda(src, "a.cu"))
    assert lines[4].strip() == ('::t2c_emu::launch_cooperative(::t2c_emu::LaunchSite{__FILE__, __LINE__, "k"}, k, '
                                '(dim3(2)), (dim3(32)), (args), (0), (0));')
    assert "#include <cooperative_groups.h>" in lines[0]


MMA = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"


def test_the_fp64_mma_is_the_one_modeled_inline_ptx():
    """The tensor-core instruction becomes a call of the runtime's model (outputs by reference,
    then the inputs, then a "+" output's value again); its kernel runs as fibers (a warp
    operation); other operand constraints or templates stay refused."""
    src = ("__device__ void f(double &c0, double &c1, double a, double b) {\n"
           f'  asm volatile("{MMA} {{%0, %1}}, {{%2}}, {{%3}}, {{%0, %1}};" : "+d"(c0), "+d"(c1) : "d"(a), "d"(b));\n'
           "}\n__global__ void k(double* o) { f(o[0], o[1], 1.0, 2.0); }\n"
           "void h(double* o) { k<<<1, 32>>>(o); }\n")
    out = rewrite_cuda(src, "a.cu")
    assert "::t2c_emu::mma_m8n8k4_f64(__FILE__, __LINE__, (c0), (c1), (a), (b), (c0), (c1));" in out
    assert "asm" not in out and "::t2c_emu::launch<true>" in out
    split = (f'__device__ void g(double &d0, double &d1, double a, double b, double c0, double c1) {{\n'
             f'  asm("{MMA} {{%0,%1}}, {{%2}}, {{%3}}, {{%4,%5}};" : "=d"(d0), "=d"(d1) : "d"(a), "d"(b), "d"(c0), "d"(c1));\n}}\n')
    assert "mma_m8n8k4_f64(__FILE__, __LINE__, (d0), (d1), (a), (b), (c0), (c1))" in rewrite_cuda(split, "b.cu")
    for bad in (src.replace('"d"(b)', '"l"(b)'), src.replace("m8n8k4", "m16n8k16")):
        with pytest.raises(EmuUnsupported) as e:
            rewrite_cuda(bad, "a.cu")
        assert "inline assembly" in e.value.what and e.value.line == 2


def test_variable_named_texture_is_fine():
    assert "float* texture" in rewrite_cuda("__global__ void k(float* texture) { texture[0] = 1; }\n", "a.cu")
