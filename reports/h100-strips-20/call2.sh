source scripts/gpu_env.sh
ROUNDS=3 JOBS=8 T2C_VERIFY_BENCH_REPS=10 VARIANTS="default,no strips,strips not ahead,strips 64 threads,strips 16 wide" \
  timeout 200 python3 scripts/options_ab.py correlation corpora/loops/solvers/batched_tridiagonal.c corpora/text2cuda/iir2_rows.md \
  2>&1 | tee $OUT/ab_strips2.txt | grep -v "^verify"
grep "^verify" $OUT/ab_strips2.txt | grep -v accepted
