# report 12, call 2: the nine tensor-core kernels verified in parallel, then timed one at a time;
# cuBLAS; evolve on four; loads first side by side
source scripts/gpu_env.sh
R=/tmp/r12; rm -rf $R /tmp/t2c-cache; mkdir -p $R
KERNELS="gemm 2mm 3mm syrk syr2k symm trmm covariance correlation"
KERNELS="$KERNELS" OUT=$R T2C_VERIFY_BENCH_REPS=10 T2C_KERNEL_LIMIT=150 T2C_DEADLINE=150 T2C_BATCH_FLAGS="--timeout 150" \
  bash scripts/gpu_polybench.sh LARGE 8 > $R/corpus.log 2>&1
cp $R/table.md $OUT/table-parallel.md
KERNELS="$KERNELS" OUT=$R T2C_VERIFY_BENCH_REPS=20 T2C_KERNEL_LIMIT=40 T2C_DEADLINE=90 T2C_BATCH_FLAGS="--timeout 40 --rerun bench" \
  bash scripts/gpu_polybench.sh LARGE 1 >> $R/corpus.log 2>&1
cp $R/table.md $R/kernels.txt $R/corpus.log $OUT/
python3 scripts/cublas_rates.py $OUT/table.md > $OUT/cublas.txt 2>&1
export T2C_CACHE_DIR=/tmp/evo-cache; rm -rf /tmp/evo /tmp/evo-cache
timeout 130 python3 -m t2c.cli batch corpora/polybench --only syrk --only syr2k --only symm --only trmm --backend gpu \
  --dataset LARGE --gpu-jobs 1 -j 4 --evolve --evolve-candidates 4 --evolve-seconds 70 --report-dir /tmp/evo > $OUT/evolve-batch.txt 2>&1
tar czf $OUT/evolve-lineage.tgz -C /tmp evo 2>/dev/null
unset T2C_CACHE_DIR
ROUNDS=3 VARIANTS="loads in order,default" python3 scripts/options_ab.py symm gemm syrk trmm covariance > $OUT/loads-ab.txt 2>&1
tail -14 $OUT/table.md; tail -12 $OUT/cublas.txt; tail -6 $OUT/evolve-batch.txt; tail -12 $OUT/loads-ab.txt
