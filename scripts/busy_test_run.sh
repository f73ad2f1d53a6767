#!/usr/bin/env bash
# Run the test suite (or the pytest arguments given) on a busy machine: LOOPS busy loops per core
# (default 4) spin for as long as the tests run and are stopped, by their process ids, at the end.
#   scripts/busy_test_run.sh                         # the default suite, 4 busy loops per core
#   LOOPS=4 scripts/busy_test_run.sh tests/server/test_server_faults.py -k garbage
#   SHARDS=4 scripts/busy_test_run.sh                # the default suite's test files dealt round-robin
#                                                    # to 4 one-process pytest runs at once (a busier
#                                                    # machine still)
set -u
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python}"
SHARDS="${SHARDS:-1}"
loops=$(( ${LOOPS:-4} * $(nproc) ))
pids=()
stop() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; }
trap stop EXIT
for _ in $(seq "$loops"); do
    ( while :; do :; done ) &
    pids+=("$!")
done
echo "busy_test_run: $loops busy loops on $(nproc) cores, $SHARDS pytest process(es); load $(cut -d' ' -f1 /proc/loadavg)" >&2
if [ "$SHARDS" -le 1 ]; then
    "$PYTHON" -m pytest -q "$@"
    status=$?
else
    mapfile -t files < <(find tests -name 'test_*.py' | sort)
    logs=$(mktemp -d)
    shard_pids=()
    for k in $(seq 0 $(( SHARDS - 1 ))); do
        mine=()
        for i in "${!files[@]}"; do
            if [ $(( i % SHARDS )) -eq "$k" ]; then mine+=("${files[$i]}"); fi
        done
        "$PYTHON" -m pytest -q -n 0 "$@" "${mine[@]}" > "$logs/shard-$k.log" 2>&1 &
        shard_pids+=("$!")
    done
    status=0
    for k in "${!shard_pids[@]}"; do
        wait "${shard_pids[$k]}" || status=1
        echo "busy_test_run: shard $k: $(tail -n 1 "$logs/shard-$k.log") (log: $logs/shard-$k.log)" >&2
    done
fi
echo "busy_test_run: pytest exited $status; load $(cut -d' ' -f1 /proc/loadavg)" >&2
exit $status
