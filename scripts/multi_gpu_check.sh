#!/usr/bin/env bash
# Does `--gpu-jobs 2` use two GPUs?  PolyBench LARGE on the gpu backend, GPU phase with 1 and 2 slots.
#   bash scripts/multi_gpu_check.sh            on a machine with 2 GPUs; logs under $OUT
#   env: DATASET (LARGE), KERNELS (names; default the whole corpus), CORPUS (corpora/polybench),
#        T2C_BATCH_FLAGS (more `t2c batch` flags), STARTS=0 (skip step 0)
# First a run that fills the cache with the CPU stages (parse, reference, generate, suite); then the GPU
# stages alone, forced (--rerun verify --rerun bench) with --gpu-jobs 1 and with --gpu-jobs 2.  A GPU
# stage holds its slot only around its runs on the device (its suite, mutant gate and nvcc build
# come first, slot-free); the engine's "per GPU" line gives the seconds each GPU was held and the
# GPU phase (first slot taken to last given back).  Prints both runs' wall and GPU phase, and ratios.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-multi-gpu}; mkdir -p "$OUT"
CORPUS=${CORPUS:-corpora/polybench}
export PYTHONUNBUFFERED=1 T2C_CACHE_DIR=${T2C_CACHE_DIR:-/tmp/t2c-multi-gpu-cache}

source scripts/gpu_env.sh
T2C="python3 -m t2c.cli"
ONLY=$(for k in ${KERNELS:-}; do printf -- '--only %s ' "$k"; done)
BATCH="$T2C batch $CORPUS --backend gpu --dataset ${DATASET:-LARGE} $ONLY ${T2C_BATCH_FLAGS:-}"

{ nvidia-smi -L; echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} (the slots use GPUs 0..N-1 regardless)"; nproc; } \
  | tee "$OUT/env.txt"
n_gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n_gpus" -ge 2 ] || echo "warning: $n_gpus GPU(s) visible; --gpu-jobs 2 cannot be faster"

nvidia-smi --query-gpu=index,persistence_mode,compute_mode --format=csv | tee -a "$OUT/env.txt"

# 0. What one candidate process costs to start, alone and with the other GPU busy the same way: a
#    tiny CUDA program (context creation, one launch), plain and under compute-sanitizer memcheck.
cat > /tmp/t2c-start.cu <<'CU'
#include <cstdio>
__global__ void one(double *x) { x[threadIdx.x] = threadIdx.x; }
int main() { double *x; cudaMalloc(&x, 1 << 20); one<<<1, 256>>>(x); return cudaDeviceSynchronize() != cudaSuccess; }
CU
if [ "${STARTS:-1}" != 0 ] && nvcc -O2 -o /tmp/t2c-start /tmp/t2c-start.cu 2>> "$OUT/env.txt"; then
  starts() {  # starts GPU N [sanitizer]: N process starts on GPU, seconds per start
    local t0=$EPOCHREALTIME
    for ((i = 0; i < $2; i++)); do CUDA_VISIBLE_DEVICES=$1 ${3:-} /tmp/t2c-start > /dev/null 2>&1 || echo "start failed"; done
    awk "BEGIN { printf \"%.3f\", ($EPOCHREALTIME - $t0) / $2 }"
  }
  for tool in "" "compute-sanitizer --tool memcheck --print-limit 1"; do
    n=$([ -z "$tool" ] && echo 20 || echo 4)
    alone=$(starts 0 $n "$tool")
    starts 1 $n "$tool" > /tmp/t2c-start-1 & both0=$(starts 0 $n "$tool"); wait; both1=$(cat /tmp/t2c-start-1)
    echo "process start ${tool:+under ${tool%% *} }(s each): GPU 0 alone $alone; GPU 0 and 1 at once $both0, $both1"
  done | tee "$OUT/starts.txt"
fi

# 1. The CPU stages into the cache, the suites included (and a first GPU pass, which the timed runs below redo).
$BATCH --gpu-jobs 2 --report-dir "$OUT/warm" > "$OUT/warm.log" 2>&1
echo "warm-up: exit $?, $(grep -E ' of [0-9]+ kernels in ' "$OUT/warm.log")"

