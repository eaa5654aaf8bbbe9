"""Benchmark: a no-op rerun of `t2c batch` over the PolyBench corpus (everything cached).

    python scripts/bench_noop.py [CORPUS] [REPEATS]

Runs the batch once to fill a private cache (emu, MINI), then times REPEATS reruns
that must redo nothing, and prints the median and spread of the wall times.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "corpora" / "polybench")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, T2C_CACHE_DIR=str(Path(tmp) / "cache"), PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "t2c.cli", "batch", corpus, "--backend", "emu", "--dataset", "MINI",
               "--report-dir", str(Path(tmp) / "report")]
        t0 = time.monotonic()
        first = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
        print(f"first run: {time.monotonic() - t0:.1f} s (exit {first.returncode})")
        times = []
        for _ in range(repeats):
            t0 = time.monotonic()
            r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
            times.append(time.monotonic() - t0)
            ran = [l for l in r.stderr.splitlines() if l.split() and l.split()[0] in ("ok", "failed", "error")]
            if ran:
                print(f"not a no-op: {len(ran)} target(s) ran, e.g. {ran[0]}")
        q = statistics.quantiles(times, n=5) if len(times) >= 2 else [times[0]] * 4
        print(f"no-op rerun of {corpus}: median {statistics.median(times):.2f} s "
              f"(p20 {q[0]:.2f}, p80 {q[-1]:.2f}) over {repeats} runs")


if __name__ == "__main__":
    main()
