#!/usr/bin/env bash
# A C corpus (default the PolyBench one) through t2c on a GPU machine, one `t2c batch` per kernel
# in parallel (a kernel that hangs costs its own time limit only), merged into one report.
#   OUT=/tmp/out bash scripts/gpu_polybench.sh [DATASET] [PARALLEL]
# Env: CORPUS (a folder, corpora/polybench), KERNELS (names; default the corpus's benchmark_list, or
#      every .c file under it), T2C_BACKEND (gpu), T2C_KERNEL_LIMIT (s per kernel, 240),
#      T2C_BATCH_FLAGS (more `t2c batch` flags, e.g. `--rerun bench` for a second, quieter timing pass),
#      T2C_DEADLINE (s: then stop what still runs and report what finished; set it below the device
#      call's limit so that a long run still leaves a merged report), T2C_CACHE_DIR (/tmp/t2c-cache),
#      RESUME (a .tgz: where it exists, the finished stages it holds are not run again; at the end
#      it holds this run's, for the next call: the cache's stage results and suites, and the
#      project's secret seed that keys them; docs/ci.md, "A corpus longer than one job").
set -u
cd "$(dirname "$0")/.."
DS=${1:-LARGE}; PAR=${2:-8}; OUT=${OUT:-/tmp/t2c-gpu}; CORPUS=${CORPUS:-corpora/polybench}; mkdir -p "$OUT"
source scripts/gpu_env.sh
export T2C_CACHE_DIR=${T2C_CACHE_DIR:-/tmp/t2c-cache} PYTHONUNBUFFERED=1
if [ -n "${RESUME:-}" ] && [ -f "$RESUME" ]; then
  mkdir -p "$T2C_CACHE_DIR" .t2c && tar xzf "$RESUME" -C "$T2C_CACHE_DIR" && cp "$T2C_CACHE_DIR/secret-seed" .t2c/ &&
    echo "resumed from $RESUME: $(find "$T2C_CACHE_DIR/targets" -name result.json | wc -l) stage results" | tee "$OUT/resumed.txt"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/env.txt"
# The GPU's ceilings (copy bandwidth, fp64/fp32 FMA rates) with nothing else on it, for the roofline column.
python3 -m t2c.runtime.ceilings > "$OUT/ceilings.json" 2> "$OUT/ceilings.log" || cat "$OUT/ceilings.log"
# A device call that hit its limit can leave per-kernel batches running (`timeout` puts each in
# its own process group): stop them, or they compete with this run for the GPU and the cores.
pkill -f "t2c.cli batch $CORPUS" && echo "stopped batches left by an earlier call" && sleep 2
rm -rf /tmp/t2c-rep /tmp/t2c-rep-*.log /tmp/t2c-merged
names() {
  if [ -n "${KERNELS:-}" ]; then printf '%s\n' $KERNELS
  elif [ -f "$CORPUS/utilities/benchmark_list" ]; then grep -v '^#' "$CORPUS/utilities/benchmark_list" | sed -e 's#.*/##' -e 's#[.]c$##'
  else find "$CORPUS" -name '*.c' -not -path '*/utilities/*' | sed -e 's#.*/##' -e 's#[.]c$##' | sort; fi
}
( names | xargs -P "$PAR" -I{} sh -c "timeout ${T2C_KERNEL_LIMIT:-240} python3 -m t2c.cli batch $CORPUS --only {} \
     --backend ${T2C_BACKEND:-gpu} --dataset $DS --gpu-jobs $PAR -j 2 --timeout 60 ${T2C_BATCH_FLAGS:-} --report-dir /tmp/t2c-rep/{} \
     > /tmp/t2c-rep-{}.log 2>&1; echo \"{} exit \$?\"" | tee "$OUT/kernels.txt" ) &
runs=$!
for ((waited = 0; waited < ${T2C_DEADLINE:-86400}; waited += 2)); do kill -0 $runs 2>/dev/null || break; sleep 2; done
if kill -0 $runs 2>/dev/null; then        # the deadline: no new kernels, stop the running ones
  pkill -f "xargs -P $PAR -I{}"; pkill -f "t2c.cli batch $CORPUS"
  echo "T2C_DEADLINE (${T2C_DEADLINE} s) reached: unfinished kernels stopped" | tee -a "$OUT/kernels.txt"
fi
wait
cat /tmp/t2c-rep-*.log > "$OUT/batch.log"
python3 -m t2c.cli report merge $(ls -d /tmp/t2c-rep/*/ | while read d; do [ -f "$d/results.json" ] && echo "$d"; done) \
  -o /tmp/t2c-merged > /dev/null 2>&1
tar czf "$OUT/report.tgz" -C /tmp t2c-merged
python3 - "$DS" <<'PY' | tee "$OUT/table.md"
import json, sys
rows = json.load(open("/tmp/t2c-merged/results.json"))["rows"]
print(f"| kernel | status | kernel ms (p20-p80) | CPU -O3 ms | speedup | GB/s | TF/s | roofline % | max err/bound | dataset {sys.argv[1]} |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    f = lambda v, p=4: "-" if v is None else f"{v:.{p}g}"
    k = f(r.get("kernel_ms"))
    b = " †" if r.get("counts_bounded") else ""
    if r.get("kernel_p20_ms") is not None:
        k += f" ({f(r.get('kernel_p20_ms'))}-{f(r.get('kernel_p80_ms'))})"
    print(f"| {r['kernel']} | {r['status']} | {k} | {f(r.get('cpu_ms'))} | {f(r.get('speedup'), 3)} | "
          f"{f(r.get('gbps'), 3)}{b} | {f(r.get('tflops'), 3)}{b} | {f(r.get('roofline_pct'), 3)}{b} | {f(r.get('max_error'), 2)} | "
          f"{r.get('message', '')[:80]} |")
if any(r.get("counts_bounded") for r in rows):
    print("\n† counts are bounds: reads through data counted at whole extents (bytes at most), "
          "flops of loops bounded by data left out (flops at least)")
acc = sum(r["status"] == "accepted" for r in rows)
print(f"\n{acc}/{len(rows)} accepted")
import math
sp = [r["speedup"] for r in rows if r.get("speedup")]
if sp:
    print(f"geometric mean speedup over {len(sp)} kernels: {math.exp(sum(map(math.log, sp)) / len(sp)):.3g}x")
PY
if [ -n "${RESUME:-}" ]; then
  cp .t2c/secret-seed "$T2C_CACHE_DIR/" && tar czf "$RESUME" -C "$T2C_CACHE_DIR" targets suites secret-seed
fi
