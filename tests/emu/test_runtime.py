"""The emu runtime end to end: small .cu programs built with g++ and run on the CPU."""
from __future__ import annotations

from t2c.runtime.emu import build_emu

from .conftest import needs_gxx

pytestmark = needs_gxx

PRELUDE = "#include <cstdio>\n#include <cuda_runtime.h>\n"


def test_reduction_with_barriers_templates_and_atomics(run_cu):
    src = PRELUDE + r"""
template <int B> __global__ void sum(const float* in, float* out, int n) {
    __shared__ float s[B];
    int i = blockIdx.x * B + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int k = B / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
int main() {
    const int n = 1000; float h[n], *d, *o, r = 0;
    for (int i = 0; i < n; ++i) h[i] = 1.0f;
    cudaMalloc(&d, sizeof h); cudaMalloc(&o, sizeof(float));
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(o, 0, sizeof(float));
    sum<128><<<(n + 127) / 128, 128>>>(d, o, n);
    cudaMemcpy(&r, o, sizeof r, cudaMemcpyDeviceToHost);
    printf("%.1f %s\n", r, cudaGetErrorString(cudaGetLastError()));
}
"""
    out = run_cu(src, seeds=3)
    assert out.status == "ok", out.message
    assert out.stdout == "1000.0 no error\n"
    assert len(out.per_seed) == 3


def test_launch_kernel_ex_runs_the_launch_and_refuses_what_it_does_not_model(run_cu):
    """cudaLaunchKernelEx: the configuration's grid, block and shared bytes; a programmatic
    dependent launch runs as a plain one (launches run in order here); an attribute it does not
    model (an L2 access policy window) is refused with its line."""
    src = PRELUDE + r"""
__global__ void fill(int* out, int v) {
    extern __shared__ int s[];
    s[threadIdx.x] = v + (int)threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}
int main() {
    int *d, h[64];
    cudaMalloc(&d, sizeof h);
    cudaLaunchAttribute attr[1];
    attr[0].id = ATTRIBUTE;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(2); c.blockDim = dim3(32); c.dynamicSmemBytes = 32 * sizeof(int); c.stream = 0;
    c.attrs = attr; c.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&c, fill, d, 100);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d %d %s\n", h[0], h[31], h[63], cudaGetErrorString(e));
}
"""
    out = run_cu(src.replace("ATTRIBUTE", "cudaLaunchAttributeProgrammaticStreamSerialization"))
    assert out.status == "ok", out.message
    assert out.stdout == "131 100 100 no error\n"
    out = run_cu(src.replace("ATTRIBUTE", "cudaLaunchAttributeAccessPolicyWindow"))
    assert out.status == "unsupported" and "launch attribute 1 is not modelled" in out.message, out.message


def test_builtins_warp_ops_and_vector_types(run_cu):
    src = PRELUDE + r"""
__global__ void k(int* out, float4* v) {
    int lane = threadIdx.x % warpSize, x = threadIdx.x + 1;
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffff, x, o);
    unsigned b = __ballot_sync(0xffffffff, lane % 2);
    int up = __shfl_up_sync(0xffffffff, lane, 1);
    int all = __all_sync(0xffffffff, lane < 32), any = __any_sync(0xffffffff, lane == 5);
    __syncwarp();
    if (lane == 0) out[threadIdx.x / 32] = x;
    if (threadIdx.x == 3) { out[2] = b == 0xaaaaaaaau; out[3] = up; out[4] = all + any; }
    if (threadIdx.x == 0) v[0] = make_float4(gridDim.x, blockDim.x, blockIdx.x, warpSize);
}
int main() {
    int *o, h[5]; float4 *v, hv;
    cudaMalloc(&o, sizeof h); cudaMalloc(&v, sizeof hv);
    k<<<1, 64>>>(o, v);
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(&hv, v, sizeof hv, cudaMemcpyDeviceToHost);
    printf("%d %d %d %d %d | %g %g %g %g\n", h[0], h[1], h[2], h[3], h[4], hv.x, hv.y, hv.z, hv.w);
}
"""
    out = run_cu(src, seeds=2)
    assert out.status == "ok", out.message
    assert out.stdout == "528 1552 1 2 2 | 1 64 0 32\n"


