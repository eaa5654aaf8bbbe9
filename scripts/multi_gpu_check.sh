#!/usr/bin/env bash
# Does `--gpu-jobs 2` use two GPUs?  PolyBench LARGE on the gpu backend, GPU phase with 1 and 2 slots.
#   bash scripts/multi_gpu_check.sh            on a machine with 2 GPUs; logs under $OUT
#   env: DATASET (LARGE), KERNELS (names; default the whole corpus), CORPUS (corpora/polybench)
# First a run that fills the cache with the CPU stages (parse, reference, generate); then the GPU
# stages alone, forced (--rerun verify --rerun bench) with --gpu-jobs 1 and with --gpu-jobs 2: each
# of those runs' wall time is its GPU phase.  Prints both, the ratio and the per-GPU lines.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-multi-gpu}; mkdir -p "$OUT"
CORPUS=${CORPUS:-corpora/polybench}
export PYTHONUNBUFFERED=1 T2C_CACHE_DIR=${T2C_CACHE_DIR:-/tmp/t2c-multi-gpu-cache}

if ! python3 -c "import islpy, pycparser, tree_sitter_c, tree_sitter_cuda" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
T2C="python3 -m t2c.cli"
ONLY=$(for k in ${KERNELS:-}; do printf -- '--only %s ' "$k"; done)
BATCH="$T2C batch $CORPUS --backend gpu --dataset ${DATASET:-LARGE} $ONLY"

{ nvidia-smi -L; echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} (the slots use GPUs 0..N-1 regardless)"; nproc; } \
  | tee "$OUT/env.txt"
n_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n_gpus" -ge 2 ] || echo "warning: $n_gpus GPU(s) visible; --gpu-jobs 2 cannot be faster"

# 1. The CPU stages into the cache (and a first GPU pass, which the timed runs below redo).
$BATCH --gpu-jobs 2 --report-dir "$OUT/warm" > "$OUT/warm.log" 2>&1
echo "warm-up: exit $?, $(grep -E ' of [0-9]+ kernels in ' "$OUT/warm.log")"

# 2. The GPU phase alone, with one slot and with two.
for g in 1 2; do
  start=$EPOCHREALTIME
  $BATCH --gpu-jobs $g --rerun verify --rerun bench --report-dir "$OUT/gpu$g" > "$OUT/gpu$g.log" 2>&1
  rc=$?
  wall=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $start }")
  echo "--gpu-jobs $g: exit $rc, GPU phase $wall s wall; $(grep -E ' of [0-9]+ kernels in ' "$OUT/gpu$g.log")"
  grep '^per GPU:' "$OUT/gpu$g.log" | sed 's/^/    /'
done | tee "$OUT/summary.txt"

python3 - "$OUT" <<'EOF' | tee -a "$OUT/summary.txt"
import json, re, sys
out = sys.argv[1]
walls = {}
for line in open(f"{out}/summary.txt"):
    m = re.match(r"--gpu-jobs (\d): exit \d+, GPU phase ([\d.]+) s wall", line)
    if m:
        walls[int(m[1])] = float(m[2])
if 1 in walls and 2 in walls:
    print(f"ratio (1 slot / 2 slots): {walls[1] / walls[2]:.2f}x  (2.00x = both GPUs fully used)")
# The two runs must agree kernel by kernel; only the speed may differ.
status = lambda g: {r["kernel"]: r["status"] for r in json.load(open(f"{out}/gpu{g}/results.json"))["rows"]}
try:
    a, b = status(1), status(2)
    diff = sorted(k for k in a if a[k] != b.get(k))
    print("same status for every kernel with 1 and 2 slots" if not diff else f"status differs for: {', '.join(diff)}")
except OSError as e:
    print(f"no results to compare: {e}")
EOF
