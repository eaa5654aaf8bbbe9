source scripts/gpu_env.sh
echo "tree: $(cat gpu_tmp/rev)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt
cat $OUT/env.txt
ROUNDS=3 JOBS=8 VARIANTS="default,no time tiles,time tiles 48x64 plane,time tiles 2 steps" \
  timeout 200 python3 scripts/options_ab.py jacobi-2d corpora/loops/rodinia/hotspot.c corpora/text2cuda/jacobi2d.md 2>&1 | tee $OUT/options_ab.txt | grep -v "^verify"
ROUNDS=3 JOBS=8 VARIANTS="default,no time tiles,time tiles 128 cells 128 threads,time tiles 256 cells 128 threads" \
  timeout 150 python3 scripts/options_ab.py jacobi-1d corpora/loops/rodinia/pathfinder.c corpora/text2cuda/heat1d.md 2>&1 | tee $OUT/options_ab_1d.txt | grep -v "^verify"
DATASET=EXTRALARGE ROUNDS=3 JOBS=4 VARIANTS="default,no time tiles" \
  timeout 150 python3 scripts/options_ab.py jacobi-2d corpora/loops/rodinia/hotspot.c 2>&1 | tee $OUT/options_ab_xl.txt | grep -v "^verify"
KERNELS="jacobi-2d jacobi-1d" T2C_KERNEL_LIMIT=100 OUT=/tmp/tt-pb timeout 80 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
CORPUS=corpora/loops KERNELS="hotspot" T2C_KERNEL_LIMIT=100 OUT=/tmp/tt-loops timeout 60 bash scripts/gpu_polybench.sh LARGE 2 > /dev/null 2>&1
cat /tmp/tt-pb/table.md /tmp/tt-loops/table.md 2>/dev/null | grep -E "^\| (kernel|jacobi-2d|jacobi-1d|hotspot) " | tee $OUT/batch_table.md