def test_missing_barrier_is_a_race(run_cu):
    src = PRELUDE + r"""
__global__ void k(int* out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    for (int k = 32; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    }
    if (threadIdx.x == 0) *out = s[0];
}
int main() { int *o, h; cudaMalloc(&o, 4); k<<<1, 64>>>(o); cudaMemcpy(&h, o, 4, cudaMemcpyDeviceToHost);
             printf("%d\n", h); }
"""
    out = run_cu(src, seeds=3)
    assert out.status == "race", out.message
    assert "seed" in out.message


def test_a_fault_only_the_race_checks_run_meets_is_reported(run_cu):
    """The race check reran the program in its ThreadSanitizer build and read only a race from
    it: a crash or an out-of-bounds access in that run (another thread order) passed as ok."""
    src = PRELUDE + r"""
__global__ void k(int* out) {
#ifdef __SANITIZE_THREAD__
    if (threadIdx.x == 5) __builtin_trap();   /* stands for a fault only some thread order meets */
#endif
    out[threadIdx.x] = threadIdx.x;
}
int main() { int *o, h; cudaMalloc(&o, 64 * sizeof(int)); k<<<1, 64>>>(o);
             cudaMemcpy(&h, o, 4, cudaMemcpyDeviceToHost); printf("%d\n", h); }
"""
    assert run_cu(src).status == "ok"
    out = run_cu(src, race_check=True)
    assert out.status == "crash" and "race check's run" in out.message, out.message


def test_divergent_barrier_names_the_line(run_cu):
    src = PRELUDE + r"""
__global__ void k(int* out) {
    if (threadIdx.x < 8) {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}
int main() { int* o; cudaMalloc(&o, 4 * 32); k<<<1, 32>>>(o); cudaDeviceSynchronize(); puts("done"); }
"""
    out = run_cu(src, name="div.cu")
    assert out.status == "divergent_barrier", out.message
    assert (out.file, out.line) == (str(out.file), 6) and out.file.endswith("div.cu")


def test_shuffle_naming_an_exited_lane_is_divergent(run_cu):
    src = PRELUDE + r"""
__global__ void k(int* out) {
    if (threadIdx.x >= 16) return;
    out[threadIdx.x] = __shfl_down_sync(0xffffffff, (int)threadIdx.x, 1);
}
int main() { int* o; cudaMalloc(&o, 4 * 32); k<<<1, 32>>>(o); cudaDeviceSynchronize(); }
"""
    out = run_cu(src)
    assert out.status == "divergent_barrier" and out.line == 6, out.message


MMA_PROGRAM = PRELUDE + r"""
__device__ void mma(double &c0, double &c1, double a, double b) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c0), "+d"(c1) : "d"(a), "d"(b));
}
__global__ void k(const double* A, const double* B, double* C) {   // A 8x4, B 4x8, C 8x8 row-major
    int l = threadIdx.x;
    if (l >= LANES) return;
    double c0 = C[l / 4 * 8 + l % 4 * 2], c1 = C[l / 4 * 8 + l % 4 * 2 + 1];
    mma(c0, c1, A[l / 4 * 4 + l % 4], B[l % 4 * 8 + l / 4]);
    C[l / 4 * 8 + l % 4 * 2] = c0; C[l / 4 * 8 + l % 4 * 2 + 1] = c1;
}
int main() {
    double a[32], b[32], c[64], *A, *B, *C;
    for (int i = 0; i < 32; ++i) { a[i] = i % 5 - 2; b[i] = i % 3 + 0.5; }
    for (int i = 0; i < 64; ++i) c[i] = i;
    cudaMalloc(&A, sizeof a); cudaMalloc(&B, sizeof b); cudaMalloc(&C, sizeof c);
    cudaMemcpy(A, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(B, b, sizeof b, cudaMemcpyHostToDevice);
    cudaMemcpy(C, c, sizeof c, cudaMemcpyHostToDevice);
    k<<<1, 32>>>(A, B, C);
    double want[64], got[64];
    cudaMemcpy(got, C, sizeof got, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < 8; ++r)
        for (int j = 0; j < 8; ++j) {
            want[r * 8 + j] = c[r * 8 + j];
            for (int q = 0; q < 4; ++q) want[r * 8 + j] += a[r * 4 + q] * b[q * 8 + j];
            bad += got[r * 8 + j] != want[r * 8 + j];
        }
    printf("%d wrong\n", bad);
}
"""


