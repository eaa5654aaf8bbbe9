#!/usr/bin/env bash
# Time tiles (timetiles.py) and NAME_device's scratch (scratch.py) on a GPU machine, one device
# call: the drop-in's time in PolyBench's programs for folders of earlier candidates beside `t2c
# gen` now; the options' variants side by side (the loop's previous forms as "no time tiles",
# the stream-ordered pool as "scratch from the pool"); the kernels through `t2c batch` for their
# CPU time in the same run.
#   OUT=/tmp/out DROPIN_VARIANTS="before=gpu_tmp/tt_A pool=gpu_tmp/tt_pool" bash scripts/gpu_time_tiles.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-time-tiles}; mkdir -p "$OUT"
source scripts/gpu_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/env.txt"
if [ -n "${DROPIN_VARIANTS:-}" ]; then
  timeout ${DROPIN_LIMIT:-150} python3 scripts/dropin_time.py corpora/polybench LARGE --only ${DROPIN_KERNELS:-jacobi-1d} \
    $(for v in $DROPIN_VARIANTS; do echo --variant $v; done) --variant after=gen --rounds ${DROPIN_ROUNDS:-5} --cpu-rounds ${CPU_ROUNDS:-2} \
    2>&1 | tail -14 | tee "$OUT/dropin.txt"
fi
KERNELS_AB=${KERNELS_AB:-"jacobi-1d corpora/loops/rodinia/pathfinder.c corpora/text2cuda/heat1d.md"}
VARIANTS=${VARIANTS:-"default,no time tiles,time tiles 512 cells,time tiles 1024 cells"}
ROUNDS=${ROUNDS:-3} JOBS=6 VARIANTS="$VARIANTS" timeout ${AB_LIMIT:-300} python3 scripts/options_ab.py $KERNELS_AB \
  2>&1 | tee "$OUT/options_ab.txt" | grep -v "^verify"
[ -n "${NO_BATCH:-}" ] && exit 0
KERNELS="jacobi-1d" T2C_KERNEL_LIMIT=100 OUT=/tmp/tt-pb bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
CORPUS=corpora/loops KERNELS="pathfinder" T2C_KERNEL_LIMIT=100 OUT=/tmp/tt-loops bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
cat /tmp/tt-pb/table.md /tmp/tt-loops/table.md | grep -E "^\| (kernel|jacobi-1d|pathfinder) " | tee "$OUT/batch_table.md"
