#!/usr/bin/env bash
# Issue 37's floor: what Swift NIO itself reaches under the bench's IRC driver, next to
# InspIRCd (+TCP_NODELAY) and Parley's IRC gateway, in one run, in turns, REPS times; then
# each figure's median and its ratio to the relay's (docs/performance.md's history in git, "The floor").
# The floor is Benchmarks/Floor: one IRC channel relayed on one NIO event loop, with no
# store, then with a SQLite commit before each acknowledgement on a writer thread (as
# Parley commits) and on the loop itself. Nothing of Parley's engine is in it.
#
#   PARLEY_BIN=/path/to/release/parley scripts/floor.sh 3
#   RESULTS=/tmp/parley-floor-….jsonl scripts/floor.sh   # the table again from a run's results
#
# Cases as the bench's: the closed loop (20 members, 5 senders, 10,000 messages) and a
# fixed 1,000 messages/s. CPU a message is the server's over the whole run (setup
# included), divided by the acknowledged messages, as the bench's ratios are.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:?set BENCH to the shared bench folder (chatload.c, peers.sh): it is kept beside the repository, not in it}
REPS=${1:-3}
export PARLEY_BIN=${PARLEY_BIN:-$PWD/.build/release/parley} PARLEY_PORT=${PARLEY_PORT:-7979}
irc_port=${PARLEY_IRC_PORT:-6699}
floor_port=${FLOOR_PORT:-6670}
CHATLOAD_BIN=${CHATLOAD_BIN:-/tmp/chatload-bin}
FLOOR_BIN=Benchmarks/Floor/.build/release/floor
OUT=${RESULTS:-${OUT:-/tmp/parley-floor-$(date +%Y%m%d-%H%M%S).jsonl}}
SERVERS="relay floor floor-thread floor-loop parley-irc"
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    [ -x "$PARLEY_BIN" ] || swift build -c release --product parley
    swift build -c release --package-path Benchmarks/Floor > /dev/null
    if [ ! -x "$CHATLOAD_BIN" ] || [ "$BENCH/chatload.c" -nt "$CHATLOAD_BIN" ]; then
        cc -O2 -o "$CHATLOAD_BIN" "$BENCH/chatload.c" -lm
    fi
    [ -x /usr/sbin/inspircd ] || bash "$BENCH/peers.sh" install-light
    : > "$OUT"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # SERVER LABEL CHATLOAD-ARGS...
    local server=$1 label=$2 pid="" store=()
    shift 2
    case $server in
        relay)
            bash "$BENCH/peers.sh" start-irc --nodelay > /dev/null
            pid=$(cat /tmp/inspircd/server.pid)
            set -- --url irc://127.0.0.1:6667 "$@" ;;
        floor*)
            rm -f "$work"/floor.db*
            [ "$server" = floor-thread ] && store=(--store "$work/floor.db" --commit-on thread)
            [ "$server" = floor-loop ] && store=(--store "$work/floor.db" --commit-on loop)
            "$FLOOR_BIN" --port "$floor_port" "${store[@]}" > "$work/floor.log" 2>&1 &
            pid=$!
            for _ in $(seq 50); do grep -q listening "$work/floor.log" && break; sleep 0.1; done
            set -- --url "irc://127.0.0.1:$floor_port" "$@" ;;
        parley-irc)
            PARLEY_ARGS="--irc-port $irc_port --irc-guests" bash "$BENCH/peers.sh" start-parley > /dev/null
            pid=$(cat /tmp/parley-peer/server.pid)
            set -- --url "irc://127.0.0.1:$irc_port" "$@" ;;
    esac
    timeout 600 "$CHATLOAD_BIN" --proto irc "$@" --server-pid "$pid" --label "$server $label" --json "$OUT" > /dev/null \
        || echo "floor.sh: $server $label: the generator failed (exit $?); the table shows what it has" >&2
    case $server in
        relay) bash "$BENCH/peers.sh" stop-irc > /dev/null ;;
        floor*) kill "$pid" && wait "$pid" 2> /dev/null || true ;;
        parley-irc) bash "$BENCH/peers.sh" stop-parley > /dev/null ;;
    esac
}

for _ in $(seq 1 "$REPS"); do
    for server in $SERVERS; do
        run "$server" closed -k 2000
        run "$server" 1000/s -k 2000 --rate 1000
    done
done

python3 - "$OUT" "$SERVERS" <<'PY'
import sys

sys.path.insert(0, "scripts")
from chatload_results import figures, load, median, show, summary

runs = load(sys.argv[1])
servers = sys.argv[2].split()
names = {"relay": "InspIRCd", "floor": "NIO floor", "floor-thread": "floor + commit (writer thread)",
         "floor-loop": "floor + commit (on the loop)", "parley-irc": "Parley IRC gateway"}
print("| case | figure | " + " | ".join(names[s] for s in servers) + " |")
print("| --- | --- | " + " | ".join("---" for _ in servers) + " |")
for case in ("closed", "1000/s"):
    for name, figure in figures(case):
        relay = median(runs, f"relay {case}", figure)
        cells = []
        for server in servers:
            mine = median(runs, f"{server} {case}", figure)
            cell = show(mine, figure)
            if server != "relay" and mine and relay:
                cell += f" ({mine / relay:.2f}×)"
            cells.append(cell)
        print(f"| {case} | {name} | " + " | ".join(cells) + " |")
print(summary(runs, sys.argv[1]))
PY
