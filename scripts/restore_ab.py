"""The bench rung's inputs restored from host memory against device copies, side by side.

    source scripts/gpu_env.sh; python3 scripts/restore_ab.py [KERNEL ...]   on a GPU machine
    env: DATASET (LARGE), ROUNDS (3), SEED (20261130), JOBS (8), T2C_VERIFY_BENCH_REPS (20)

Each kernel's default poly candidate (default: the whole corpus) is built and timed in the
harness's bench mode on its suite's full case, the inputs copied back before each call from host
memory (T2C_BENCH_RESTORE=host, the bench rung before report 13) and from device copies (now),
alternating within each round.  Prints each kernel's median kernel time of both (spread of the
round medians) and their ratio.  The candidates are not verified here (the batch does that).
A benchmark script, not a test: it prints figures.
"""
import concurrent.futures as cf
import os
import statistics
import sys
from pathlib import Path

from t2c import config
from t2c.frontends.c import read_c
from t2c.generators.poly import generate
from t2c.verify.compare import poison
from t2c.verify.harness import build_candidate, run_candidate
from t2c.verify.reference import array_shape
from t2c.verify.synth import build_suite

ROOT = Path(__file__).resolve().parent.parent
MODES = ("host", "device")


def prepare(job):
    """A kernel's default candidate built, and its full case (the reference runs here)."""
    path, dataset, seed = job
    k = read_c(path)
    case = build_suite(k, seed, dataset=dataset, backend="gpu", points=0).of("full")[0]
    return path, build_candidate(k, generate(k), "gpu"), case


def main(names: list[str]) -> int:
    dataset, rounds = os.environ.get("DATASET", "LARGE").upper(), int(os.environ.get("ROUNDS", "3"))
    seed, reps = int(os.environ.get("SEED", "20261130")), config.load().verify_bench_reps
    paths = sorted(ROOT.glob("corpora/polybench/**/*.c"))
    paths = [p for p in paths if p.parent.name == p.stem and (not names or p.stem in names)]
    print(f"{'kernel':16s} {'from host ms':>13s} {'min-max':>17s} {'from device ms':>15s} {'min-max':>17s} {'ratio':>6s}"
          f"   ({rounds} rounds of {reps} reps, {dataset}, seed {seed})", flush=True)
    with cf.ProcessPoolExecutor(int(os.environ.get("JOBS", "8"))) as pool:
        prepared = list(pool.map(prepare, [(p, dataset, seed) for p in paths]))
    for path, build, case in prepared:             # timed one at a time, nothing else running
        k = read_c(path)
        start = {a.name: poison(a.dtype, array_shape(a, case.sizes)) for a in k.arrays if a.intent == "out"}
        medians = {m: [] for m in MODES}
        for _ in range(rounds):
            for m in MODES:
                r = run_candidate(k, build, case.sizes, case.inputs, mode="bench", reps=reps, poison=start,
                                  timeout=max(config.load().timeout, 400 * case.ref_seconds),
                                  env={"T2C_BENCH_RESTORE": m})
                if r.process.ok and r.kernel_ms:
                    medians[m].append(statistics.median(r.kernel_ms))
        if not all(medians.values()):
            print(f"{path.stem:16s} failed", flush=True)
            continue
        ms = {m: statistics.median(v) for m, v in medians.items()}
        print(f"{path.stem:16s} " + " ".join(f"{ms[m]:13.4f} {min(medians[m]):8.4f}-{max(medians[m]):<8.4f}"
                                             for m in MODES) + f" {ms['host'] / ms['device']:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