def test_the_fp64_tensor_core_mma_multiplies_the_warps_fragments(run_cu):
    """PTX mma.sync m8n8k4 f64, as modeled: lane l holds A[l/4][l%4], B[l%4][l/4] and
    C[l/4][l%4*2 + 0, 1]; the warp gets C + A B (exact here: small integers and halves).
    A warp with lanes missing is a divergent warp operation, at the asm's line."""
    out = run_cu(MMA_PROGRAM.replace("LANES", "32"), seeds=2)
    assert out.status == "ok", out.message
    assert out.stdout == "0 wrong\n"
    out = run_cu(MMA_PROGRAM.replace("LANES", "16"))
    assert out.status == "divergent_barrier" and out.line == 5, out.message


MMA16_PROGRAM = PRELUDE + r"""
__global__ void k(const double* A, const double* B, double* C) {   // A 16x8, B 8x8, C 16x8 row-major
    int l = threadIdx.x, g = l / 4, q = l % 4;
    double c[4], a[4], b[2];
    for (int r = 0; r < 4; ++r) { c[r] = C[(g + 8 * (r / 2)) * 8 + q * 2 + r % 2]; a[r] = A[(g + 8 * (r % 2)) * 8 + q + 4 * (r / 2)]; }
    for (int r = 0; r < 2; ++r) b[r] = B[(q + 4 * r) * 8 + g];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};" : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    for (int r = 0; r < 4; ++r) C[(g + 8 * (r / 2)) * 8 + q * 2 + r % 2] = c[r];
}
int main() {
    double a[128], b[64], c[128], *A, *B, *C;
    for (int i = 0; i < 128; ++i) { a[i] = i % 7 - 3; c[i] = i; }
    for (int i = 0; i < 64; ++i) b[i] = i % 5 + 0.5;
    cudaMalloc(&A, sizeof a); cudaMalloc(&B, sizeof b); cudaMalloc(&C, sizeof c);
    cudaMemcpy(A, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(B, b, sizeof b, cudaMemcpyHostToDevice);
    cudaMemcpy(C, c, sizeof c, cudaMemcpyHostToDevice);
    k<<<1, 32>>>(A, B, C);
    double got[128];
    cudaMemcpy(got, C, sizeof got, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int r = 0; r < 16; ++r)
        for (int j = 0; j < 8; ++j) {
            double want = c[r * 8 + j];
            for (int q = 0; q < 8; ++q) want += a[r * 8 + q] * b[q * 8 + j];
            bad += got[r * 8 + j] != want;
        }
    printf("%d wrong\n", bad);
}
"""


def test_the_sm90_mma_multiplies_16_x_8_x_8(run_cu):
    """PTX mma.sync m16n8k8 f64 (sm_90), as modeled: lane l holds A[l/4 + 8 (r%2)][l%4 + 4 (r/2)]
    in a_r, B[l%4 + 4 r][l/4] in b_r, C[l/4][l%4*2 + 0, 1] in c0, c1 and the same 8 rows down in
    c2, c3; the warp gets C + A B (exact: small integers and halves)."""
    out = run_cu(MMA16_PROGRAM, seeds=2)
    assert out.status == "ok", out.message
    assert out.stdout == "0 wrong\n"


