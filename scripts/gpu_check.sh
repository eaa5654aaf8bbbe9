#!/usr/bin/env bash
# One device run: everything t2c claims about a GPU, logged under $OUT (default /tmp/t2c-gpu).
#   bash scripts/gpu_check.sh [SECTION...]     sections: env probe limits coarsen preload persistent pivots cuda redteam race dropin roofline seeds batch loops torch tests
# Expects the cp312 wheels in .whl/ (make wheels) when t2c's dependencies are missing.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-gpu}; mkdir -p "$OUT"
SECTIONS=${*:-env cuda redteam race dropin roofline seeds batch tests}
export PYTHONUNBUFFERED=1 T2C_CACHE_DIR=/tmp/t2c-cache

source scripts/gpu_env.sh
T2C="python3 -m t2c.cli"
summary() { echo "== $*" | tee -a "$OUT/summary.txt"; }
: > "$OUT/summary.txt"

for s in $SECTIONS; do case $s in
env)
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/env.txt"
  nvcc --version | tail -1 | tee -a "$OUT/env.txt"; nproc | tee -a "$OUT/env.txt"
  ;;
probe)   # the bench timer's start, idle against queued (scripts/timing_probe.cu)
  nvcc -O3 -arch=sm_90 -o /tmp/timing_probe scripts/timing_probe.cu && /tmp/timing_probe | tee "$OUT/timing_probe.txt"
  summary "timing probe: $(grep relu "$OUT/timing_probe.txt" | tr -s ' ' | tr '\n' ';')"
  ;;
coarsen)   # coarsened launches (grid.coarsen) against one index per thread, side by side
  nvcc -O3 -arch=sm_90 -o /tmp/ilp_probe scripts/ilp_probe.cu && /tmp/ilp_probe > "$OUT/ilp_probe.txt"
  VARIANTS="default,one index per thread" ROUNDS=3 python3 scripts/options_ab.py ${T2C_AB_KERNELS:-\
    corpora/text2cuda/relu.md corpora/text2cuda/gelu_bf16.md corpora/loops/livermore/hydro_fragment.c \
    corpora/loops/gpu/upsample_nearest.c jacobi-2d heat-3d} > "$OUT/coarsen_ab.txt" 2>&1
  summary "coarsen A/B: $(grep -c 'one index per thread' "$OUT/coarsen_ab.txt") lines (coarsen_ab.txt)"
  ;;
preload)   # a coarsened thread's reads loaded first (grid.preload) against in statement order
  VARIANTS="default,no preload" ROUNDS=3 python3 scripts/options_ab.py ${T2C_AB_PRELOAD:-\
    corpora/text2cuda/sigmoid.md corpora/text2cuda/silu.md corpora/text2cuda/gelu_bf16.md \
    corpora/text2cuda/axpy_fp16.md corpora/loops/rodinia/black_scholes.c corpora/loops/vectorizer/gather.c} \
    > "$OUT/preload_ab.txt" 2>&1
  summary "preload A/B: $(grep -c 'no preload' "$OUT/preload_ab.txt") lines (preload_ab.txt)"
  ;;
persistent)   # host loops as one cooperative launch (launches.persistent) against a launch per step
  VARIANTS="default,persistent host loops" ROUNDS=3 python3 scripts/options_ab.py ${T2C_AB_PERSISTENT:-\
    jacobi-2d heat-3d fdtd-2d lu corpora/loops/rodinia/hotspot.c} > "$OUT/persistent_ab.txt" 2>&1
  summary "persistent A/B: $(grep -c 'persistent host loops' "$OUT/persistent_ab.txt") lines (persistent_ab.txt)"
  ;;
