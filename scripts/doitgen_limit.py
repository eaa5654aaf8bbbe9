"""What doitgen's product costs at LARGE when cuBLAS does it: A (NR*NQ x NP) times C4 (NP x NP) in
double, out of place and copied back (doitgen writes A in place), L2 evicted before every call
(a 256 MiB fill, as the bench rung does), median of ROUNDS calls timed with CUDA events.  Prints
the time, the rate, and the fraction of 4.25 TB/s that doitgen's minimal traffic (A read and
written once, C4 read once) would reach at that time.

    python3 scripts/doitgen_limit.py            # NR NQ NP = 140 150 160 (LARGE)
"""
import os
import sys

import torch

nr, nq, np_ = (int(v) for v in sys.argv[1:4]) if len(sys.argv) > 3 else (140, 150, 160)
rounds = int(os.environ.get("ROUNDS", "50"))
dev = torch.device("cuda")
A = torch.rand(nr * nq, np_, dtype=torch.float64, device=dev)
C4 = torch.rand(np_, np_, dtype=torch.float64, device=dev)
out = torch.empty_like(A)
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
minimal = 8.0 * (2 * nr * nq * np_ + np_ * np_)
flops = 2.0 * nr * nq * np_ * np_


def timed(call):
    for _ in range(5):
        call()
    ms = []
    for _ in range(rounds):
        flush.fill_(1)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    ms.sort()
    return ms[len(ms) // 2], ms[len(ms) // 5], ms[4 * len(ms) // 5]


print(f"doitgen {nr} x {nq} x {np_}: {flops / 1e9:.3f} GFLOP, minimal traffic {minimal / 1e6:.1f} MB; "
      f"60% of 4.25 TB/s would take {minimal / 2.55e12 * 1e6:.1f} us")
for name, call in (("cuBLAS product, out of place", lambda: torch.matmul(A, C4, out=out)),
                   ("cuBLAS product + copy back into A", lambda: (torch.matmul(A, C4, out=out), A.copy_(out))),
                   ("copy of A alone (read + write)", lambda: out.copy_(A))):
    med, lo, hi = timed(call)
    print(f"{name:36s} {med * 1e3:8.2f} us (p20 {lo * 1e3:.2f} p80 {hi * 1e3:.2f})  {flops / med / 1e9:6.2f} TF/s  "
          f"{100 * minimal / (med * 1e-3) / 4.25e12:5.1f}% of 4.25 TB/s on the minimal traffic")
