#!/usr/bin/env bash
# Profiles the server's send path under the side-by-side bench's load (docs/performance.md):
# starts a fresh release `parley serve` through ../shared/bench/peers.sh, runs the bench's
# load generator with the given arguments, and records the server with perf for 8 s in the
# middle of the run (PERF=0: no perf; STAT=1: context switches instead).
#
#   scripts/profile-send.sh -k 8000                  # closed loop, 20 members, 5 senders
#   scripts/profile-send.sh -k 2000 --rate 1000      # a fixed 1,000 messages/s
#   perf report -i /tmp/parley-send.perf --no-children --sort dso,sym --stdio | head -60
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-../shared/bench}
export PARLEY_BIN=${PARLEY_BIN:-$PWD/.build/release/parley} PARLEY_PORT=${PARLEY_PORT:-7979}
[ -x "$PARLEY_BIN" ] || swift build -c release --product parley
bash "$BENCH/peers.sh" start-parley > /dev/null
pid=$(cat /tmp/parley-peer/server.pid)
trap 'bash "$BENCH/peers.sh" stop-parley > /dev/null' EXIT
/tmp/peers-venv/bin/python "$BENCH/chatload.py" --proto parley --url "ws://127.0.0.1:$PARLEY_PORT/v1/ws" \
    --server-pid "$pid" "$@" > /tmp/parley-send.out 2>&1 &
load=$!
sleep 8
if [ "${STAT:-0}" = 1 ]; then
    perf stat -e context-switches,cpu-migrations,task-clock -p "$pid" -- sleep 4
elif [ "${PERF:-1}" = 1 ]; then
    perf record -F 1999 -g -p "$pid" -o /tmp/parley-send.perf -- sleep 8 > /dev/null 2>&1
fi
wait $load
grep -E '^(acked_per_s|e2e_p(50|99)_ms|ack_p99_ms|server_cpu_s|client_cpu_s|errors|missing) ' /tmp/parley-send.out
curl -s "http://127.0.0.1:$PARLEY_PORT/metrics" > /tmp/parley-send.metrics || true
