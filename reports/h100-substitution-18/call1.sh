source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=8 VARIANTS="default,no substitution,one block 512,one block 256" timeout 220 python3 scripts/options_ab.py trisolv ludcmp \
  corpora/loops/solvers/unit_lower_solve.c corpora/text2cuda/trsv_lower.md \
  2>&1 | tee $OUT/ab_substitution.txt | grep -v "^verify"
KERNELS="trisolv durbin jacobi-1d ludcmp" T2C_KERNEL_LIMIT=100 OUT=/tmp/pb timeout 100 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
CORPUS=corpora/loops KERNELS="unit_lower_solve forward_substitution upper_solve_columns back_substitution" T2C_KERNEL_LIMIT=100 OUT=/tmp/lp timeout 90 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
cat /tmp/pb/table.md /tmp/lp/table.md 2>/dev/null | grep -E "^\| (kernel|trisolv|durbin|jacobi-1d|ludcmp|unit_lower_solve|forward_substitution|upper_solve_columns|back_substitution) " | tee $OUT/batch_table.md
cp /tmp/pb/table.md $OUT/pb_table.md 2>/dev/null; cp /tmp/lp/table.md $OUT/lp_table.md 2>/dev/null; cp /tmp/pb/kernels.txt $OUT/pb_kernels.txt 2>/dev/null
ROUNDS=3 JOBS=8 VARIANTS="default,one block 256,one block 128,one block 64,one block 32" timeout 80 python3 scripts/options_ab.py durbin \
  2>&1 | tee $OUT/ab_durbin.txt | grep -v "^verify"
ROUNDS=3 JOBS=8 VARIANTS="default,time tiles 512 cells 512 threads,time tiles 512 cells 512 threads 64 steps,time tiles 128 cells 128 threads" \
  timeout 60 python3 scripts/options_ab.py jacobi-1d 2>&1 | tee $OUT/ab_jacobi1d.txt | grep -v "^verify"
