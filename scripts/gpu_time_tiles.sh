#!/usr/bin/env bash
# Time tiles (timetiles.py) on a GPU machine, one device call: the option's variants side by side
# (the loop's previous forms as "no time tiles"), the kernels through `t2c batch` for their CPU
# time in the same run, and jacobi-1d's drop-in before and after (OLD: a folder of the previous
# candidates, KERNEL.cu).
#   OUT=/tmp/out OLD=gpu_tmp/tt_A bash scripts/gpu_time_tiles.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/t2c-time-tiles}; mkdir -p "$OUT"
source scripts/gpu_env.sh
KERNELS_AB=${KERNELS_AB:-"jacobi-1d corpora/loops/rodinia/pathfinder.c corpora/text2cuda/heat1d.md"}
VARIANTS=${VARIANTS:-"default,no time tiles,time tiles 256 cells,time tiles 1024 cells,time tiles 8 steps,time tiles 128 steps,time tiles 512 threads,time tiles 256 cells 128 threads"}
ROUNDS=${ROUNDS:-3} JOBS=4 VARIANTS="$VARIANTS" timeout ${AB_LIMIT:-300} python3 scripts/options_ab.py $KERNELS_AB \
  2>&1 | tee "$OUT/time_tiles_ab.txt"
KERNELS="jacobi-1d" T2C_KERNEL_LIMIT=120 OUT=/tmp/tt-pb bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
CORPUS=corpora/loops KERNELS="pathfinder" T2C_KERNEL_LIMIT=120 OUT=/tmp/tt-loops bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
cat /tmp/tt-pb/table.md /tmp/tt-loops/table.md | grep -E "^\| (kernel|jacobi-1d|pathfinder) " | tee "$OUT/batch_table.md"
cp /tmp/tt-pb/env.txt "$OUT/env.txt"
if [ -n "${OLD:-}" ]; then
  timeout ${DROPIN_LIMIT:-120} python3 scripts/dropin_time.py corpora/polybench LARGE --only jacobi-1d \
    --variant before="$OLD" --variant after=gen --rounds 5 --cpu-rounds 3 2>&1 | tail -12 | tee "$OUT/dropin.txt"
fi
