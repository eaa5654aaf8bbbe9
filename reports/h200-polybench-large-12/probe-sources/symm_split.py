import re, sys
from pathlib import Path
from t2c.frontends.c import read_c
from t2c.generators.poly import PolyOptions, generate
out = Path(".t2c/hand"); k = read_c(next(Path("corpora/polybench").rglob("symm.c")))
call = "kernel_symm_device(1000, 1200, 1.5, 1.2, C, A, B)"
names = []
for v in sys.argv[1].split(";"):
    name, opts = v.split("=", 1)
    src = generate(k, eval(f"PolyOptions({opts})"))
    for part, drop in (("all", None), ("k1", "symm_update_C_2<<<"), ("k2", "symm_update_C_1<<<")):
        s = src if drop is None else "\n".join(l for l in src.splitlines() if drop not in l)
        (out / f"symm__{name}_{part}.cu").write_text(f"{s}\n#define CALL {call}\n"); names.append(f"symm__{name}_{part}")
print(" ".join(names))
