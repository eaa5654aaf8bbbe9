#!/usr/bin/env python3
"""Verify the hand-written correct candidates (tests/candidates/*.cu) under many secret seeds.

    python scripts/candidates_gpu.py [--backend gpu|emu] [--seeds 20] [--dataset LARGE] [-k atax]

A correct candidate must be accepted under every seed (no false rejects).  Prints
one line per (candidate, seed), with the bench figures of the first seed on gpu,
and a summary `N passed, M failed`; exits 1 when any seed rejected a candidate.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from t2c.frontends.c import read_c  # noqa: E402
from t2c.verify.ladder import ladder  # noqa: E402
from t2c.engine.batch import listed  # noqa: E402


def kernel_source(candidate: Path) -> Path:
    """tests/candidates/kernel_floyd_warshall.cu -> the corpus's floyd-warshall.c"""
    name = candidate.stem.removeprefix("kernel_").replace("_", "-")
    corpus = ROOT / "corpora" / "polybench"
    for path in listed(corpus):
        if path.parent.name == name:
            return path
    raise SystemExit(f"{candidate}: no corpus kernel named {name}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="gpu", choices=["gpu", "emu", "auto"])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--dataset", default=None)
    ap.add_argument("-k", dest="only", default="")
    args = ap.parse_args(argv)
    passed = failed = 0
    for cu in sorted((ROOT / "tests" / "candidates").glob("*.cu")):
        if args.only not in cu.name:
            continue
        k = read_c(kernel_source(cu))
        for i in range(args.seeds):
            t = time.monotonic()
            ev = ladder(k, cu, backend=args.backend, dataset=args.dataset, bench=i == 0)
            passed += ev.accepted
            failed += not ev.accepted
            bench = next((r for r in ev.rungs if r["name"] == "bench" and not r["skipped"]), None)
            extra = ""
            if bench and "kernel_ms" in bench["detail"]:
                d = bench["detail"]
                extra = (f"; kernel {d['kernel_ms']['median']:.4f} ms (p20 {d['kernel_ms']['p20']:.4f}, "
                         f"p80 {d['kernel_ms']['p80']:.4f}), reference {d.get('reference_ms', {}).get('median', float('nan')):.3f} ms")
            state = "accepted" if ev.accepted else f"REJECTED at {ev.rung}: {ev.reason}: {ev.feedback[:200]}"
            print(f"{'PASS' if ev.accepted else 'FAIL'} {cu.name:28} seed {ev.seed:>20} "
                  f"{time.monotonic() - t:6.1f}s max error {ev.max_error or 0:.3g} of bound: {state}{extra}",
                  flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