pivots)   # issue #37 item 4: blocks of pivots (launches.pivot_blocks) against a launch per pivot, side by
          # side, then the factorizations against cuSOLVER at LARGE (scripts/solvers_vs_cusolver.py)
  VARIANTS="default,no pivot blocks,pivot blocks lanes,pivot blocks one cell,pivot blocks of 32,pivot blocks 256 threads" ROUNDS=3 \
    python3 scripts/options_ab.py ${T2C_AB_PIVOTS:-lu cholesky ludcmp corpora/loops/rodinia/lu_inplace.c \
    corpora/text2cuda/lu_nopivot.md} > "$OUT/pivots_ab.txt" 2>&1
  summary "pivot blocks A/B: $(grep -c 'no pivot blocks' "$OUT/pivots_ab.txt") lines (pivots_ab.txt)"
  ROUNDS=3 python3 scripts/solvers_vs_cusolver.py > "$OUT/solvers_vs_cusolver.txt" 2>&1
  summary "solvers vs cuSOLVER: $(grep -c cuSOLVER "$OUT/solvers_vs_cusolver.txt") lines (solvers_vs_cusolver.txt)"
  ;;
limits)   # the measured limits of gathers, atomics, launches and barriers (scripts/limits_probe.cu)
  nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/limits_probe scripts/limits_probe.cu && /tmp/limits_probe | tee "$OUT/limits_probe.txt"
  summary "limits probe: $(wc -l < "$OUT/limits_probe.txt") lines (limits_probe.txt)"
  ;;
cuda)   # the emu test programs on the real GPU, against their expected outputs
  bash tests/cuda/run_on_gpu.sh /tmp/cuda_out > "$OUT/cuda_programs.log" 2>&1
  summary "cuda programs on GPU: $(tail -1 "$OUT/cuda_programs.log")"
  ;;
redteam)
  python3 scripts/redteam_gpu.py > "$OUT/redteam_gpu.log" 2>&1
  summary "red team on GPU: $(tail -1 "$OUT/redteam_gpu.log")"
  ;;
race)   # issue #39: a tiled gemm missing the barrier after its shared-tile copy must be rejected
        # on the GPU and its twin with the barrier accepted; each line says which race check ran
        # (compute-sanitizer where found; the last run turns it off to take the emu fallback)
  echo "compute-sanitizer: $(python3 -c 'from t2c import config; print(config.load().compute_sanitizer)')" \
    > "$OUT/race_gpu.log"
  verdicts=()
  for run in gemm_tiled_race gemm_tiled_war gemm_tiled gemm_tiled_race:off gemm_tiled_war:off; do
    c=${run%%:*}; json="$OUT/race_${run/:/_}.json"; off=; [ "$run" != "$c" ] && off=off
    T2C_COMPUTE_SANITIZER=$off $T2C verify corpora/polybench/linear-algebra/blas/gemm/gemm.c \
      --candidate "tests/candidates/race/$c.cu" --backend gpu --dataset MEDIUM --no-bench --json \
      > "$json" 2>> "$OUT/race_gpu.log"
    rc=$?   # t2c verify: 0 accepted, 1 rejected, 2 usage error
    v=$(python3 -c '
import json, sys
try:
    ev = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(print("no evidence card (see race_gpu.log)"))
verdict = "accepted" if ev["accepted"] else "rejected at %s: %s" % (ev["rung"], ev["reason"])
races = ev.get("races") or {}
check = races.get("race_check") or ("emu seeds %s" % races["emu_seeds"] if "emu_seeds" in races
                                    else "did not run (rejected before the races rung)")
print("%s; race check: %s" % (verdict, check))
' "$json")
    echo "$run: exit $rc, $v" | tee -a "$OUT/race_gpu.log"
    verdicts+=("$run exit $rc")
  done
  expected="gemm_tiled_race exit 1 gemm_tiled_war exit 1 gemm_tiled exit 0 gemm_tiled_race:off exit 1 gemm_tiled_war:off exit 1"
  summary "planted race on GPU ($([ "${verdicts[*]}" = "$expected" ] && echo as expected || echo UNEXPECTED)):" \
          "${verdicts[*]} (race_gpu.log)"
  ;;
dropin)   # issue #32: the drop-in linked into each original program at MEDIUM, against its CPU build;
          # also on a published PolyBench/C folder carried in $T2C_PUBLISHED (never committed)
  python3 scripts/dropin_check.py corpora/polybench MEDIUM --out /tmp/dropin-corpus > "$OUT/dropin_corpus.log" 2>&1
  summary "$(tail -1 "$OUT/dropin_corpus.log") (corpus, dropin_corpus.log)"
  if [ -n "${T2C_PUBLISHED:-}" ] && [ -d "$T2C_PUBLISHED" ]; then
    python3 scripts/dropin_check.py "$T2C_PUBLISHED" MEDIUM --out /tmp/dropin-published > "$OUT/dropin_published.log" 2>&1
    summary "$(tail -1 "$OUT/dropin_published.log") (published suite, dropin_published.log)"
  fi
  ;;
