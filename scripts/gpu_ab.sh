#!/usr/bin/env bash
# Two versions of some kernels' candidates timed side by side in one run on a GPU: for
# each kernel, A then B (then A and B again with ROUNDS=2), each through the whole ladder with its
# bench rung, one seed for both.  A is a folder of candidates (KERNEL.cu; tests/golden holds the
# committed generator's); B is what
# this checkout's poly generator writes now.  Prints a line per verification as it ends (each takes
# 10-40 s at LARGE: it also times the CPU reference), then a table: medians, p20-p80, B/A.
#   A=tests/golden KERNELS="gemm syrk" OUT=/tmp/ab bash scripts/gpu_ab.sh
# CORPUS (corpora/polybench) names another C corpus; its kernels are found by file name (KERNEL.c).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-ab}; mkdir -p "$OUT"
source scripts/gpu_env.sh
export T2C_CACHE_DIR=${T2C_CACHE_DIR:-/tmp/t2c-ab-cache} PYTHONUNBUFFERED=1
SEED=${SEED:-20261130}
[ "${T2C_BACKEND:-gpu}" = gpu ] && python3 -m t2c.runtime.ceilings > "$OUT/ceilings.json" 2> /dev/null
for k in ${KERNELS:-gemm 2mm 3mm syrk syr2k}; do
  C=${CORPUS:-corpora/polybench}
  if [ -f "$C/utilities/benchmark_list" ]; then src=$C/$(grep -E "(^|/)$k/$k\.c$" "$C/utilities/benchmark_list") || continue
  else src=$(find "$C" -name "$k.c" -not -path '*/utilities/*' | head -1); [ -n "$src" ] || { echo "$k: not in $C"; continue; }; fi
  python3 -m t2c.cli gen "$src" -o "$OUT/$k.B.cu" > /dev/null 2>&1 || { echo "$k: gen failed"; continue; }
  for r in $(seq "${ROUNDS:-1}"); do
    for v in A B; do
      cand=$([ $v = A ] && echo "$A/$k.cu" || echo "$OUT/$k.B.cu")
      python3 -m t2c.cli verify "$src" --candidate "$cand" --backend "${T2C_BACKEND:-gpu}" --seed "$SEED" --json > "$OUT/$k.$v.$r.json" 2> "$OUT/$k.$v.$r.log"
      python3 -c "import json, sys; c = json.load(open(sys.argv[1])); print(sys.argv[2], c['accepted'], c.get('timings', {}).get('kernel_ms'))" \
        "$OUT/$k.$v.$r.json" "$k $v round $r:" 2>/dev/null || echo "$k $v round $r: no card"
    done
  done
done
python3 - "$OUT" <<'PY' | tee "$OUT/ab.md"
import glob, json, os, sys
out = sys.argv[1]
print("| kernel | round | A ms (p20-p80) | B ms (p20-p80) | B / A | A, B accepted |")
print("|---|---|---|---|---|---|")
for path in sorted(glob.glob(f"{out}/*.A.*.json")):
    k, _, r, _ = os.path.basename(path).rsplit(".", 3)
    cards = []
    for v in "AB":
        try:
            cards.append(json.load(open(f"{out}/{k}.{v}.{r}.json")))
        except (OSError, ValueError):
            cards.append({})
    ms = [c.get("timings", {}).get("kernel_ms") or {} for c in cards]
    f = lambda m: f"{m['median']:.4g} ({m['p20']:.4g}-{m['p80']:.4g})" if m else "-"
    ratio = f"{ms[1]['median'] / ms[0]['median']:.3f}" if ms[0] and ms[1] else "-"
    print(f"| {k} | {r} | {f(ms[0])} | {f(ms[1])} | {ratio} | {', '.join(str(c.get('accepted')) for c in cards)} |")
PY
