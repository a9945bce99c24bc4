#!/usr/bin/env bash
# Profiles the server's send path under load (docs/performance.md): starts a fresh release
# `parley serve` (scripts/bench/servers.sh), runs parley-load's bench mode at it with the
# given arguments (after 20 members and 5 senders), and records the server with perf for
# PERF_FOR s (8) from PERF_AFTER s (2) into the run, so give it a --messages that lasts
# longer. PERF=0: no perf; STAT=1: context switches instead (STAT_EVENTS: other events);
# IRC=1: through the IRC gateway, as side-by-side.sh's parley-irc cases. PERF_HZ (1999) and
# PERF_CG (-g) are perf's rate and call graph: PERF_CG="--call-graph dwarf,16384" unwinds
# libraries built without frame pointers, such as libsqlite3. BIN: a folder with release
# parley and parley-load (default: built by scripts/release-bin.sh).
#
#   scripts/profile-send.sh --messages 40000                 # closed loop
#   scripts/profile-send.sh --messages 4000 --rate 1000      # a fixed 1,000 messages/s
#   perf report -i /tmp/parley-send.perf --no-children --sort dso,sym --stdio | head -60
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$(scripts/release-bin.sh)}
OUT=/tmp/parley-send.jsonl
: > "$OUT"
source scripts/bench/servers.sh
server=parley
[ "${IRC:-0}" = 1 ] && server=parley-irc
bench_start "$server"
pid=$server_pids
bench_load "$server" --clients 20 --senders 5 "$@" &
load=$!
sleep "${PERF_AFTER:-2}"
if [ "${STAT:-0}" = 1 ]; then
    perf stat -e "${STAT_EVENTS:-context-switches,cpu-migrations,task-clock}" -p "$pid" -- sleep "${PERF_FOR:-4}"
elif [ "${PERF:-1}" = 1 ]; then
    perf record -F ${PERF_HZ:-1999} ${PERF_CG:--g} -p "$pid" -o /tmp/parley-send.perf -- sleep "${PERF_FOR:-8}" > /dev/null 2>&1
fi
wait $load
cat "$OUT"
curl -s "http://127.0.0.1:$bench_port/metrics" > /tmp/parley-send.metrics || true
