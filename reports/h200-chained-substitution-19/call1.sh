source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev | tr '\n' ' ')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt; cat $OUT/env.txt
ROUNDS=3 JOBS=8 VARIANTS="default,blocked substitution,no substitution" timeout 130 python3 scripts/options_ab.py trisolv \
  corpora/loops/solvers/unit_lower_solve.c corpora/loops/solvers/upper_solve_columns.c corpora/text2cuda/trsv_lower.md ludcmp \
  2>&1 | tee $OUT/ab_substitution.txt | grep -v "^verify"
grep "^verify" $OUT/ab_substitution.txt | grep -v accepted
KERNELS="trisolv" T2C_KERNEL_LIMIT=100 OUT=/tmp/pb timeout 50 bash scripts/gpu_polybench.sh LARGE 1 > /dev/null 2>&1
grep -E "^\| (kernel|trisolv) " /tmp/pb/table.md | tee $OUT/batch_table.md; cp /tmp/pb/table.md $OUT/pb_table.md 2>/dev/null
(cd gpu_tmp/subprobe && for f in blocked chain chain_pre; do nvcc -O3 -arch=sm_90 -w -o $f $f.cu & done; wait; for r in 1 2; do for f in blocked chain chain_pre; do timeout 10 ./$f; done; done) 2>&1 | tee $OUT/probe.txt