ASYNC_PROGRAM = PRELUDE + r"""#include <cuda_pipeline.h>
__global__ void k(const double* in, double* out, int n) {
    __shared__ double s[64];
    int t = threadIdx.x;
    s[t] = -1.0;
    __syncthreads();
    __pipeline_memcpy_async(&s[t], t < n ? &in[t] : in, 8, t < n ? 0 : 8);
    __pipeline_commit();
    double early = s[t];                      // before the wait: the copy may not have landed
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s[63 - t];
    out[64 + t] = early;
}
int main() {
    double h[64], r[128], *in, *out;
    for (int i = 0; i < 64; ++i) h[i] = i + 0.5;
    cudaMalloc(&in, sizeof h); cudaMalloc(&out, sizeof r);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    k<<<1, 64>>>(in, out, 40);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int t = 0; t < 64; ++t) bad += r[t] != (63 - t < 40 ? 63 - t + 0.5 : 0.0);
    printf("%d wrong, early %g\n", bad, r[64 + 5]);
}
"""


def test_asynchronous_copies_land_at_the_wait(run_cu):
    """cuda_pipeline.h's copies (zero-filling ones included) land when their thread waits for
    the batch, the latest moment a GPU may do it: after the wait and a barrier every thread sees
    every copy; a read before the wait sees the old contents.  Misaligned copies are refused."""
    out = run_cu(ASYNC_PROGRAM, seeds=2)
    assert out.status == "ok", out.message
    assert out.stdout == "0 wrong, early -1\n"
    out = run_cu(ASYNC_PROGRAM.replace("&s[t], t < n", "(char*)&s[t] + 4, t < n"))
    assert out.status == "crash" and "aligned" in out.message, out.message


def test_memcpy_overrun_and_direction(run_cu):
    over = PRELUDE + r"""
int main() { int h[20] = {0}; int* d; cudaMalloc(&d, 16 * sizeof(int));
  cudaMemcpy(d, h, 20 * sizeof(int), cudaMemcpyHostToDevice); }
"""
    out = run_cu(over)
    assert out.status == "oob" and out.line == 5 and "overrun" in out.message, out.message
    wrong_way = PRELUDE + r"""
int main() { int h[4] = {0}; int* d; cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyDeviceToHost); }
"""
    out = run_cu(wrong_way, name="dir.cu")
    assert out.status == "oob" and out.line == 5 and "not device memory" in out.message, out.message


def test_host_pointer_passed_to_kernel(run_cu):
    src = PRELUDE + r"""
__global__ void k(float* p) { p[threadIdx.x] = 1; }
int main() { float h[32]; k<<<1, 32>>>(h); }
"""
    out = run_cu(src)
    assert out.status == "oob" and out.line == 5 and "host pointer" in out.message, out.message


def test_constant_memory_bounds(run_cu):
    src = PRELUDE + r"""
__constant__ float c[4];
__global__ void k(float* o) { o[threadIdx.x] = c[threadIdx.x]; }
int main() { float h[8] = {1, 2, 3, 4}; float* d;
  cudaMemcpyToSymbol(c, h, 4 * sizeof(float));
  cudaMalloc(&d, 4 * sizeof(float)); k<<<1, 4>>>(d);
  cudaMemcpy(h, d, 4 * sizeof(float), cudaMemcpyDeviceToHost); printf("%g\n", h[3]);
  cudaMemcpyToSymbol(c, h, 8 * sizeof(float)); }
"""
    out = run_cu(src)
    assert out.status == "oob" and out.line == 10 and "symbol" in out.message, out.message
    assert out.stdout == "4\n"


