"""The drop-in's own time in the original program: PolyBench's timer around the call, side by side.

    python3 scripts/dropin_time.py SUITE [DATASET] [--only NAME ...] [--variant NAME=DIR ...] [--rounds R]

For each kernel the suite's list names, the program is built at DATASET with -DPOLYBENCH_TIME:
once as it is (gcc -O3, the sequential CPU time) and once per variant with its kernel's definition
renamed so that the call in main reaches a drop-in `NAME` (scripts/dropin_check.relinked): `gen`
is what `t2c gen` writes now, a variant NAME=DIR takes DIR/KERNEL.cu (a folder of candidates,
e.g. tests/golden).  Every GPU build links a constructor that creates the CUDA context before
main, so the timer holds what a user's call costs once the program runs on a GPU: allocation,
copies, launches, copies back, frees.  The builds run in rounds, each build once a round in
turn; the script prints each build's median with its p20-p80 range, the CPU time over each
variant's, and their geometric means.  A benchmark script, not a test: it prints figures.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from dropin_check import relinked, sh  # noqa: E402
from t2c.engine.batch import discover  # noqa: E402
from t2c.frontends.c import read_c  # noqa: E402
from t2c.frontends.c.preprocess import include_dirs  # noqa: E402

#: linked into every GPU build: the context exists before main, so before the timer starts
WARM = """#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__attribute__((constructor)) static void t2c_context(void)
{
  if (cudaFree(0) != cudaSuccess) { fprintf(stderr, "dropin_time: no CUDA device\\n"); exit(3); }
}
"""


def build(src: Path, dataset: str, variants: dict[str, str], d: Path) -> tuple[dict[str, Path], str]:
    """{build name: executable} for the CPU build and each variant's, and what failed."""
    k = read_c(src)
    inc = [f"-I{p}" for p in include_dirs(src)]
    pbc = [p / "polybench.c" for p in include_dirs(src) if (p / "polybench.c").exists()]
    flags = [f"-D{dataset}_DATASET", "-DPOLYBENCH_TIME", *inc]
    (d / "prog.c").write_text(relinked(src, k))
    (d / "warm.cu").write_text(WARM)
    steps = [["gcc", "-O3", *flags, src, *pbc, "-lm", "-o", d / "cpu"],
             ["gcc", "-O3", "-w", "-c", *flags, d / "prog.c", "-o", d / "prog.o"],
             *[["gcc", "-O3", "-c", *inc, p, "-o", d / f"pb{i}.o"] for i, p in enumerate(pbc)],
             ["nvcc", "-O3", "-c", d / "warm.cu", "-o", d / "warm.o"]]
    out, failed = {"cpu": d / "cpu"}, []
    for name, where in variants.items():
        cand = d / f"{name}.cu"
        if where == "gen":
            g = sh([sys.executable, "-m", "t2c.cli", "gen", src, "-o", cand], ROOT)
            if g.returncode:
                failed.append(f"{name}: gen failed")
                continue
        elif (Path(where) / f"{src.stem}.cu").exists():
            cand.write_text((Path(where) / f"{src.stem}.cu").read_text())
        else:
            failed.append(f"{name}: no {src.stem}.cu in {where}")
            continue
        steps += [["nvcc", "-O3", "-arch=native", "-c", cand, "-o", d / f"{name}.o"],
                  ["nvcc", d / "prog.o", *[d / f"pb{i}.o" for i in range(len(pbc))], d / "warm.o", d / f"{name}.o",
                   "-lm", "-o", d / name]]
        out[name] = d / name
    for argv in steps:
        r = sh(argv, d)
        if r.returncode:
            return {}, f"build failed ({argv[0]} {Path(str(argv[-1])).name}): {r.stderr.strip()[-300:]}"
    return out, "; ".join(failed)


def seconds(exe: Path, d: Path) -> float | None:
    r = sh([exe], d, timeout=600)
    try:
        return float(r.stdout.split()[-1]) if r.returncode == 0 else None
    except (IndexError, ValueError):
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite")
    ap.add_argument("dataset", nargs="?", default="LARGE")
    ap.add_argument("--only", nargs="*", default=())
    ap.add_argument("--variant", action="append", default=[], help="NAME=DIR (DIR/KERNEL.cu) or NAME=gen")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu-rounds", type=int, default=3, help="rounds that also run the CPU build")
    ap.add_argument("-j", type=int, default=8, help="builds at once (runs are one at a time)")
    a = ap.parse_args(argv)
    variants = dict(v.split("=", 1) for v in a.variant) or {"gen": "gen"}
    sources = [s.resolve() for s in discover([a.suite]) if not a.only or s.stem in a.only]
    with tempfile.TemporaryDirectory(prefix="dropin-time-") as tmp:
        dirs = {s: Path(tmp) / s.stem for s in sources}
        for d in dirs.values():
            d.mkdir()
        with ThreadPoolExecutor(a.j) as pool:
            builds = dict(zip(sources, pool.map(lambda s: build(s, a.dataset.upper(), variants, dirs[s]), sources)))
        names = ["cpu", *variants]
        print(f"| kernel | {' | '.join(f'{n} ms (p20-p80)' for n in names)} | "
              f"{' | '.join(f'cpu / {n}' for n in variants)} |")
        print("|---|" + "---:|" * (len(names) + len(variants)))
        logs = {n: [] for n in variants}
        for src in sources:
            exes, failed = builds[src]
            times = {n: [] for n in exes}
            for r in range(a.rounds):
                for n, exe in exes.items():
                    if (n != "cpu" or r < a.cpu_rounds) and (t := seconds(exe, dirs[src])) is not None:
                        times[n].append(1e3 * t)
            med = {n: statistics.median(v) for n, v in times.items() if v}
            cell = lambda n: "-" if n not in med else (
                f"{med[n]:.4g} ({_q(times[n], 0.2):.4g}-{_q(times[n], 0.8):.4g})")
            ratios = []
            for n in variants:
                if "cpu" in med and n in med:
                    ratios.append(f"{med['cpu'] / med[n]:.3g}")
                    logs[n].append(math.log(med["cpu"] / med[n]))
                else:
                    ratios.append("-")
            note = f" {failed}" if failed else ""
            print(f"| {src.stem} | {' | '.join(cell(n) for n in names)} | {' | '.join(ratios)} |{note}", flush=True)
        for n, v in logs.items():
            if v:
                print(f"geometric mean of cpu / {n} over {len(v)} kernels: {math.exp(sum(v) / len(v)):.3g}")
    return 0


def _q(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


if __name__ == "__main__":
    sys.exit(main())
