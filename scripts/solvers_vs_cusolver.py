"""PolyBench's solvers as t2c makes them and cuSOLVER at the same sizes, side by side in rounds.

    source scripts/gpu_env.sh; python3 scripts/solvers_vs_cusolver.py [KERNEL ...]   on a GPU machine
    env: ROUNDS (5), SEED (20261130), T2C_VERIFY_BENCH_REPS (20), DATASET (LARGE)

Issue #37's yardstick for the factorizations (item 4), in one process: each round times every
kernel's default poly candidate in the harness's bench mode (inputs restored on the device and L2
evicted before each call) and then the cuSOLVER routine that computes the same factorization,
called through ctypes from the libcusolver torch ships with: cholesky -> cusolverDnDpotrf,
lu and ludcmp -> cusolverDnDgetrf without pivoting (a NULL pivot array: the references do not
pivot), gramschmidt -> cusolverDnDgeqrf (Householder QR of the same m x n matrix). Each library
call gets a fresh copy of its input and L2 evicted (256 MiB written) before its start event.
Rates count each algorithm's own flops (potrf n^3/3, getrf 2n^3/3, MGS 2mn^2, geqrf
2mn^2 - 2n^3/3 for m >= n, else 2nm^2 - 2m^3/3); "of cuSOLVER" is t2c's rate over the library's.
The candidates are not verified here (the batch does that). A benchmark script: it prints figures.
"""
import ctypes
import glob
import os
import statistics
import sys
from pathlib import Path

import torch

from t2c import config
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.verify.compare import poison
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.reference import array_shape
from t2c.verify.synth import build_suite

ROOT = Path(__file__).resolve().parent.parent


def cusolver() -> ctypes.CDLL:
    """libcusolver from torch's CUDA libraries (the nvidia-* wheels or torch/lib)."""
    roots = [Path(p) for p in sys.path if p and Path(p).is_dir()] + [Path(torch.__file__).parent / "lib"]
    for root in roots:
        for lib in sorted(glob.glob(str(root / "**" / "libcusolver.so*"), recursive=True)):
            return ctypes.CDLL(lib)
    raise SystemExit("libcusolver not found beside torch")


def flops(name: str, m: int, n: int) -> float:
    return {"cholesky": n ** 3 / 3, "lu": 2 * n ** 3 / 3, "ludcmp": 2 * n ** 3 / 3 + 4 * n * n,
            "gramschmidt": 2 * m * n * n}[name]


def library_flops(name: str, m: int, n: int) -> float:
    if name != "gramschmidt":
        return flops(name, m, n)
    big, small = max(m, n), min(m, n)
    return 2 * big * small * small - 2 * small ** 3 / 3


