source scripts/gpu_env.sh
echo "tree: $(git rev-parse --short HEAD 2>/dev/null || cat gpu_tmp/rev | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=6 T2C_VERIFY_BENCH_REPS=10 VARIANTS="default,skewed no shuffle" \
  timeout 110 python3 scripts/options_ab.py corpora/loops/solvers/sor_2d.c corpora/loops/solvers/gauss_seidel_1d.c corpora/text2cuda/gauss_seidel2d.md \
  2>&1 | tee $OUT/ab_shuffle.txt | grep -v "^verify"
grep "^verify" $OUT/ab_shuffle.txt | grep -v accepted
T2C_DEADLINE=400 T2C_KERNEL_LIMIT=390 OUT=$OUT/pb timeout 450 bash scripts/gpu_polybench.sh LARGE 8 > $OUT/pb_stdout.txt 2>&1
tail -35 $OUT/pb/table.md
