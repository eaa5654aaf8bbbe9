#!/usr/bin/env bash
# Builds scripts/tail_probe.cu with the committed candidates it times (tests/golden) and runs it.
set -eu
cd "$(dirname "$0")/.."
B=${TMPDIR:-/tmp}/tail_probe; mkdir -p "$B"
objs=()
for g in idioms.grid_argmin idioms.last_peak_column gpu.multi_margin_loss gpu.cross_entropy \
         rodinia.kmeans_assign vectorizer.max_running_sum vectorizer.first_index idioms.row_tree_sums; do
  nvcc -O3 -arch=${ARCH:-sm_90} -w -c "tests/golden/loops/$g.cu" -o "$B/$g.o"; objs+=("$B/$g.o")
done
# Variants of committed candidates, renamed (PREFIX_device): the golden before the last change to it
# (OLD: a git revision, or a folder of golden files by their names there) and edits of the kept-row cross_entropy kernel, each one change.
OLD=${OLD:-HEAD}
variant() {  # NAME WORD < SOURCE: SOURCE with WORD renamed NAME, compiled and linked
  sed "s/$2/$1/g" > "$B/$1.cu" && nvcc -O3 -arch=${ARCH:-sm_90} -w -c "$B/$1.cu" -o "$B/$1.o" && objs+=("$B/$1.o")
}
old() { if [ -d "$OLD" ]; then cat "$OLD/$1"; else git show "$OLD:tests/golden/loops/$1"; fi; }
variant km_old kmeans_assign < <(old rodinia.kmeans_assign.cu)
variant mm_old multi_margin_loss < <(old gpu.multi_margin_loss.cu)
X=tests/golden/loops/gpu.cross_entropy.cu
# no barrier after a fold's combine (each fold has its own shared array; the row's last barrier stays)
variant xe_nosync cross_entropy < <(python3 - "$X" <<'PY'
import sys; s = open(sys.argv[1]).read()
for a in ("m = fmax(m, poly_part_m);\n      __syncthreads();\n", "s = s + poly_part_s;\n      __syncthreads();\n"):
    s = s.replace(a, a.replace("      __syncthreads();\n", ""), 1)
print(s)
PY
)
variant xe_min10 cross_entropy < <(sed 's/__launch_bounds__(128)/__launch_bounds__(128, 10)/' "$X")
variant xe_const cross_entropy < <(sed 's/(int)blockDim.x/128/g; s/(int)(blockDim.x \/ 32)/4/g' "$X")
K=tests/golden/loops/rodinia.kmeans_assign.cu
# kmeans_assign: the compiler told d == 16; the centres copied to shared memory once per block; both
assume='s/^  const int p = (int)(blockIdx.x \* blockDim.x + threadIdx.x);/&\n  __builtin_assume(d == 16);/'
centres='s/^  const int p = (int)(blockIdx.x \* blockDim.x + threadIdx.x);/&\n  __shared__ double poly_ctr[1024];\n  for (int e = threadIdx.x; e < nc * d \&\& e < 1024; e += blockDim.x) poly_ctr[e] = ctr[e];\n  __syncthreads();/; s/ ctr\[(c \* d) + k\]/ poly_ctr[(c * d) + k]/g'
variant km_assume kmeans_assign < <(sed "$assume" "$K")
variant km_centres kmeans_assign < <(sed "$centres" "$K")
variant km_both kmeans_assign < <(sed "$assume; $centres" "$K")
R=tests/golden/loops/idioms.row_tree_sums.cu
# row_tree_sums: the sweep's block (rows x lanes) other than the default 16 x 64
sweep() { sed "s/blockIdx.x \* 16 + threadIdx.y/blockIdx.x * $1 + threadIdx.y/; s/j += 64)/j += $2)/; s/64 lanes per i/$2 lanes per i/; s/poly_blocks(extent, 16), dim3(64, 16)/poly_blocks(extent, $1), dim3($2, $1)/" "$R"; }
# LP: candidate files of last_peak_column (hand edits of a form), each timed under its file name
: > "$B/lp_variants.h"
for f in ${LP:-}; do
  n=lp_$(basename "$f" .cu); variant "$n" last_peak_column < "$f"; echo "LP($n, \"$f\")" >> "$B/lp_variants.h"
done
for v in 1x1024 1x512 1x256 2x512 4x256; do variant "rts_$v" row_tree_sums < <(sweep "${v%x*}" "${v#*x}"); done
nvcc -O3 -arch=${ARCH:-sm_90} -I"$B" -o "$B/tail_probe" scripts/tail_probe.cu "${objs[@]}"
[ -n "${NORUN:-}" ] || "$B/tail_probe"
