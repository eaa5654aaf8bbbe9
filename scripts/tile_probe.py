"""Candidates of the gemm family under several poly options, for a quick side-by-side timing.

    .venv/bin/python scripts/tile_probe.py 'NAME=OPTIONS;NAME=OPTIONS' [KERNEL ...]   (here)
    bash /tmp/tile-probe/run.sh                                              (on the GPU machine)

OPTIONS is the inside of `dict(...)` read by `PolyOptions.load`: dotted paths
(`**{"tiles.staging.tile": (8, 4)}`) or the flat names the reports used (`staged_tile=(8, 4),
async_stages=3`); empty: the defaults.  Writes each kernel's candidate per variant to /tmp/tile-probe/KERNEL__NAME.cu (a
variant that prints an earlier one's source is left out) with scripts/tile_drive.cu, and run.sh,
which builds them all at once (ptxas's register count of each first kernel) and runs each three
times in turn.  Faster than scripts/options_ab.py (no ladder), so a probe for choosing options,
whose winners then go through options_ab.py; the report gives the command it ran.
"""
import os
import shutil
import sys
from pathlib import Path

from t2c.frontends.c import read_c
from t2c.generators.poly import PolyOptions, generate

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(os.environ.get("PROBE_DIR", "/tmp/tile-probe"))
#: kernel -> its device entry on the arrays of tile_drive.cu at LARGE
CALLS = {
    "gemm": "kernel_gemm_device(1000, 1100, 1200, 1.5, 1.2, C, A, B)",
    "2mm": "kernel_2mm_device(800, 900, 1100, 1200, 1.5, 1.2, tmp, A, B, C, D)",
    "3mm": "kernel_3mm_device(800, 900, 1000, 1100, 1200, E, A, B, F, C, D, G)",
    "syrk": "kernel_syrk_device(1200, 1000, 1.5, 1.2, C, A)",
    "syr2k": "kernel_syr2k_device(1200, 1000, 1.5, 1.2, C, A, B)",
    "symm": "kernel_symm_device(1000, 1200, 1.5, 1.2, C, A, B)",
    "trmm": "kernel_trmm_device(1000, 1200, 1.5, A, B)",
    "covariance": "kernel_covariance_device(1200, 1400, 1400.0, A, C, D)",
    "correlation": "kernel_correlation_device(1200, 1400, 1400.0, A, C, D, E)",
}


def main(argv: list[str]) -> int:
    variants = [v.split("=", 1) for v in argv[0].split(";")]
    OUT.mkdir(exist_ok=True)
    shutil.copy(ROOT / "scripts" / "tile_drive.cu", OUT / "tile_drive.cu")
    builds, runs = [], []
    for k in argv[1:] or list(CALLS):
        kernel = read_c(next((ROOT / "corpora" / "polybench").rglob(f"{k}.c")))
        seen = {}
        for name, options in variants:
            source = generate(kernel, PolyOptions.load(eval(f"dict({options})"), name))
            if source in seen:
                print(f"{k} {name}: the same source as {seen[source]}")
                continue
            seen[source], f = name, f"{k}__{name}"
            (OUT / f"{f}.cu").write_text(f"{source}\n#define CALL {CALLS[k]}\n")
            builds.append(f"nvcc -O3 -arch=sm_90 -DKFILE='\"{f}.cu\"' -o {f} tile_drive.cu -Xptxas -v 2>&1 "
                          f"| grep -o 'Used [0-9]* registers' | head -1 | sed 's|^|{f} |' &")
            runs.append(f"./{f}")
    (OUT / "run.sh").write_text("cd \"$(dirname \"$0\")\"\n" + "\n".join(builds) + "\nwait\nfor r in 1 2 3; do\n"
                                + "\n".join(runs) + "\ndone\n")
    print(f"{len(runs)} candidates in {OUT}: bash {OUT}/run.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