roofline)   # issue #33: the ceilings with the fp64 tensor cores' rate, then the tensor-core
            # kernels whose roofline fraction once exceeded 100% (flops counted alike on both sides)
  python3 -m t2c.runtime.ceilings > "$OUT/ceilings.json" 2> "$OUT/ceilings.log"
  summary "ceilings: $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(", ".join(f"{k} {c[k]:.1f}" for k in ("gbps","fp64_tflops","fp64_mma_tflops","fp32_tflops") if k in c))' "$OUT/ceilings.json")"
  for k in gemm syr2k; do
    src=corpora/polybench/$(grep -E "(^|/)$k/$k\.c$" corpora/polybench/utilities/benchmark_list)
    $T2C gen "$src" -o "/tmp/$k.cu" > /dev/null 2>&1
    $T2C verify "$src" --candidate "/tmp/$k.cu" --backend gpu --dataset LARGE --json > "$OUT/roofline_$k.json" 2>> "$OUT/ceilings.log"
    summary "$k at LARGE: $(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
def find(d, key):
    if isinstance(d, dict):
        if key in d and not isinstance(d[key], dict):
            return d[key]
        for v in d.values():
            r = find(v, key)
            if r is not None:
                return r
med = (ev.get("timings") or {}).get("kernel_ms") or find(ev, "median")
print("accepted" if ev.get("accepted") else "REJECTED", "kernel ms", med, "TF/s", find(ev, "tflops"), "roofline %", find(ev, "roofline_pct"))
' "$OUT/roofline_$k.json")"
  done
  ;;
seeds)
  python3 scripts/candidates_gpu.py > "$OUT/candidates_gpu.log" 2>&1
  summary "correct candidates x seeds on GPU: $(tail -1 "$OUT/candidates_gpu.log")"
  ;;
batch)   # one t2c batch per kernel, merged (see scripts/gpu_polybench.sh)
  OUT="$OUT" bash scripts/gpu_polybench.sh "${T2C_GPU_DATASET:-LARGE}" "${T2C_GPU_PARALLEL:-1}" > "$OUT/batch_summary.log" 2>&1
  summary "polybench batch: $(tail -1 "$OUT/batch_summary.log")"
  ;;
loops)   # corpora/loops the same way (issue #35's report), into $OUT/loops
  mkdir -p "$OUT/loops"
  CORPUS=corpora/loops OUT="$OUT/loops" bash scripts/gpu_polybench.sh "${T2C_GPU_DATASET:-LARGE}" "${T2C_GPU_PARALLEL:-1}" \
    > "$OUT/loops/batch_summary.log" 2>&1
  summary "corpora/loops batch: $(tail -1 "$OUT/loops/batch_summary.log")"
  ;;
torch)   # corpora/text2cuda against PyTorch eager at LARGE (issue #36's report), into $OUT/torch
  python3 scripts/bench_t2c.py "$OUT/torch" --timeout "${T2C_TORCH_TIMEOUT:-60}" > "$OUT/torch.log" 2>&1
  summary "text2cuda vs torch: $(tail -2 "$OUT/torch.log" | head -1)"
  ;;
tests)
  python3 -m pytest -q -m gpu tests > "$OUT/pytest_gpu.log" 2>&1
  summary "pytest -m gpu: $(tail -1 "$OUT/pytest_gpu.log")"
  ;;
esac; done
cat "$OUT/summary.txt"
