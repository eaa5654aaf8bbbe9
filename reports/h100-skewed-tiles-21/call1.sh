source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=8 T2C_VERIFY_BENCH_REPS=10 VARIANTS="default,no skewed tiles,skewed no window,skewed walk 32,skewed walk 128,skewed outer 2,skewed outer 8,skewed 64 lanes" \
  timeout 380 python3 scripts/options_ab.py seidel-2d corpora/loops/solvers/sor_2d.c corpora/loops/solvers/gauss_seidel_1d.c corpora/text2cuda/gauss_seidel2d.md \
  2>&1 | tee $OUT/ab_skewed.txt | grep -v "^verify"
grep "^verify" $OUT/ab_skewed.txt | grep -v accepted
KERNELS="seidel-2d" T2C_KERNEL_LIMIT=80 OUT=/tmp/pb timeout 85 bash scripts/gpu_polybench.sh LARGE 1 > /dev/null 2>&1
grep -E "^\| (kernel|seidel-2d) " /tmp/pb/table.md | tee $OUT/pb_batch_table.md
CORPUS=corpora/loops KERNELS="sor_2d gauss_seidel_1d" T2C_KERNEL_LIMIT=60 OUT=/tmp/lp timeout 65 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
CORPUS=corpora/text2cuda KERNELS="gauss_seidel2d" T2C_KERNEL_LIMIT=60 OUT=/tmp/sp timeout 65 bash scripts/gpu_polybench.sh LARGE 1 > /dev/null 2>&1
grep -E "^\| (kernel|sor_2d|gauss_seidel_1d) " /tmp/lp/table.md | tee $OUT/lp_batch_table.md
grep -E "^\| (kernel|gauss_seidel2d) " /tmp/sp/table.md | tee $OUT/sp_batch_table.md
