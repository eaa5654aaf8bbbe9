"""The drop-in linked into the original program: its own dump, CPU build against GPU build.

    python3 scripts/dropin_check.py SUITE [DATASET] [--only NAME ...] [--out DIR]

For each kernel the suite's list names, `t2c gen` writes the candidate; the program is then
built twice at DATASET with -DPOLYBENCH_DUMP_ARRAYS: as it is (gcc), and with its kernel's
definition renamed so that the call in main reaches the drop-in `NAME` instead (the C files by
gcc, the candidate by nvcc, linked by nvcc).  The two dumps are compared value by value at the
dump's precision (two decimals, or 1e-6 relative; 1e-3 for float kernels).  This is what a
user who links the drop-in into their program sees.  A third build of the program alone, with
fused multiply-adds (-march=native -ffp-contract=fast), tells values the program cannot itself
reproduce under another legal rounding (an ill-conditioned input): where the drop-in differs
only in such a program the kernel is reported `unstable`, not wrong.  Prints a line a kernel
and a summary; needs nvcc and a GPU.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from t2c.engine.batch import discover  # noqa: E402
from t2c.frontends.c import locate, read_c  # noqa: E402
from t2c.frontends.c.preprocess import include_dirs  # noqa: E402
from t2c.ir.abi import param_list  # noqa: E402

DUMP = re.compile(r"begin dump: (\S+)(.*?)end   dump: \1", re.S)


def sh(argv, cwd, timeout=900) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def relinked(src: Path, k) -> str:
    """The program with its kernel's definition renamed and the drop-in declared before main."""
    raw = src.read_bytes()
    site = locate.choose(locate.locate(raw, str(src)), str(src), k.name)
    lines = raw.decode().splitlines(keepends=True)
    head, tail = "".join(lines[:site.line - 1]), "".join(lines[site.line - 1:])
    tail = re.sub(rf"\b{k.name}\s*\(", f"t2c_original_{k.name}(", tail, count=1)
    ret = k.returns.dtype if k.returns else "void"
    text = head + tail
    main = re.search(r"^int\s+main\s*\(", text, re.M)
    return text[:main.start()] + f"extern {ret} {k.name}({param_list(k, '')});\n\n" + text[main.start():]


def dumps(text: str) -> dict[str, list[float]]:
    return {m.group(1): [float(v) for v in m.group(2).split()] for m in DUMP.finditer(text)}


def check(src: Path, dataset: str, out: Path) -> tuple[str, bool, str]:
    k = read_c(src)
    tag = src.stem
    with tempfile.TemporaryDirectory(prefix=f"dropin-{tag}-") as tmp:
        d = Path(tmp)
        inc = [f"-I{p}" for p in include_dirs(src)]
        pbc = [p / "polybench.c" for p in include_dirs(src) if (p / "polybench.c").exists()]
        flags = [f"-D{dataset}_DATASET", "-DPOLYBENCH_DUMP_ARRAYS", *inc]
        g = sh([sys.executable, "-m", "t2c.cli", "gen", src, "-o", d / "cand.cu"], ROOT)
        if g.returncode:
            return tag, False, f"gen failed: {g.stderr.strip()[-300:]}"
        (out / f"{tag}.cu").write_text((d / "cand.cu").read_text())
        (d / "prog.c").write_text(relinked(src, k))
        steps = [["gcc", "-O2", *flags, src, *pbc, "-lm", "-o", d / "cpu"],
                 ["gcc", "-O2", "-march=native", "-ffp-contract=fast", *flags, src, *pbc, "-lm", "-o", d / "fma"],
                 ["gcc", "-O2", "-w", "-c", *flags, d / "prog.c", "-o", d / "prog.o"],
                 *[["gcc", "-O2", "-c", *inc, p, "-o", d / f"pb{i}.o"] for i, p in enumerate(pbc)],
                 ["nvcc", "-O3", "-arch=native", "-c", d / "cand.cu", "-o", d / "cand.o"],
                 ["nvcc", d / "prog.o", *[d / f"pb{i}.o" for i in range(len(pbc))], d / "cand.o",
                  "-lm", "-o", d / "gpu"]]
        for argv in steps:
            r = sh(argv, d)
            if r.returncode:
                return tag, False, f"build failed ({argv[0]}): {r.stderr.strip()[-300:]}"
        cpu, fma, gpu = sh([d / "cpu"], d), sh([d / "fma"], d), sh([d / "gpu"], d)
        if gpu.returncode:
            return tag, False, f"the program with the drop-in exited {gpu.returncode}: {gpu.stderr[-300:]}"
        want, again, got = dumps(cpu.stderr), dumps(fma.stderr), dumps(gpu.stderr)
    if not want or want.keys() != got.keys():
        return tag, False, f"dumped arrays differ: {sorted(want)} vs {sorted(got)}"
    rel = 1e-3 if any(a.dtype == "float" for a in k.arrays) else 1e-6
    sizes = k.dataset_sizes(dataset)
    bad, worst, values = differences(got, want, rel)
    if bad:
        own, _, _ = differences(again, want, rel)
        if own:
            return tag, False, (f"unstable: {len(bad)} of {values} values differ, first {bad[0]}; the program "
                                f"alone with FMA contraction differs in {len(own)}, first {own[0]} (sizes {sizes})")
        return tag, False, f"{len(bad)} of {values} values differ, first {bad[0]} (sizes {sizes})"
    return tag, True, f"{values} values agree (max |diff| {worst:.3g}, sizes {sizes})"


def differences(got: dict, want: dict, rel: float) -> tuple[list[str], float, int]:
    """The values of `got` outside the dump's precision of `want`, the largest difference, the count."""
    worst, values, bad = 0.0, 0, []
    for name, ref in want.items():
        mine = got.get(name, [])
        if len(mine) != len(ref):
            return [f"{name}: {len(mine)} values, the program's own {len(ref)}"], float("inf"), len(ref)
        for i, (a, b) in enumerate(zip(mine, ref)):
            diff = abs(a - b)
            worst, values = max(worst, diff), values + 1
            if diff > 0.0100001 and diff > rel * max(abs(a), abs(b)):
                bad.append(f"{name}[{i}] {a} vs {b}")
    return bad, worst, values


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite")
    ap.add_argument("dataset", nargs="?", default="MEDIUM")
    ap.add_argument("--only", nargs="*", default=())
    ap.add_argument("--out", default="/tmp/dropin-check")
    ap.add_argument("-j", type=int, default=8)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    sources = [s.resolve() for s in discover([a.suite]) if not a.only or s.stem in a.only]
    ok = 0
    with ThreadPoolExecutor(a.j) as pool:
        for tag, good, text in pool.map(lambda s: check(s, a.dataset.upper(), out), sources):
            ok += good
            word = "agrees" if good else "unstable" if text.startswith("unstable") else "DIFFERS"
            print(f"{tag:16} {word:8}  {text}", flush=True)
    print(f"drop-in in the program at {a.dataset.upper()}: {ok} of {len(sources)} agree with the CPU build")
    return 0 if ok == len(sources) else 1


if __name__ == "__main__":
    sys.exit(main())
