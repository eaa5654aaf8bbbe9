"""The gemm family's t2c candidates and cuBLAS DGEMM at the same shapes, side by side in rounds.

    source scripts/gpu_env.sh; python3 scripts/family_vs_cublas.py [KERNEL ...]   on a GPU machine
    env: ROUNDS (5), SEED (20261130), T2C_VERIFY_BENCH_REPS (20), OPTIONS (the inside of
         dict(...) for `PolyOptions.load`, for every candidate; empty: the defaults)

Issue #7's yardstick, in one process: each round times every kernel's default poly candidate in
the harness's bench mode (LARGE, the suite's full case, inputs restored and L2 evicted before each
call) and then cuBLAS DGEMM at the kernel's shapes (scripts/cublas_rates.py, L2 evicted before
each call), so both see the same machine at the same time.  Prints per kernel the median over
rounds of each round's median time and of the fraction of cuBLAS's rate (min-max over rounds).
The candidates are not verified here (the batch and scripts/options_ab.py do that).  A benchmark
script, not a test: it prints figures.
"""
import concurrent.futures as cf
import os
import statistics
import sys
from pathlib import Path

from cublas_rates import KERNELS, dgemm_ms
from t2c import config
from t2c.frontends.c import read_c
from t2c.generators.poly import PolyOptions, generate
from t2c.verify.compare import poison
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.reference import array_shape
from t2c.verify.synth import build_suite

ROOT = Path(__file__).resolve().parent.parent


def main(names: list[str]) -> int:
    rounds, seed = int(os.environ.get("ROUNDS", "5")), int(os.environ.get("SEED", "20261130"))
    reps = config.load().verify_bench_reps
    options = PolyOptions.load(eval(f"dict({os.environ.get('OPTIONS', '')})"), "OPTIONS")
    def prepare(name):
        k = read_c(next(ROOT.glob(f"corpora/polybench/**/{name}/{name}.c")))
        case = build_suite(k, seed, dataset="LARGE", backend="gpu", points=0).of("full")[0]
        start = {a.name: poison(a.dtype, array_shape(a, case.sizes)) for a in k.arrays if a.intent == "out"}
        return name, (k, build_candidate(k, generate(k, options), "gpu"), case, start)
    with cf.ThreadPoolExecutor(8) as pool:
        runs = dict(pool.map(prepare, names or list(KERNELS)))
    ours, theirs = {n: [] for n in runs}, {n: [] for n in runs}
    for _ in range(rounds):
        for name, (k, build, case, start) in runs.items():
            r = run_candidate(k, build, case.sizes, case.inputs, mode="bench", reps=reps, poison=start,
                              timeout=max(config.load().timeout, 400 * case.ref_seconds))
            if r.process.ok and r.kernel_ms:
                ours[name].append(statistics.median(r.kernel_ms))
                theirs[name].append(sum(statistics.median(dgemm_ms(*s, cold=True)) for s in KERNELS[name][1]))
    print(f"{'kernel':8s} {'t2c ms':>8s} {'min-max':>15s} {'cuBLAS ms':>9s} {'min-max':>15s} {'TF/s':>6s} "
          f"{'of cuBLAS':>9s} {'min-max':>9s}   ({rounds} rounds, {reps} reps each, LARGE, L2 evicted, "
          f"options: {os.environ.get('OPTIONS') or 'default'})")
    for name in runs:
        if not ours[name]:
            print(f"{name:8s} failed")
            continue
        flops, shapes = KERNELS[name]
        dgemm = sum(2 * m * n * kk for m, n, kk in shapes)
        fractions = [(flops / a) / (dgemm / b) for a, b in zip(ours[name], theirs[name])]
        med = statistics.median
        print(f"{name:8s} {med(ours[name]):8.4f} {min(ours[name]):7.4f}-{max(ours[name]):<7.4f} {med(theirs[name]):9.4f} "
              f"{min(theirs[name]):7.4f}-{max(theirs[name]):<7.4f} {flops / med(ours[name]) / 1e9:6.2f} "
              f"{med(fractions):9.0%} {min(fractions):4.0%}-{max(fractions):<4.0%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
