#!/usr/bin/env bash
# poly's options search (`t2c gen --evolve`) for some PolyBench kernels, one after another (clean
# timings), then a table: default and best kernel time, the moves that led there, candidates.
#   OUT=/tmp/out KERNELS="gemm 2mm doitgen" bash scripts/gpu_evolve.sh
# Env: KERNELS (names; default: the matrix-vector kernels and durbin), T2C_BACKEND (gpu;
#      emu checks correctness only), CANDIDATES (6 per kernel), SECONDS_EACH (70 per kernel:
#      a candidate takes 8-30 s at LARGE, so the defaults fit a 10-minute device call).
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-evolve}; mkdir -p "$OUT"
source scripts/gpu_env.sh
export T2C_CACHE_DIR=${T2C_CACHE_DIR:-/tmp/t2c-evolve-cache} PYTHONUNBUFFERED=1
BACKEND=${T2C_BACKEND:-gpu}
# the moves are chosen against the GPU's measured ceilings
[ "$BACKEND" = gpu ] && python3 -m t2c.runtime.ceilings > "$OUT/ceilings.json" 2> "$OUT/ceilings.log"
for k in ${KERNELS:-atax bicg mvt gesummv gemver durbin}; do
  src=$(grep -E "(^|/)$k/$k\.c$" corpora/polybench/utilities/benchmark_list) || { echo "$k: not in the corpus"; continue; }
  python3 -m t2c.cli gen "corpora/polybench/$src" --evolve --backend "$BACKEND" \
    --evolve-candidates "${CANDIDATES:-6}" --evolve-seconds "${SECONDS_EACH:-70}" -o "$OUT/$k.cu" \
    > "$OUT/$k.log" 2>&1
  echo "$k exit $?"
done
python3 - "$OUT" <<'PY' | tee "$OUT/table.md"
import glob, json, os, sys
print("| kernel | default ms | best ms | default / best | moves to the best | candidates | timed briefly | stopped |")
print("|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.cu.evolve.json"))):
    card = json.load(open(path))
    steps = {s["step"]: s for s in card["lineage"]}
    best, default = card["best"], next((s for s in card["lineage"] if s["move"] in ("default", "cached winner")), {})
    chain, s = [], best
    while s and s.get("parent") is not None:
        chain.append(s["move"])
        s = steps.get(s["parent"])
    f = lambda v: "-" if v is None else f"{v:.4g}"
    ratio = default.get("kernel_ms") / best["kernel_ms"] if default.get("kernel_ms") and best.get("kernel_ms") else None
    print(f"| {os.path.basename(path).split('.')[0]} | {f(default.get('kernel_ms'))} | {f(best.get('kernel_ms'))} | "
          f"{f(ratio)} | {' <- '.join(chain) or best['move']} | {len(card['lineage'])} | "
          f"{sum('timing' in s for s in card['lineage'])} | {card['stopped']} |")
PY
