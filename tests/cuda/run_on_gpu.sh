#!/usr/bin/env bash
# Compile every CUDA test program, run it on the GPU, compare its stdout with
# the .expected file next to it, print "PASS name" / "FAIL name (why)" per
# program and a final "N passed, M failed" line.
#
# usage: tests/cuda/run_on_gpu.sh [OUTDIR]     (OUTDIR defaults to /tmp/cuda_out)
#
# Programs: tests/cuda/programs/*.cu and the correct twins tests/cuda/bugs/ok_*.cu.
# Actual outputs go to OUTDIR/<name>.out (stderr to OUTDIR/<name>.err, a diff
# against the expectation to OUTDIR/<name>.diff when they differ); binaries and
# compiler logs to OUTDIR/bin and OUTDIR/logs.
#
# Environment knobs:
#   NVCC=nvcc            compiler to use
#   NVCC_ARCH=-arch=native  target flag (e.g. -arch=sm_90 where native is unknown)
#   JOBS=<cores>         parallel compilations
#   RUN_TIMEOUT=60       seconds per program run
#   RUN_BUGS=1           also compile and run bugs/bug_*.cu (output not compared;
#                        exit status and output saved as OUTDIR/<name>.out)
#   SANITIZE=1           with RUN_BUGS=1, also run compute-sanitizer (memcheck,
#                        racecheck, synccheck) on every bug_/ok_ program and save
#                        the logs as OUTDIR/<name>.<tool>.log
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-/tmp/cuda_out}"
NVCC="${NVCC:-nvcc}"
NVCC_ARCH="${NVCC_ARCH:--arch=native}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"
RUN_TIMEOUT="${RUN_TIMEOUT:-60}"
RUN_BUGS="${RUN_BUGS:-0}"
SANITIZE="${SANITIZE:-0}"

mkdir -p "$OUT/bin" "$OUT/logs"

srcs=( "$HERE"/programs/*.cu "$HERE"/bugs/ok_*.cu )
bug_srcs=()
if [ "$RUN_BUGS" = 1 ]; then bug_srcs=( "$HERE"/bugs/bug_*.cu ); fi

compile_one() {
  local src="$1" name
  name="$(basename "$src" .cu)"
  rm -f "$OUT/bin/$name"
  "$NVCC" -O2 $NVCC_ARCH -o "$OUT/bin/$name" "$src" > "$OUT/logs/$name.compile.log" 2>&1
  echo $? > "$OUT/logs/$name.compile.rc"
}
export -f compile_one
export NVCC NVCC_ARCH OUT
printf '%s\n' "${srcs[@]}" "${bug_srcs[@]}" | xargs -P "$JOBS" -I{} bash -c 'compile_one "$1"' _ {}

pass=0
fail=0
for src in "${srcs[@]}"; do
  name="$(basename "$src" .cu)"
  expected="${src%.cu}.expected"
  rm -f "$OUT/$name.out" "$OUT/$name.err" "$OUT/$name.diff"
  if [ "$(cat "$OUT/logs/$name.compile.rc" 2>/dev/null)" != 0 ]; then
    echo "FAIL $name (compile error, see $OUT/logs/$name.compile.log)"
    fail=$((fail + 1))
    continue
  fi
  timeout "$RUN_TIMEOUT" "$OUT/bin/$name" > "$OUT/$name.out" 2> "$OUT/$name.err"
  rc=$?
  if [ ! -f "$expected" ]; then
    echo "FAIL $name (no $(basename "$expected"))"
    fail=$((fail + 1))
  elif [ $rc -ne 0 ]; then
    echo "FAIL $name (exit status $rc)"
    fail=$((fail + 1))
  elif ! cmp -s "$expected" "$OUT/$name.out"; then
    diff "$expected" "$OUT/$name.out" > "$OUT/$name.diff"
    echo "FAIL $name (output differs, see $OUT/$name.diff)"
    fail=$((fail + 1))
  else
    echo "PASS $name"
    pass=$((pass + 1))
  fi
done

if [ "$RUN_BUGS" = 1 ]; then
  for src in "${bug_srcs[@]}"; do
    name="$(basename "$src" .cu)"
    if [ "$(cat "$OUT/logs/$name.compile.rc" 2>/dev/null)" != 0 ]; then
      echo "BUG $name compile error"
      continue
    fi
    timeout "$RUN_TIMEOUT" "$OUT/bin/$name" > "$OUT/$name.out" 2> "$OUT/$name.err"
    echo "BUG $name exit=$? output: $(head -c 200 "$OUT/$name.out" | tr '\n' '|')"
  done
  if [ "$SANITIZE" = 1 ] && command -v compute-sanitizer > /dev/null; then
    for src in "${bug_srcs[@]}" "$HERE"/bugs/ok_*.cu; do
      name="$(basename "$src" .cu)"
      for tool in memcheck racecheck synccheck; do
        timeout "$RUN_TIMEOUT" compute-sanitizer --tool "$tool" "$OUT/bin/$name" \
          > "$OUT/$name.$tool.log" 2>&1
        echo "SANITIZE $name $tool: $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$name.$tool.log")"
      done
    done
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
