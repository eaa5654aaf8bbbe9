#!/usr/bin/env bash
# Builds scripts/tail_probe.cu with the committed candidates it times (tests/golden) and runs it.
set -eu
cd "$(dirname "$0")/.."
B=${TMPDIR:-/tmp}/tail_probe; mkdir -p "$B"
objs=()
for g in idioms.grid_argmin idioms.last_peak_column gpu.multi_margin_loss gpu.cross_entropy \
         rodinia.kmeans_assign vectorizer.max_running_sum vectorizer.first_index; do
  nvcc -O3 -arch=${ARCH:-sm_90} -w -c "tests/golden/loops/$g.cu" -o "$B/$g.o"; objs+=("$B/$g.o")
done
nvcc -O3 -arch=${ARCH:-sm_90} -o "$B/tail_probe" scripts/tail_probe.cu "${objs[@]}"
"$B/tail_probe"