def test_launch_limits_of_grid_and_block(run_cu):
    """CUDA's launch limits, each one past them failing as on a GPU: gridDim.y and gridDim.z at
    most 65535 (x: 2^31 - 1), a block at most 1024 x 1024 x 64 and 1024 threads; the largest
    grid.y and grid.z run every block."""
    src = PRELUDE + r"""
__global__ void count(unsigned* n) { atomicAdd(n, 1u); }
int main() {
  unsigned* d; cudaMalloc(&d, sizeof(unsigned)); cudaMemset(d, 0, sizeof(unsigned));
  const dim3 bad_grids[] = {dim3(1, 70000), dim3(1, 1, 70000), dim3(1, 65536)};
  for (dim3 g : bad_grids) {
    count<<<g, 1>>>(d);
    printf("grid %ux%ux%u: %s\n", g.x, g.y, g.z, cudaGetErrorName(cudaGetLastError()));
  }
  const dim3 bad_blocks[] = {dim3(1, 1, 65), dim3(1025), dim3(1, 1025), dim3(32, 33)};
  for (dim3 b : bad_blocks) {
    count<<<1, b>>>(d);
    printf("block %ux%ux%u: %s\n", b.x, b.y, b.z, cudaGetErrorName(cudaGetLastError()));
  }
  count<<<dim3(1, 65535), 1>>>(d);
  count<<<dim3(1, 1, 65535), 1>>>(d);
  count<<<1, dim3(1, 1, 64)>>>(d);
  unsigned h = 0; cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%u %s\n", h, cudaGetErrorName(cudaGetLastError()));
}
"""
    out = run_cu(src)
    assert out.status == "ok", out.message
    assert out.stdout.splitlines() == [
        "grid 1x70000x1: cudaErrorInvalidConfiguration", "grid 1x1x70000: cudaErrorInvalidConfiguration",
        "grid 1x65536x1: cudaErrorInvalidConfiguration",
        "block 1x1x65: cudaErrorInvalidConfiguration", "block 1025x1x1: cudaErrorInvalidConfiguration",
        "block 1x1025x1: cudaErrorInvalidConfiguration", "block 32x33x1: cudaErrorInvalidConfiguration",
        f"{2 * 65535 + 64} cudaSuccess"]


def test_invalid_configuration_sets_last_error_and_double_free(run_cu):
    src = PRELUDE + r"""
__global__ void k() {}
int main() {
  k<<<1, 2048>>>();
  printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  int* d; cudaMalloc(&d, 4); cudaFree(d); cudaFree(d);
}
"""
    out = run_cu(src)
    assert out.stdout == "cudaErrorInvalidConfiguration\ncudaSuccess\n"
    assert out.status == "oob" and out.line == 9 and "cudaFree" in out.message, out.message


def test_a_block_past_the_kernels_launch_bounds_fails_as_on_a_gpu(run_cu):
    """A GPU refuses a launch whose block exceeds the kernel's __launch_bounds__ ("invalid
    argument"); the emu ran it.  Bounds written as numbers or this file's macros are checked."""
    src = PRELUDE + r"""
#define THREADS 64
__global__ void __launch_bounds__(128) k(int* a) { a[threadIdx.x] = 1; }
__global__ void __launch_bounds__(THREADS * 2, 1) m(int* a) { a[threadIdx.x] = 1; }
int main() {
  int* d; cudaMalloc(&d, 1024 * sizeof(int));
  k<<<1, 128>>>(d);
  printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  k<<<1, dim3(4, 64)>>>(d);
  printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  m<<<1, 256>>>(d);
  printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  cudaFree(d);
}
"""
    out = run_cu(src)
    assert out.stdout == "cudaSuccess\ncudaErrorInvalidValue\ncudaErrorInvalidValue\n", out.stdout
    assert "__launch_bounds__ maximum of 128 threads" in out.stderr


