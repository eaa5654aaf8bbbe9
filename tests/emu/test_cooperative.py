"""Cooperative launches on the emu: cudaLaunchCooperativeKernel, cooperative_groups' grid and
block, the occupancy the device reports, and the checks (races, barrier misuse) across grid.sync()."""
from __future__ import annotations

from .conftest import needs_gxx

pytestmark = needs_gxx

PRELUDE = "#include <cstdio>\n#include <cuda_runtime.h>\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"

# A ring of n values smoothed `steps` times in one launch: each step reads its neighbours' values
# from `a` into `b`, then copies `b` back; grid.sync() orders the phases across blocks.  Host code
# sizes the grid from the queries (occupancy x multiprocessors) and checks against a host loop.
PERSISTENT = PRELUDE + r"""
__global__ void smooth(int n, int steps, double* a, double* b, unsigned long long* seen) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int arrived;
    if (block.thread_rank() == 0) arrived = 0;
    block.sync();
    atomicAdd(&arrived, 1);
    block.sync();
    if (grid.thread_rank() == 0) { seen[0] = grid.size(); seen[1] = grid.num_blocks(); seen[2] = grid.is_valid(); }
    if (block.thread_rank() == 0 && arrived != (int)block.size()) seen[3] = 1;
    for (int t = 0; t < steps; ++t) {
        for (long long i = grid.thread_rank(); i < n; i += grid.size())
            b[i] = (a[(i + n - 1) % n] + a[i] + a[(i + 1) % n]) / 3.0;
        SYNC_BETWEEN_PHASES
        for (long long i = grid.thread_rank(); i < n; i += grid.size())
            a[i] = b[i];
        cg::sync(grid);
    }
}
int main() {
    const int n = 3000, steps = 4, block = 64;
    static double h[n], r[n], tmp[n];
    for (int i = 0; i < n; ++i) h[i] = r[i] = (i * 37) % 11;
    for (int t = 0; t < steps; ++t) {
        for (int i = 0; i < n; ++i) tmp[i] = (r[(i + n - 1) % n] + r[i] + r[(i + 1) % n]) / 3.0;
        for (int i = 0; i < n; ++i) r[i] = tmp[i];
    }
    double *a, *b; unsigned long long *seen, hs[4];
    cudaMalloc(&a, sizeof h); cudaMalloc(&b, sizeof h); cudaMalloc(&seen, sizeof hs);
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(seen, 0, sizeof hs);
    int sms = 0, coop = 0, per_sm = 0;
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, smooth, block, 0);
    int nn = n, ss = steps;
    void* args[] = {&nn, &ss, &a, &b, &seen};
    cudaError_t e = cudaLaunchCooperativeKernel((void*)smooth, dim3(sms * per_sm), dim3(block), args, 0, 0);
    cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(hs, seen, sizeof hs, cudaMemcpyDeviceToHost);
    int bad = 0; double sum = 0;
    for (int i = 0; i < n; ++i) { bad += h[i] != r[i]; sum += h[i] * (i + 1); }
    printf("sms %d (props %d) coop %d per_sm %d: %s\n", sms, p.multiProcessorCount, coop, per_sm, cudaGetErrorString(e));
    printf("size %llu blocks %llu valid %llu block-sync-bad %llu\n", hs[0], hs[1], hs[2], hs[3]);
    printf("bad %d sum %.17g\n", bad, sum);
}
"""


def test_a_persistent_kernel_sized_from_the_queries_is_correct_under_every_check(run_cu):
    """All steps in one cooperative launch: the same correct result under three block and thread
    orders, and no race for ThreadSanitizer, since grid.sync() orders the phases between blocks."""
    out = run_cu(PERSISTENT.replace("SYNC_BETWEEN_PHASES", "grid.sync();"), seeds=3, race_check=True)
    assert out.status == "ok", out.message
    lines = out.stdout.splitlines()
    assert lines[0] == "sms 2 (props 2) coop 1 per_sm 32: no error"      # 2048 threads / 64 per block
    assert lines[1] == "size 4096 blocks 64 valid 1 block-sync-bad 0"
    assert lines[2].startswith("bad 0 ")


def test_a_missing_grid_sync_is_a_race_at_its_line(run_cu):
    """Without the grid.sync() between the phases, a block copies b back into a while others still
    read a: the result depends on the order of blocks, and the race check names the lines."""
    out = run_cu(PERSISTENT.replace("SYNC_BETWEEN_PHASES", ""), seeds=3, race_check=True)
    assert out.status == "race", out.message
    assert out.file.endswith("prog.cu") and out.line in (18, 21), out.message   # the read of a, the write of a


