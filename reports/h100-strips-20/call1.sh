source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=8 T2C_VERIFY_BENCH_REPS=10 VARIANTS="default,no strips,strips not ahead,strips 64 threads,strips 16 wide" \
  timeout 300 python3 scripts/options_ab.py adi deriche correlation corpora/loops/solvers/batched_tridiagonal.c corpora/text2cuda/iir2_rows.md \
  2>&1 | tee $OUT/ab_strips.txt | grep -v "^verify"
grep "^verify" $OUT/ab_strips.txt | grep -v accepted
KERNELS="adi deriche correlation" T2C_KERNEL_LIMIT=135 OUT=/tmp/pb timeout 140 bash scripts/gpu_polybench.sh LARGE 3 > /dev/null 2>&1
grep -E "^\| (kernel|adi|deriche|correlation) " /tmp/pb/table.md | tee $OUT/pb_batch_table.md
CORPUS=corpora/loops KERNELS="batched_tridiagonal" T2C_KERNEL_LIMIT=50 OUT=/tmp/lp timeout 55 bash scripts/gpu_polybench.sh LARGE 1 > /dev/null 2>&1
CORPUS=corpora/text2cuda KERNELS="iir2_rows" T2C_KERNEL_LIMIT=50 OUT=/tmp/sp timeout 55 bash scripts/gpu_polybench.sh LARGE 1 > /dev/null 2>&1
grep -E "^\| (kernel|batched_tridiagonal) " /tmp/lp/table.md | tee $OUT/lp_batch_table.md
grep -E "^\| (kernel|iir2_rows) " /tmp/sp/table.md | tee $OUT/sp_batch_table.md