def test_device_api_streams_events(run_cu):
    src = PRELUDE + r"""
__global__ void fill(int* p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }
int main() {
  int n = 0, dev = -1; cudaGetDeviceCount(&n); cudaSetDevice(0); cudaGetDevice(&dev);
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  cudaStream_t s; cudaStreamCreate(&s);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  int *d, *h; cudaMalloc(&d, 256 * sizeof(int)); cudaMallocHost(&h, 256 * sizeof(int));
  cudaEventRecord(a, s);
  fill<<<2, 128, 0, s>>>(d, 7);
  cudaMemcpyAsync(h, d, 256 * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaEventRecord(b, s); cudaStreamSynchronize(s);
  float ms = -1; cudaEventElapsedTime(&ms, a, b);
  printf("%d %d %d %d %d %d\n", n, dev, p.warpSize, p.maxThreadsPerBlock, h[255], ms >= 0);
  cudaFreeHost(h); cudaFree(d); cudaStreamDestroy(s); cudaEventDestroy(a); cudaEventDestroy(b);
}
"""
    out = run_cu(src)
    assert out.status == "ok", out.message
    assert out.stdout == "1 0 32 1024 7 1\n"
    assert "t2c-emu: note: cudaEventElapsedTime" in out.stderr


def test_block_threads_option_gives_same_result(run_cu):
    src = PRELUDE + r"""
__global__ void k(unsigned long long* s) { __syncthreads(); atomicAdd(s, (unsigned long long)blockIdx.x); }
int main() { unsigned long long *d, h; cudaMalloc(&d, 8); cudaMemset(d, 0, 8);
  k<<<100, 64>>>(d); cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost); printf("%llu\n", h); }
"""
    out = run_cu(src, env={"T2C_EMU_BLOCK_THREADS": "2", "PATH": "/usr/bin:/bin"})
    assert out.status == "ok" and out.stdout == f"{64 * 4950}\n", out.message


def test_asan_reports_kernel_line(run_cu):
    src = PRELUDE + r"""
__global__ void k(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) p[i] = 0.0f;
}
int main() { float* d; cudaMalloc(&d, 100 * sizeof(float)); k<<<1, 128>>>(d, 100); cudaDeviceSynchronize(); }
"""
    out = run_cu(src, sanitize=True, name="oob.cu")
    assert out.status == "oob" and out.line == 6, out.message
    assert "heap-buffer-overflow" in out.message and "oob.cu:8" in out.message   # where it was allocated


def test_unsupported_and_build_errors(run_cu, tmp_path):
    out = run_cu("#include <curand_kernel.h>\nint main() {}\n")
    assert out.status == "unsupported" and out.line == 1 and "cuRAND" in out.message
    out = run_cu("int main() {\n  return undefined_thing;\n}\n", name="bad.cu")
    assert out.status == "build_error" and "bad.cu:2" in out.message


def test_timeout_and_failed_exit(run_cu):
    out = run_cu("int main() { for (;;) {} }\n", timeout=1)
    assert out.status == "timeout"
    out = run_cu("#include <cstdio>\nint main() { fprintf(stderr, \"check failed\\n\"); return 3; }\n")
    assert out.status == "failed" and "exit code 3" in out.message and "check failed" in out.message


def test_build_with_extra_c_source_and_cache(tmp_path, emu_cache):
    (tmp_path / "kern.cu").write_text(
        '#include <cuda_runtime.h>\n__global__ void twice(int* p) { p[threadIdx.x] *= 2; }\n'
        'extern "C" void run_twice(int* h, int n) { int* d; cudaMalloc(&d, n * 4);\n'
        '  cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice); twice<<<1, n>>>(d);\n'
        '  cudaMemcpy(h, d, n * 4, cudaMemcpyDeviceToHost); cudaFree(d); }\n')
    (tmp_path / "driver.c").write_text(
        '#include <stdio.h>\nvoid run_twice(int*, int);\n'
        'int main(void) { int h[3] = {1, 2, 3}; run_twice(h, 3); printf("%d %d %d\\n", h[0], h[1], h[2]); return 0; }\n')
    first = build_emu([tmp_path / "kern.cu"], tmp_path / "a.out", sanitize=False,
                      extra_sources=[tmp_path / "driver.c"], cache_dir=emu_cache)
    assert first.ok, first.log
    second = build_emu([tmp_path / "kern.cu"], tmp_path / "b.out", sanitize=False,
                       extra_sources=[tmp_path / "driver.c"], cache_dir=emu_cache)
    assert second.ok and second.cached
    import subprocess
    assert subprocess.run([str(second.exe)], capture_output=True, text=True).stdout == "2 4 6\n"