# 2. The GPU phase alone, with one slot and with two.
for g in 1 2; do
  start=$EPOCHREALTIME
  $BATCH --gpu-jobs $g --rerun verify --rerun bench --report-dir "$OUT/gpu$g" > "$OUT/gpu$g.log" 2>&1
  rc=$?
  wall=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $start }")
  echo "--gpu-jobs $g: exit $rc, batch $wall s wall; $(grep -E ' of [0-9]+ kernels in ' "$OUT/gpu$g.log")"
  grep '^per GPU:' "$OUT/gpu$g.log" | sed 's/^/    /'
  # the verify stages' rung seconds (their evidence cards; the next run replaces them)
  python3 -c 'import glob, json, sys; json.dump({(c := json.load(open(f)))["kernel"].removeprefix("kernel_"): c["timings"].get("rungs_s", {}) for f in glob.glob(sys.argv[1] + "/targets/verify/*/evidence.json")}, open(sys.argv[2], "w"))' \
    "$T2C_CACHE_DIR" "$OUT/rungs$g.json"
done | tee "$OUT/summary.txt"

python3 - "$OUT" <<'EOF' | tee -a "$OUT/summary.txt"
import json, re, sys
out = sys.argv[1]
walls, phases, g = {}, {}, None
for line in open(f"{out}/summary.txt"):
    m = re.match(r"--gpu-jobs (\d): exit \d+, batch ([\d.]+) s wall", line)
    if m:
        g = int(m[1])
        walls[g] = float(m[2])
    m = re.search(r"GPU phase ([\d.]+) s", line)
    if m and g:
        phases[g] = float(m[1])
for what, d in (("GPU phase", phases), ("batch wall", walls)):
    if 1 in d and 2 in d:
        print(f"{what}: 2 slots / 1 slot = {d[2] / d[1]:.2f}  (0.50 = both GPUs fully used)")
# Per run, each GPU stage: its GPU, when it took its slot (s after the first), seconds held and waited,
# and the stage's whole time (CPU part included): what the GPU phase waited on.
for g in (1, 2):
    try:
        rows = json.load(open(f"{out}/gpu{g}/results.json"))["rows"]
    except OSError:
        continue
    used = [(r["kernel"], s, v) for r in rows for s, v in r.get("stages", {}).items() if "gpu_from" in v]
    if not used:
        continue
    print(f"--gpu-jobs {g}: " + ", ".join(f"{r['kernel']} {r['status']} {r.get('kernel_ms') or 0:.4g} ms "
                                         f"({r.get('gbps') or 0:.0f} GB/s)" for r in rows))
    t0 = min(v["gpu_from"] for _, _, v in used)
    print(f"--gpu-jobs {g}: kernel:stage  gpu  from_s  held_s  wait_s  stage_s")
    for kernel, s, v in sorted(used, key=lambda u: u[2]["gpu_from"]):
        print(f"  {kernel + ':' + s:22s} {v['gpu']:3d} {v['gpu_from'] - t0:7.1f} {v.get('gpu_s', 0):7.1f} "
              f"{v.get('gpu_wait_s', 0):7.1f} {v['seconds']:8.1f}")
# Where a verify stage's seconds go, per rung (the runtime rungs run inside the GPU slot).
for g in (1, 2):
    try:
        rungs = json.load(open(f"{out}/rungs{g}.json"))
    except (OSError, ValueError):
        continue
    names = ["build", "gate", "smoke", "random", "races", "full"]
    print(f"--gpu-jobs {g}: verify rungs (s): kernel " + " ".join(f"{n:>6}" for n in names))
    for kernel, r in sorted(rungs.items()):
        print(f"  {kernel:12s} " + " ".join(f"{r.get(n, 0):6.2f}" for n in names))
# The two runs must agree kernel by kernel; only the speed may differ.
status = lambda g: {r["kernel"]: r["status"] for r in json.load(open(f"{out}/gpu{g}/results.json"))["rows"]}
try:
    a, b = status(1), status(2)
    diff = sorted(k for k in a if a[k] != b.get(k))
    print("same status for every kernel with 1 and 2 slots" if not diff else f"status differs for: {', '.join(diff)}")
except OSError as e:
    print(f"no results to compare: {e}")
EOF
