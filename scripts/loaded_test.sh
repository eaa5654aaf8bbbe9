#!/usr/bin/env bash
# Runs a command (default: `make test`) while a busy loop per core keeps every core loaded, the
# way a shared CI runner's other jobs do: the suite must pass there too, with no test depending on timing.
#     scripts/loaded_test.sh [COMMAND ...]        STRESS_PROCS=N sets the number of loops (nproc)
set -uo pipefail
[ $# -gt 0 ] || set -- make test
procs=${STRESS_PROCS:-$(nproc)}
pids=()
for _ in $(seq "$procs"); do
    # each loop in a session of its own: under autogroup scheduling it weighs as much as a job
    setsid bash -c 'while :; do :; done' &
    pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
start=$(date +%s)
"$@"
rc=$?
echo "loaded run: '$*' took $(( $(date +%s) - start )) s beside $procs busy loop(s) on $(nproc) core(s); exit $rc"
exit $rc
