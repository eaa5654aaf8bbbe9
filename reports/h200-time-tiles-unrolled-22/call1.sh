source scripts/gpu_env.sh
echo "tree: $(git rev-parse --short HEAD 2>/dev/null || cat gpu_tmp/rev | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=12 T2C_VERIFY_BENCH_REPS=20 VARIANTS="default,time tiles unrolled,time tiles unrolled 32 threads,time tiles unrolled 64 threads,time tiles unrolled 32 threads 512 cells,time tiles unrolled 32 threads 128 cells,time tiles unrolled 32 threads 512 cells 64 steps" \
  timeout 150 python3 scripts/options_ab.py jacobi-1d corpora/loops/rodinia/pathfinder.c corpora/text2cuda/heat1d.md \
  2>&1 | tee $OUT/ab_1d.txt | grep -v "^verify"
grep "^verify" $OUT/ab_1d.txt | grep -v accepted
ROUNDS=3 JOBS=12 T2C_VERIFY_BENCH_REPS=10 VARIANTS="default,time tiles unrolled,time tiles unrolled 128 threads,time tiles unrolled 512 threads,time tiles unrolled 32x128 plane" \
  timeout 150 python3 scripts/options_ab.py jacobi-2d corpora/loops/rodinia/hotspot.c corpora/text2cuda/jacobi2d.md \
  2>&1 | tee $OUT/ab_2d.txt | grep -v "^verify"
grep "^verify" $OUT/ab_2d.txt | grep -v accepted
ROUNDS=3 JOBS=6 T2C_VERIFY_BENCH_REPS=10 VARIANTS="default,skewed shuffle" \
  timeout 130 python3 scripts/options_ab.py seidel-2d corpora/loops/solvers/sor_2d.c corpora/text2cuda/gauss_seidel2d.md \
  2>&1 | tee $OUT/ab_shuffle.txt | grep -v "^verify"
grep "^verify" $OUT/ab_shuffle.txt | grep -v accepted
KERNELS="jacobi-1d durbin" T2C_KERNEL_LIMIT=50 OUT=/tmp/pb timeout 60 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
grep -E "^\| (kernel|jacobi-1d|durbin) " /tmp/pb/table.md | tee $OUT/pb_batch_table.md
