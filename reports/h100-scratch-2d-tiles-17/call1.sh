source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt
cat $OUT/env.txt
timeout 150 python3 scripts/dropin_time.py corpora/polybench LARGE --only jacobi-1d durbin trmm doitgen \
  --variant before=gpu_tmp/tt_A --variant pool=gpu_tmp/tt_now --variant malloc=gpu_tmp/tt_malloc --variant entries=gen --rounds 5 --cpu-rounds 2 2>&1 | tail -9 | tee $OUT/dropin.txt
ROUNDS=3 JOBS=8 VARIANTS="default,no time tiles,time tiles 2 steps,time tiles 4 steps,time tiles 32x64 plane,time tiles 24x128 plane,time tiles 24x128 plane 4 steps" \
  timeout 240 python3 scripts/options_ab.py jacobi-2d corpora/loops/rodinia/hotspot.c 2>&1 | tee $OUT/options_ab_2d.txt | grep -v "^verify"
ROUNDS=3 JOBS=6 VARIANTS="default,scratch by cudaMalloc" timeout 100 python3 scripts/options_ab.py trmm doitgen 2>&1 | tee $OUT/options_ab_scratch.txt | grep -v "^verify"
KERNELS="jacobi-2d" T2C_KERNEL_LIMIT=100 OUT=/tmp/tt-pb timeout 120 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
CORPUS=corpora/loops KERNELS="hotspot" T2C_KERNEL_LIMIT=100 OUT=/tmp/tt-loops timeout 100 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
cat /tmp/tt-pb/table.md /tmp/tt-loops/table.md 2>/dev/null | grep -E "^\| (kernel|jacobi-2d|hotspot) " | tee $OUT/batch_table.md
