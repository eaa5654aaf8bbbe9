"""cuBLAS DGEMM's rate at the shapes of PolyBench's matrix-product kernels (LARGE), through torch.

    python3 scripts/cublas_rates.py [T2C_TABLE]     on a GPU machine with torch (the H200 has it)

The yardstick of issue #7's gemm-family target: a kernel's rate (2 flops per multiply-add of its
products, counted below) against DGEMM's rate at the same shapes (the kernel's products as full
DGEMMs: 2mnk flops each, their times added; a triangular kernel does fewer flops than its
DGEMMs, so its fraction compares rates, not times).  Each DGEMM: 10 warm-up calls, then the median of 50 timed with CUDA
events (p20-p80 printed).  With T2C_TABLE (a `table.md` of scripts/gpu_polybench.sh) it also
prints each kernel's rate and its fraction of cuBLAS's.  A benchmark script: it prints figures.
"""
import re
import statistics
import sys

import torch

#: kernel -> (flops of its products at LARGE, the (m, n, k) of DGEMMs of the same shapes)
KERNELS = {
    "gemm": (2 * 1000 * 1100 * 1200, [(1000, 1100, 1200)]),
    "2mm": (2 * 800 * 900 * 1100 + 2 * 800 * 1200 * 900, [(800, 900, 1100), (800, 1200, 900)]),
    "3mm": (2 * 800 * 900 * 1000 + 2 * 900 * 1100 * 1200 + 2 * 800 * 1100 * 900,
            [(800, 900, 1000), (900, 1100, 1200), (800, 1100, 900)]),
    "syrk": (1200 * 1201 // 2 * 1000 * 2, [(1200, 1200, 1000)]),        # the lower triangle's products
    "syr2k": (1200 * 1201 // 2 * 1000 * 4, [(1200, 1200, 1000)] * 2),
    "symm": (2 * 1000 * 1200 * 1000, [(1000, 1200, 1000)]),             # C += alpha * A(sym) * B
    "trmm": (1000 * 999 // 2 * 1200 * 2, [(1000, 1200, 1000)]),          # strictly triangular A^T * B
}


def dgemm_ms(m: int, n: int, k: int) -> list[float]:
    a = torch.rand(m, k, dtype=torch.float64, device="cuda")
    b = torch.rand(k, n, dtype=torch.float64, device="cuda")
    c = torch.empty(m, n, dtype=torch.float64, device="cuda")
    for _ in range(10):
        torch.matmul(a, b, out=c)
    times = []
    for _ in range(50):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b, out=c)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def main(argv: list[str]) -> int:
    ours = {}
    if argv:
        for line in open(argv[0]):
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 3 and cells[1] in KERNELS and re.match(r"[\d.e+-]+", cells[3]):
                ours[cells[1]] = float(cells[3].split()[0])
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, cuBLAS DGEMM (torch.matmul, float64)")
    print(f"{'kernel':8s} {'GFLOP':>7s} {'DGEMM GFLOP':>11s} {'cuBLAS ms':>10s} {'p20-p80':>17s} {'TF/s':>6s}"
          + (f" {'t2c ms':>8s} {'TF/s':>6s} {'of cuBLAS':>9s}" if ours else ""))
    for name, (flops, shapes) in KERNELS.items():
        runs = [dgemm_ms(*s) for s in shapes]
        per = [statistics.median(r) for r in runs]
        q = lambda p: sum(statistics.quantiles(r, n=10)[p] for r in runs)
        ms, dgemm = sum(per), sum(2 * m * n * k for m, n, k in shapes)
        rate = dgemm / ms / 1e9
        line = f"{name:8s} {flops / 1e9:7.3f} {dgemm / 1e9:11.3f} {ms:10.4f} {q(1):8.4f}-{q(7):<8.4f} {rate:6.2f}"
        if name in ours:
            line += f" {ours[name]:8.4g} {flops / ours[name] / 1e9:6.2f} {flops / ours[name] / 1e9 / rate:9.0%}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
