#!/usr/bin/env python3
"""Run the red-team corpus (tests/redteam/manifest.yaml) through the ladder on the gpu backend.

    python scripts/redteam_gpu.py [--backend gpu|emu] [--seed S] [-k SUBSTRING]

Prints one line per candidate (PASS: rejected at the expected rung for the expected
reason; FAIL otherwise) and a summary `N passed, M failed`; exits 1 when any failed.
Meant for a machine with an NVIDIA GPU (an H200 in the project's runs).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from t2c.frontends.c import read_c  # noqa: E402
from t2c.verify.ladder import ladder  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="gpu", choices=["gpu", "emu", "auto"])
    ap.add_argument("--seed", type=int, default=None, help="default: a fresh secret seed per candidate")
    ap.add_argument("--dataset", default=None)
    ap.add_argument("-k", dest="only", default="", help="only files whose name contains this")
    args = ap.parse_args(argv)
    here = ROOT / "tests" / "redteam"
    entries = yaml.safe_load((here / "manifest.yaml").read_text())["candidates"]
    passed = failed = 0
    for e in entries:
        if args.only not in e["file"]:
            continue
        rungs = [e["rung"]] if isinstance(e["rung"], str) else e["rung"]
        t = time.monotonic()
        ev = ladder(read_c(ROOT / e["kernel"]), here / "candidates" / e["file"], backend=args.backend,
                    dataset=args.dataset, seed=args.seed, bench=False)
        why = f"{ev.reason}: {ev.feedback}"
        ok = (not ev.accepted and ev.rung in rungs and re.search(e["reason"], why, re.I) is not None)
        passed += ok
        failed += not ok
        got = "ACCEPTED" if ev.accepted else f"rejected at {ev.rung}: {why}"
        print(f"{'PASS' if ok else 'FAIL'} {e['file']:30} {time.monotonic() - t:6.1f}s seed {ev.seed}: "
              f"{got[:220]}" + ("" if ok else f"  [expected {rungs} /{e['reason']}/]"), flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
