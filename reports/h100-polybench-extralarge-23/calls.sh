# PolyBench at EXTRALARGE through the whole ladder on the GPU, in calls that resume each other:
# the cache's stage results and .t2c (the project's secret seed) go out as xl-state.tgz and come
# back in gpu_tmp/ for the next call. Longest references first.
set -u; date
source scripts/gpu_env.sh
export T2C_CACHE_DIR=/tmp/t2c-cache
if [ -f gpu_tmp/xl-state.tgz ]; then
  tar xzf gpu_tmp/xl-state.tgz -C / && mkdir -p .t2c && cp $T2C_CACHE_DIR/secret-seed .t2c/ && echo "resumed: $(ls $T2C_CACHE_DIR/targets/*/ | wc -l) stage results"
fi
K="${K:-floyd-warshall seidel-2d adi covariance lu correlation gramschmidt ludcmp nussinov 3mm syr2k 2mm symm trmm heat-3d fdtd-2d cholesky jacobi-2d syrk gemm doitgen deriche gemver mvt bicg atax gesummv trisolv durbin jacobi-1d}"
KERNELS="$K" T2C_TIMEOUT=1500 T2C_VERIFY_BENCH_REPS=10 T2C_KERNEL_LIMIT=900 T2C_DEADLINE=${DEADLINE:-500} \
  T2C_BATCH_FLAGS="--timeout 300" OUT=/tmp/xl bash scripts/gpu_polybench.sh EXTRALARGE ${PAR:-8} > /tmp/xl.log 2>&1
cp .t2c/secret-seed $T2C_CACHE_DIR/ && tar czf $OUT/xl-state.tgz -C / tmp/t2c-cache/targets tmp/t2c-cache/suites tmp/t2c-cache/secret-seed
ls -la $OUT/xl-state.tgz
for f in table.md kernels.txt batch.log report.tgz ceilings.json env.txt; do cp /tmp/xl/$f $OUT/ 2>/dev/null; done
cat /tmp/xl/table.md; tail -5 /tmp/xl/kernels.txt
# Calls 4 and 5 (tree c1c520b) ran this same script with the state of call 3, then of call 4, in gpu_tmp/.
