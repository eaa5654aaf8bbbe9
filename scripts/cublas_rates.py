"""cuBLAS DGEMM's rate at the shapes of PolyBench's matrix-product kernels (LARGE), through torch.

    python3 scripts/cublas_rates.py [T2C_TABLE]     on a GPU machine with torch (the H200 has it)

The yardstick of issue #7's gemm-family target: a kernel's rate (2 flops per multiply-add of its
products, counted below) against DGEMM's rate at the same shapes (the kernel's products as full
DGEMMs: 2mnk flops each, their times added; a triangular kernel does fewer flops than its
DGEMMs, so its fraction compares rates, not times).  Each DGEMM: 10 warm-up calls, then the median of 50 timed with CUDA
events (p20-p80 printed), twice: back to back (operands warm in L2) and with L2 evicted before
each call by writing 256 MiB, as t2c's bench rung does before each of its calls (verify/harness.py
`t2c_flush_l2`).  The fraction of cuBLAS's rate is given against both; "same conditions" is
the one against the evicted runs.  With T2C_TABLE (a `table.md` of scripts/gpu_polybench.sh) it also
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


def dgemm_ms(m: int, n: int, k: int, cold: bool = False) -> list[float]:
    a = torch.rand(m, k, dtype=torch.float64, device="cuda")
    b = torch.rand(k, n, dtype=torch.float64, device="cuda")
    c = torch.empty(m, n, dtype=torch.float64, device="cuda")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda") if cold else None
    for _ in range(10):
        torch.matmul(a, b, out=c)
    times = []
    for _ in range(50):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if cold:
            flush.zero_()
            torch.cuda.synchronize()
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
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, cuBLAS DGEMM (torch.matmul, float64); "
          "warm: back to back, cold: L2 evicted before each call (as t2c's bench)")
    print(f"{'kernel':8s} {'GFLOP':>7s} {'DGEMM GFLOP':>11s} {'warm ms':>8s} {'p20-p80':>17s} {'TF/s':>6s}"
          f" {'cold ms':>8s} {'p20-p80':>17s} {'TF/s':>6s}"
          + (f" {'t2c ms':>8s} {'TF/s':>6s} {'of warm':>7s} {'of cold':>7s}" if ours else ""))
    for name, (flops, shapes) in KERNELS.items():
        line, rates = f"{name:8s} {flops / 1e9:7.3f} {sum(2 * m * n * k for m, n, k in shapes) / 1e9:11.3f}", []
        for cold in (False, True):
            runs = [dgemm_ms(*s, cold=cold) for s in shapes]
            q = lambda p: sum(statistics.quantiles(r, n=10)[p] for r in runs)
            ms = sum(statistics.median(r) for r in runs)
            rates.append(sum(2 * m * n * k for m, n, k in shapes) / ms / 1e9)
            line += f" {ms:8.4f} {q(1):8.4f}-{q(7):<8.4f} {rates[-1]:6.2f}"
        if name in ours:
            rate = flops / ours[name] / 1e9
            line += f" {ours[name]:8.4g} {rate:6.2f} {rate / rates[0]:7.0%} {rate / rates[1]:7.0%}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
