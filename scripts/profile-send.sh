#!/usr/bin/env bash
# Profiles the server's send path under the side-by-side bench's load (docs/performance.md):
# starts a fresh release `parley serve` through the shared bench's peers.sh ($BENCH), runs the bench's
# load generator with the given arguments, and records the server with perf for PERF_FOR s
# (8) from PERF_AFTER s (2) into the run, so give it a -k that lasts longer. PERF=0: no
# perf; STAT=1: context switches instead (STAT_EVENTS: other events); IRC=1: through the
# IRC gateway with the bench's IRC driver, as side-by-side.sh's parley-irc cases. PERF_HZ
# (1999) and PERF_CG (-g) are perf's rate and call graph: PERF_CG="--call-graph
# dwarf,16384" unwinds libraries built without frame pointers, such as libsqlite3.
# The generator is the bench's compiled chatload.c (GEN=py: its Python one).
#
#   scripts/profile-send.sh -k 40000                 # closed loop, 20 members, 5 senders
#   scripts/profile-send.sh -k 4000 --rate 1000      # a fixed 1,000 messages/s
#   perf report -i /tmp/parley-send.perf --no-children --sort dso,sym --stdio | head -60
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:?set BENCH to the shared bench folder (chatload.c, peers.sh): it is kept beside the repository, not in it}
export PARLEY_BIN=${PARLEY_BIN:-$PWD/.build/release/parley} PARLEY_PORT=${PARLEY_PORT:-7979}
[ -x "$PARLEY_BIN" ] || swift build -c release --product parley
CHATLOAD_BIN=${CHATLOAD_BIN:-/tmp/chatload-bin}
if [ ! -x "$CHATLOAD_BIN" ] || [ "$BENCH/chatload.c" -nt "$CHATLOAD_BIN" ]; then
    cc -O2 -o "$CHATLOAD_BIN" "$BENCH/chatload.c" -lm
fi
generator=("$CHATLOAD_BIN")
[ "${GEN:-c}" = py ] && generator=(/tmp/peers-venv/bin/python "$BENCH/chatload.py")
target=(--proto parley --url "ws://127.0.0.1:$PARLEY_PORT/v1/ws")
if [ "${IRC:-0}" = 1 ]; then
    irc_port=${PARLEY_IRC_PORT:-6699}
    export PARLEY_ARGS="${PARLEY_ARGS:-} --irc-port $irc_port --irc-guests"
    target=(--proto irc --url "irc://127.0.0.1:$irc_port")
fi
bash "$BENCH/peers.sh" start-parley > /dev/null
pid=$(cat /tmp/parley-peer/server.pid)
trap 'bash "$BENCH/peers.sh" stop-parley > /dev/null' EXIT
"${generator[@]}" "${target[@]}" --server-pid "$pid" "$@" > /tmp/parley-send.out 2>&1 &
load=$!
sleep "${PERF_AFTER:-2}"
if [ "${STAT:-0}" = 1 ]; then
    perf stat -e "${STAT_EVENTS:-context-switches,cpu-migrations,task-clock}" -p "$pid" -- sleep "${PERF_FOR:-4}"
elif [ "${PERF:-1}" = 1 ]; then
    perf record -F ${PERF_HZ:-1999} ${PERF_CG:--g} -p "$pid" -o /tmp/parley-send.perf -- sleep "${PERF_FOR:-8}" > /dev/null 2>&1
fi
wait $load
grep -E '^(acked_per_s|e2e_p(50|99)_ms|ack_p99_ms|server_cpu_s|client_cpu_s|errors|missing) ' /tmp/parley-send.out
curl -s "http://127.0.0.1:$PARLEY_PORT/metrics" > /tmp/parley-send.metrics || true
