#!/usr/bin/env bash
# Runs a command (default: `make test`) while a busy loop per core keeps every core loaded, the
# way a shared CI runner's other jobs do: the suite must pass there too, with no test depending on timing.
#     scripts/loaded_test.sh [COMMAND ...]        STRESS_PROCS=N sets the number of loops (nproc)
set -uo pipefail
[ $# -gt 0 ] || set -- make test
procs=${STRESS_PROCS:-$(nproc)}
# One other job, like `stress --cpu N`: N busy loops in one session of their own (under autogroup
# scheduling a session weighs as one job, as another CI job on the runner would).
setsid bash -c 'for _ in $(seq '"$procs"'); do (while :; do :; done) & done; wait' &
stress=$!
trap 'kill -- -$stress 2>/dev/null' EXIT
start=$(date +%s)
"$@"
rc=$?
echo "loaded run: '$*' took $(( $(date +%s) - start )) s beside $procs busy loop(s) on $(nproc) core(s); exit $rc"
exit $rc
