#!/usr/bin/env python3
"""Benchmark the emu backend: a 512x512 tiled double matmul (16x16 tiles, two
__syncthreads per tile) built with g++ and run on one core; prints the figures.

Target: the run (not the build) takes at most 5 s.  This is a benchmark, not a test:
it prints numbers and always exits 0 unless the program itself fails.

    .venv/bin/python scripts/bench_emu.py [--n 512] [--repeat 3] [--seed 0]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from t2c.runtime.emu import build_emu  # noqa: E402
from t2c.runtime.process import run_process  # noqa: E402

MATMUL = r"""
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define TILE 16

__global__ void matmul(const double* A, const double* B, double* C, int n) {
    __shared__ double As[TILE][TILE];
    __shared__ double Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    double acc = 0.0;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 512;
    size_t bytes = (size_t)n * n * sizeof(double);
    double *hA = (double*)malloc(bytes), *hB = (double*)malloc(bytes), *hC = (double*)malloc(bytes);
    for (int i = 0; i < n * n; ++i) { hA[i] = (i % 7) * 0.5; hB[i] = (i % 5) * 0.25; }
    double *A, *B, *C;
    cudaMalloc(&A, bytes); cudaMalloc(&B, bytes); cudaMalloc(&C, bytes);
    cudaMemcpy(A, hA, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(B, hB, bytes, cudaMemcpyHostToDevice);
    matmul<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(A, B, C, n);
    cudaMemcpy(hC, C, bytes, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < n * n; ++i) sum += hC[i];
    printf("checksum %.6e\n", sum);
    return 0;
}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0, help="T2C_EMU_SEED (0: natural order)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="t2c-bench-") as tmp:
        src = Path(tmp) / "matmul_tiled.cu"
        src.write_text(MATMUL)
        t0 = time.monotonic()
        build = build_emu([src], Path(tmp) / "matmul", sanitize=False)
        build_s = time.monotonic() - t0
        if not build.ok:
            print(build.log, file=sys.stderr)
            return 1
        env = dict(os.environ, T2C_EMU_SEED=str(args.seed), T2C_EMU_BLOCK_THREADS="1")
        argv = ["taskset", "-c", "0", str(build.exe), str(args.n)] if _has_taskset() else [str(build.exe), str(args.n)]
        times = []
        for _ in range(args.repeat):
            r = run_process(argv, env=env, timeout=300)
            if not r.ok:
                print(f"run failed: {r.describe()}\n{r.stderr}", file=sys.stderr)
                return 1
            times.append(r.seconds)
        n = args.n
        threads = n * n
        barriers = threads * 2 * (n // 16)
        best = min(times)
        print(f"emu tiled double matmul {n}x{n} (16x16 tiles), one core, seed {args.seed}")
        print(f"  build {build_s:.2f} s{' (cached)' if build.cached else ''}")
        print(f"  run   best {best:.3f} s   all {' '.join(f'{t:.3f}' for t in times)}   target <= 5 s")
        print(f"  {threads} CUDA threads, {barriers / 1e6:.1f} M barrier arrivals, "
              f"{best * 1e9 / barriers:.1f} ns per arrival (incl. the arithmetic)")
        print(f"  {2 * n ** 3 / best / 1e9:.2f} GFLOP/s;  {r.stdout.strip()}")
    return 0


def _has_taskset() -> bool:
    from shutil import which
    return which("taskset") is not None


if __name__ == "__main__":
    sys.exit(main())
