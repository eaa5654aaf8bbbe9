source scripts/gpu_env.sh
echo "tree: $(git rev-parse --short HEAD 2>/dev/null || cat gpu_tmp/rev | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=12 T2C_VERIFY_BENCH_REPS=20 VARIANTS="default,time tiles 512 cells 64 steps,time tiles 1024 cells 128 steps,time tiles 512 cells 512 threads 64 steps,time tiles 128 cells 128 threads,time tiles not unrolled" \
  timeout 200 python3 scripts/options_ab.py jacobi-1d corpora/loops/rodinia/pathfinder.c corpora/text2cuda/heat1d.md \
  2>&1 | tee $OUT/ab_1d_steps.txt | grep -v "^verify"
grep "^verify" $OUT/ab_1d_steps.txt | grep -v accepted
KERNELS="jacobi-1d trisolv durbin" T2C_KERNEL_LIMIT=50 OUT=/tmp/pb timeout 60 bash scripts/gpu_polybench.sh LARGE 3 > /dev/null 2>&1
grep -E "^\| (kernel|jacobi-1d|trisolv|durbin) " /tmp/pb/table.md | tee $OUT/pb_batch_table.md
