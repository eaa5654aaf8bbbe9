#!/usr/bin/env bash
# Where a CUDA process's start goes, alone and with the other GPU starting processes at once:
# per phase (libcuda load + cuInit, primary context, first cudaMalloc, first launch, exit), in ms.
#   bash scripts/start_probe.sh        on a machine with 2 GPUs; env N (starts per GPU, 12)
set -uo pipefail
N=${N:-12}
cat > /tmp/t2c-probe.cu <<'CU'
#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>
static double ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
__global__ void one(double *x) { x[threadIdx.x] = threadIdx.x; }
int main() {
  double t0 = ms();
  int n; cudaGetDeviceCount(&n);             double t1 = ms();   // libcuda load + cuInit
  cudaFree(0);                               double t2 = ms();   // primary context
  double *x; cudaMalloc(&x, 1 << 20);        double t3 = ms();
  one<<<1, 256>>>(x); cudaDeviceSynchronize(); double t4 = ms();
  cudaFree(x);
  printf("%.1f %.1f %.1f %.1f\n", t1 - t0, t2 - t1, t3 - t2, t4 - t3);
  return 0;
}
CU
nvcc -O2 -o /tmp/t2c-probe /tmp/t2c-probe.cu || exit 1
starts() {  # GPU, env...: N starts, each phase's median (ms) and wall per start
  local gpu=$1; shift
  local t0=$EPOCHREALTIME
  for ((i = 0; i < N; i++)); do env CUDA_VISIBLE_DEVICES=$gpu "$@" /tmp/t2c-probe; done > /tmp/probe.$gpu
  local wall=$(awk "BEGIN { printf \"%.0f\", ($EPOCHREALTIME - $t0) * 1000 / $N }")
  python3 -c "import sys, statistics as s; rows=[list(map(float, l.split())) for l in open(sys.argv[1])]; print('init %.0f ctx %.0f malloc %.0f launch %.0f' % tuple(s.median(c) for c in zip(*rows)), end='')" /tmp/probe.$gpu
  echo "; wall $wall ms per process"
}
for envs in "" "CUDA_MODULE_LOADING=EAGER" "CUDA_DEVICE_MAX_CONNECTIONS=1"; do
  echo "== ${envs:-default env}"
  echo "GPU 0 alone:    $(starts 0 $envs)"
  starts 1 $envs > /tmp/probe-both1 & b0=$(starts 0 $envs); wait
  echo "GPU 0 with 1:   $b0"
  echo "GPU 1 with 0:   $(cat /tmp/probe-both1)"
done