def test_a_cooperative_grid_larger_than_the_device_holds_does_not_start(run_cu):
    """Blocks per multiprocessor (threads, block slots, dynamic shared memory) x multiprocessors is
    the limit, as on a GPU: one block more fails with cudaErrorCooperativeLaunchTooLarge and the
    kernel does not run; exactly the limit runs."""
    src = PRELUDE + r"""
__global__ void count(int* c) { cg::this_grid().sync(); if (threadIdx.x == 0) atomicAdd(c, 1); }
int main() {
    int *c, h, sms;
    cudaMalloc(&c, sizeof h);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (int smem : {0, 100 * 1024}) {
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count, 256, smem);
        cudaFuncSetAttribute(count, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        for (int extra : {1, 0}) {
            cudaMemset(c, 0, sizeof h);
            void* args[] = {&c};
            cudaError_t e = cudaLaunchCooperativeKernel(count, sms * per_sm + extra, 256, args, smem);
            cudaError_t last = cudaGetLastError();
            cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost);
            printf("%d %d+%d %s %s %d\n", per_sm, sms * per_sm, extra, cudaGetErrorName(e), cudaGetErrorName(last), h);
        }
    }
}
"""
    out = run_cu(src)
    assert out.status == "ok", out.message
    assert out.stdout.splitlines() == [
        "8 16+1 cudaErrorCooperativeLaunchTooLarge cudaErrorCooperativeLaunchTooLarge 0",   # 2048 / 256 threads
        "8 16+0 cudaSuccess cudaSuccess 16",
        "2 4+1 cudaErrorCooperativeLaunchTooLarge cudaErrorCooperativeLaunchTooLarge 0",    # 228 KiB / 101 KiB
        "2 4+0 cudaSuccess cudaSuccess 4",
    ]
    assert "exceeds the 8 x 2 blocks of 256 threads" in out.stderr


def test_grid_sync_in_a_plain_launch_is_a_finding(run_cu):
    """A <<<>>> launch does not keep its blocks resident together, so a grid barrier in it is
    undefined on a GPU: reported at the sync's line; is_valid() says so beforehand."""
    src = PRELUDE + r"""
__global__ void valid(int* v) { *v = cg::this_grid().is_valid(); }
__global__ void k(int* v) {
    cg::grid_group g = cg::this_grid();
    g.sync();
}
int main() {
    int *v, h = 7; cudaMalloc(&v, sizeof h);
    valid<<<1, 1>>>(v);
    cudaMemcpy(&h, v, sizeof h, cudaMemcpyDeviceToHost);
    printf("valid %d\n", h);
    fflush(stdout);
    k<<<2, 32>>>(v);
}
"""
    out = run_cu(src)
    assert out.status == "divergent_barrier" and out.line == 9, out.message
    assert "not launched with cudaLaunchCooperativeKernel" in out.message and "kernel k" in out.message
    assert out.stdout == "valid 0\n"


def test_a_block_that_leaves_before_grid_sync_is_a_divergent_barrier(run_cu):
    """Every thread of the grid must reach grid.sync(): a block that returns first is reported at
    the line the other blocks wait at; so is a thread that leaves while its block waits."""
    src = PRELUDE + r"""
__global__ void k(int which) {
    if (which == 0 && blockIdx.x == 1) return;
    if (which == 1 && blockIdx.x == 1 && threadIdx.x == 3) return;
    cg::this_grid().sync();
}
int main(int argc, char** argv) {
    int which = argv[1][0] - '0';
    void* args[] = {&which};
    cudaLaunchCooperativeKernel((void*)k, 4, 32, args);
}
"""
    out = run_cu(src, args=["0"])
    assert out.status == "divergent_barrier" and out.line == 9, out.message
    assert "waited for by 3 of the 4 blocks" in out.message and "block (1,0,0) exited" in out.message
    out = run_cu(src, args=["1"])
    assert out.status == "divergent_barrier" and out.line == 9, out.message
    assert "thread (3,0,0) exited" in out.message or "thread (3,0,0) of this block has exited" in out.message


def test_launch_kernel_ex_with_the_cooperative_attribute_is_a_cooperative_launch(run_cu):
    src = PRELUDE + r"""
__global__ void k(int* o) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *o = 1;
    cg::this_grid().sync();
    if (blockIdx.x == 1 && threadIdx.x == 0) o[1] = *o + 1;
}
int main() {
    int *d, h[2];
    cudaMalloc(&d, sizeof h);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(2); c.blockDim = dim3(32); c.attrs = attr; c.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&c, k, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d %s\n", h[0], h[1], cudaGetErrorString(e));
}
"""
    out = run_cu(src, seeds=3)
    assert out.status == "ok", out.message
    assert out.stdout == "1 2 no error\n"
