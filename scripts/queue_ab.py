"""Does the CUDA hardware-queue count move a candidate's kernel time?  An A/B on one GPU.

    source scripts/gpu_env.sh; python3 scripts/queue_ab.py [KERNEL ...]
                                 on a GPU machine (default: launch-bound kernels, and gemm)
    env: DATASET (LARGE), ROUNDS (3), T2C_VERIFY_BENCH_REPS (20)

The verify stage's check runs open their CUDA context with CUDA_DEVICE_MAX_CONNECTIONS=1 (a
cheaper start, docs/verification.md); timed runs keep the default.  A two-GPU run that also timed
with one queue gave launch-bound kernels times well below the previous report's (trmm 93 ms
against 209 ms, on another host).  This times each kernel's poly candidate in the bench mode of the
harness on its full case, the default and one queue alternating in each round (same process
setup, same inputs), and prints the medians, their ratio and the spread over rounds.  A benchmark
script, not a test: it prints figures.
"""
import os
import statistics
import sys
from pathlib import Path

from t2c import config
from t2c.frontends.c import read_c
from t2c.generators import generate
from t2c.verify.compare import poison
from t2c.verify.harness import CHECK_ENV, build_candidate, run_candidate
from t2c.verify.reference import array_shape
from t2c.verify.synth import build_suite

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ("trmm", "gramschmidt", "cholesky", "symm", "ludcmp", "seidel-2d", "floyd-warshall", "lu", "gemm")
SETUPS = (("default", {}), ("one queue", CHECK_ENV))


def main(names: list[str]) -> int:
    dataset, rounds = os.environ.get("DATASET", "LARGE"), int(os.environ.get("ROUNDS", "3"))
    reps = config.load().verify_bench_reps
    print(f"{'kernel':15s} {'default ms':>11s} {'one queue ms':>13s} {'ratio':>6s}  spread over {rounds} rounds "
          f"(min-max of the per-round medians; {reps} reps each, {dataset})", flush=True)
    for name in names or KERNELS:
        source = next(ROOT.glob(f"corpora/polybench/**/{name}/{name}.c"), None)
        if source is None:
            print(f"{name}: no such kernel in corpora/polybench", file=sys.stderr)
            return 2
        k = read_c(source)
        build = build_candidate(k, generate(k), "gpu")
        suite = build_suite(k, 7, dataset=dataset, backend="gpu", points=0)
        case = suite.of("full")[0]
        start = {a.name: poison(a.dtype, array_shape(a, case.sizes)) for a in k.arrays if a.intent == "out"}
        medians = {label: [] for label, _ in SETUPS}
        for _ in range(rounds):
            for label, env in SETUPS:
                r = run_candidate(k, build, case.sizes, case.inputs, mode="bench", reps=reps, poison=start,
                                  timeout=max(config.load().timeout, 400 * case.ref_seconds), env=env)
                if not r.process.ok or not r.kernel_ms:
                    print(f"{name}: the {label} run failed: {r.process.describe()}", file=sys.stderr)
                    return 1
                medians[label].append(statistics.median(r.kernel_ms))
        a, b = (statistics.median(medians[label]) for label, _ in SETUPS)
        spread = "; ".join(f"{label} {min(v):.4g}-{max(v):.4g}" for label, v in medians.items())
        print(f"{name:15s} {a:11.4g} {b:13.4g} {b / a:6.2f}  {spread}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