class Library:
    """The cuSOLVER routine for a kernel, on a column-major matrix of PolyBench's sizes."""
    def __init__(self, lib, name: str, m: int, n: int):
        self.lib, self.name, self.m, self.n = lib, name, m, n
        self.handle = ctypes.c_void_p()
        assert lib.cusolverDnCreate(ctypes.byref(self.handle)) == 0
        lib.cusolverDnSetStream(self.handle, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
        g = torch.Generator(device="cuda").manual_seed(1)
        rows = m if name == "gramschmidt" else n
        a = torch.rand(rows, n, dtype=torch.float64, device="cuda", generator=g)
        if name == "cholesky":
            a = a @ a.T / n + torch.eye(n, dtype=torch.float64, device="cuda")
        elif name != "gramschmidt":
            a = a + n * torch.eye(n, dtype=torch.float64, device="cuda")    # no pivoting needed
        self.source, self.a = a.T.contiguous(), torch.empty_like(a.T.contiguous())  # column-major
        self.lda, self.rows = rows, rows
        self.info = torch.zeros(1, dtype=torch.int32, device="cuda")
        self.tau = torch.empty(min(rows, n), dtype=torch.float64, device="cuda")
        lwork = ctypes.c_int()
        p = ctypes.c_void_p(self.a.data_ptr())
        if name == "cholesky":
            assert lib.cusolverDnDpotrf_bufferSize(self.handle, 0, n, p, n, ctypes.byref(lwork)) == 0
        elif name == "gramschmidt":
            assert lib.cusolverDnDgeqrf_bufferSize(self.handle, rows, n, p, rows, ctypes.byref(lwork)) == 0
        else:
            assert lib.cusolverDnDgetrf_bufferSize(self.handle, n, n, p, n, ctypes.byref(lwork)) == 0
        self.work = torch.empty(max(lwork.value, 1), dtype=torch.float64, device="cuda")
        self.flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def call(self) -> None:
        p, w, info = (ctypes.c_void_p(t.data_ptr()) for t in (self.a, self.work, self.info))
        lw = self.work.numel()
        if self.name == "cholesky":
            status = self.lib.cusolverDnDpotrf(self.handle, 0, self.n, p, self.n, w, lw, info)
        elif self.name == "gramschmidt":
            status = self.lib.cusolverDnDgeqrf(self.handle, self.rows, self.n, p, self.rows,
                                               ctypes.c_void_p(self.tau.data_ptr()), w, lw, info)
        else:
            status = self.lib.cusolverDnDgetrf(self.handle, self.n, self.n, p, self.n, w, None, info)
        assert status == 0, f"cuSOLVER status {status}"

    def times(self, reps: int) -> list[float]:
        self.a.copy_(self.source)
        self.call()                                                        # warm-up
        out = []
        for _ in range(reps):
            self.a.copy_(self.source)
            self.flush.zero_()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            self.call()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end))
        assert int(self.info.item()) == 0, f"{self.name}: cuSOLVER info {int(self.info.item())}"
        return out


def main(names: list[str]) -> int:
    rounds, seed = int(os.environ.get("ROUNDS", "5")), int(os.environ.get("SEED", "20261130"))
    dataset, reps = os.environ.get("DATASET", "LARGE"), config.load().verify_bench_reps
    lib, runs = cusolver(), {}
    for name in names or ["cholesky", "lu", "ludcmp", "gramschmidt"]:
        k = read_c(next(ROOT.glob(f"corpora/polybench/**/{name}/{name}.c")))
        case = build_suite(k, seed, dataset=dataset, backend="gpu", points=0).of("full")[0]
        start = {a.name: poison(a.dtype, array_shape(a, case.sizes)) for a in k.arrays if a.intent == "out"}
        m, n = case.sizes.get("m", case.sizes["n"]), case.sizes["n"]
        runs[name] = (k, build_candidate(k, generate(k), "gpu"), case, start, Library(lib, name, m, n), m, n)
    ours, theirs = {n: [] for n in runs}, {n: [] for n in runs}
    for _ in range(rounds):
        for name, (k, build, case, start, library, m, n) in runs.items():
            r = run_candidate(k, build, case.sizes, case.inputs, mode="bench", reps=reps, poison=start,
                              timeout=max(config.load().timeout, 400 * case.ref_seconds))
            if r.process.ok and r.kernel_ms:
                ours[name].append(statistics.median(r.kernel_ms))
            theirs[name].append(statistics.median(library.times(reps)))
    print(f"{torch.cuda.get_device_name()}; {dataset}; {rounds} rounds of {reps} reps; medians of round medians, "
          "min-max over rounds; L2 evicted before every call")
    print(f"{'kernel':12s} {'size':>10s} {'t2c ms':>9s} {'min-max':>17s} {'TF/s':>6s} {'cuSOLVER ms':>11s} "
          f"{'min-max':>17s} {'TF/s':>6s} {'of cuSOLVER':>11s}")
    med = statistics.median
    for name, (*_, m, n) in runs.items():
        if not ours[name]:
            print(f"{name:12s} failed")
            continue
        a, b = med(ours[name]), med(theirs[name])
        ra, rb = flops(name, m, n) / a / 1e9, library_flops(name, m, n) / b / 1e9
        print(f"{name:12s} {f'{m}x{n}':>10s} {a:9.4f} {min(ours[name]):8.4f}-{max(ours[name]):<8.4f} {ra:6.3f} "
              f"{b:11.4f} {min(theirs[name]):8.4f}-{max(theirs[name]):<8.4f} {rb:6.3f} {ra / rb:11.1%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
