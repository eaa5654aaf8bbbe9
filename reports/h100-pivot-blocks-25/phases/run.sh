#!/usr/bin/env bash
# lu's pivot-block phases at n = 2000 under ncu (kernel durations), blocks of 16 and 32.
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/env.txt
for s in 16 32; do
  nvcc -O3 -arch=sm_90 -std=c++17 -DCANDIDATE="\"lu$s.cu\"" -o /tmp/lu$s main.cu > /dev/null 2>&1 || echo "build $s failed"
  timeout 80 ncu --clock-control none --metrics gpu__time_duration.sum --csv /tmp/lu$s > $OUT/ncu$s.csv 2> $OUT/ncu$s.err
  echo "== blocks of $s (rc $?)"; python3 sum.py $OUT/ncu$s.csv | tee $OUT/phases$s.txt
done
