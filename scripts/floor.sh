#!/usr/bin/env bash
# Issue 37's floor: what Swift NIO itself reaches under the same IRC load, next to InspIRCd
# (+TCP_NODELAY) and Parley's IRC gateway, in one run, in turns, REPS times; then each
# figure's median and its ratio to the relay's (docs/performance.md, "The floor").
# The floor is Benchmarks/Floor: one IRC channel relayed on one NIO event loop, with no
# store, then with a SQLite commit before each acknowledgement on a writer thread (as
# Parley commits) and on the loop itself. Nothing of Parley's engine is in it.
#
#   scripts/floor.sh 3                       # BIN= a folder with release parley and parley-load
#   RESULTS=/tmp/parley-floor-….jsonl scripts/floor.sh   # the table again from a run's results
#
# Cases as scripts/side-by-side.sh's: 20 members, 5 senders; the closed loop (10,000
# messages) and a fixed 1,000 messages/s (5,000). The load is parley-load's bench mode;
# CPU a message is the server's from the first send to the last delivery.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
OUT=${RESULTS:-${OUT:-/tmp/parley-floor-$(date +%Y%m%d-%H%M%S).jsonl}}
SERVERS="relay floor floor-thread floor-loop parley-irc"
source scripts/bench/servers.sh
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    BIN=${BIN:-$(scripts/release-bin.sh)}
    swift build -c release --package-path Benchmarks/Floor > /dev/null
    bench_has inspircd || { echo "floor.sh: the relay is InspIRCd 3: apt-get install inspircd" >&2; exit 1; }
    : > "$OUT"
fi

run() { # SERVER LABEL PARLEY-LOAD-ARGS...: the relay is InspIRCd
    local server=$1 label=$2
    shift 2
    bench_case "${server/relay/inspircd}" "$server $label" --clients 20 --senders 5 "$@"
}

for _ in $(seq 1 "$REPS"); do
    for server in $SERVERS; do
        run "$server" closed --messages 10000
        run "$server" 1000/s --messages 5000 --rate 1000
    done
done

python3 - "$OUT" "$SERVERS" <<'PY'
import sys

sys.path.insert(0, "scripts")
from load_results import figures, load, median, show, summary

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