def test_local_header_with_kernels_is_rewritten(run_cu, tmp_path):
    (tmp_path / "kern.cuh").write_text(
        "#pragma once\n__device__ int sq(int x) { return x * x; }\n"
        "__global__ void k(int* p) { __shared__ int s[32]; s[threadIdx.x] = sq(threadIdx.x);\n"
        "  __syncthreads(); p[threadIdx.x] = s[31 - threadIdx.x]; }\n")
    src = PRELUDE + '#include "kern.cuh"\nint main() { int* d, h[32]; cudaMalloc(&d, sizeof h); k<<<1, 32>>>(d);\n' \
                    '  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost); printf("%d %d\\n", h[0], h[31]); }\n'
    out = run_cu(src)
    assert out.status == "ok" and out.stdout == "961 0\n", out.message


def test_every_math_function_a_spec_may_call_runs_in_float_and_double(run_cu):
    """The prose frontend calls each function of its table in the float form (`log1pf`)
    or the double form (`log1p`), and the classification macros on both: the runtime has
    them all, in device code, with the C library's values."""
    from t2c.frontends.prose.compile import CLASSIFIERS, MATH
    calls = []
    for f, arity in sorted(MATH.items()):
        for suffix, t in (("f", "float"), ("", "double")):
            args = ", ".join(f"({t}) x[{k}]" for k in range(arity))
            calls.append(f"o[{len(calls)}] = {f}{suffix}({args});")
    for f in CLASSIFIERS:
        for value in ("INFINITY", "-INFINITY", "NAN", "x[0]", "(double) NAN"):
            calls.append(f"o[{len(calls)}] = {f}({value}) != 0;")
    n = len(calls)
    src = PRELUDE + "#include <cmath>\n" + f"""
__global__ void k(const float* x, double* o) {{
    {chr(10).join(calls)}
}}
int main() {{
    float hx[2] = {{0.375f, 0.625f}}, *x; double h[{n}], *o;
    cudaMalloc(&x, sizeof hx); cudaMalloc(&o, sizeof h);
    cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
    k<<<1, 1>>>(x, o);
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < {n}; ++i) printf("%.6g\\n", h[i]);
}}
"""
    out = run_cu(src)
    assert out.status == "ok", out.message
    got = [float(v) for v in out.stdout.split()]
    import math
    x = (0.375, 0.625)
    want = []
    py = {"log1p": math.log1p, "expm1": math.expm1, "erfc": math.erfc, "copysign": math.copysign,
          "fmod": math.fmod, "round": lambda v: math.floor(v + 0.5), "trunc": math.trunc,
          "hypot": math.hypot, "atan2": math.atan2, "cbrt": lambda v: v ** (1 / 3),
          "exp2": lambda v: 2 ** v, "pow": math.pow}
    for f, arity in sorted(MATH.items()):
        fn = py.get(f) or getattr(math, f)
        want += [fn(*x[:arity])] * 2
    want += [0, 0, 1, 0, 1] + [1, 1, 0, 0, 0] + [0, 0, 0, 1, 0]     # isnan, isinf, isfinite
    assert len(got) == len(want)
    for name, g, w in zip([c.split("=")[1] for c in calls], got, want):
        assert abs(g - w) <= 1e-5 * max(1.0, abs(w)), (name, g, w)
