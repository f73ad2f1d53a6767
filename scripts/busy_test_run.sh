#!/usr/bin/env bash
# Run the test suite (or the pytest arguments given) on a busy machine: LOOPS busy loops per core
# (default 4) spin for as long as the tests run and are stopped, by their process ids, at the end.
#   scripts/busy_test_run.sh                         # the default suite, 4 busy loops per core
#   LOOPS=4 scripts/busy_test_run.sh tests/server/test_server_faults.py -k garbage
set -u
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python}"
loops=$(( ${LOOPS:-4} * $(nproc) ))
pids=()
stop() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; }
trap stop EXIT
for _ in $(seq "$loops"); do
    ( while :; do :; done ) &
    pids+=("$!")
done
echo "busy_test_run: $loops busy loops on $(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg)" >&2
"$PYTHON" -m pytest -q "$@"
status=$?
echo "busy_test_run: pytest exited $status; load $(cut -d' ' -f1 /proc/loadavg)" >&2
exit $status
