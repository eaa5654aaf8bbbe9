# Session 6, call 1: the idiom kernels at LARGE through the whole ladder; then the drop-in's own time (item 7).
set -u; date
source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
CORPUS=corpora/loops KERNELS="blas_dgemv_t window_sums walked_rows helper_rows sizes_last_gemv_t memset_colsum packed_tpmv row_table_matmul flagged_axpy pingpong_heat" T2C_VERIFY_BENCH_REPS=20 \
  T2C_KERNEL_LIMIT=240 OUT=/tmp/id timeout 270 bash scripts/gpu_polybench.sh LARGE 10 > /tmp/id.log 2>&1
mkdir -p $OUT/idioms; for f in table.md kernels.txt batch.log report.tgz ceilings.json results.csv; do cp /tmp/id/$f $OUT/idioms/ 2>/dev/null; done
cp /tmp/id.log $OUT/idioms/run.log
cat /tmp/id/table.md; tail -3 /tmp/id.log; date
timeout 280 python3 scripts/dropin_time.py corpora/polybench LARGE --variant after=gen --rounds 3 --cpu-rounds 1 -j 16 > $OUT/dropin.md 2> $OUT/dropin.err
echo "dropin rc=$?"; tail -45 $OUT/dropin.md; tail -5 $OUT/dropin.err; date
