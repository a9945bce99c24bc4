#!/usr/bin/env bash
# The side-by-side in shapes side-by-side.sh does not run: Parley over WebSocket and
# through its IRC gateway against InspIRCd (+TCP_NODELAY) and, when ERGO_BIN names an Ergo
# binary and MariaDB is installed, Ergo with its history in MariaDB (side-by-side.sh's
# ergo-mysql), under parley-load's bench mode, each case on a fresh server, in turns, REPS
# times; then each figure's median and Parley's ratio to each peer's (docs/performance.md).
#
#   scripts/shapes.sh 3                          # BIN= a folder with release parley and parley-load
#   ERGO_BIN=/path/to/ergo scripts/shapes.sh 3   # and Ergo on MariaDB beside them
#   SHAPES="4:2 100:20" scripts/shapes.sh 1      # members:senders; default "4:2 20:5 100:20 50:50"
#   RESULTS=/tmp/parley-shapes-….jsonl scripts/shapes.sh   # the table again from a run's results
#
# Per shape: the closed loop (10,000 messages in all) and a fixed 1,000 messages/s
# (5,000). CPU a message is the server's from the first send to the last delivery.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
SHAPES=${SHAPES:-"4:2 20:5 100:20 50:50"}
OUT=${RESULTS:-${OUT:-/tmp/parley-shapes-$(date +%Y%m%d-%H%M%S).jsonl}}
source scripts/bench/servers.sh
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    BIN=${BIN:-$(scripts/release-bin.sh)}
    bench_has inspircd || { echo "shapes.sh: the relay is InspIRCd 3: apt-get install inspircd" >&2; exit 1; }
    : > "$OUT"
fi
PEERS="relay ws irc"
if bench_has ergo-mysql; then PEERS="relay ergo-mysql ws irc"; fi

run() { # SERVER LABEL PARLEY-LOAD-ARGS...: relay, ws and irc are InspIRCd and Parley's two doors
    local server=$1 label=$2 start
    shift 2
    case $server in relay) start=inspircd ;; ergo-mysql) start=ergo-mysql ;; ws) start=parley ;; irc) start=parley-irc ;; esac
    bench_case "$start" "$server $label" "$@"
}

for _ in $(seq 1 "$REPS"); do
    for shape in $SHAPES; do
        members=${shape%:*} senders=${shape#*:}
        for server in $PEERS; do
            run "$server" "$shape closed" --clients "$members" --senders "$senders" --messages 10000
            run "$server" "$shape 1000/s" --clients "$members" --senders "$senders" --messages 5000 --rate 1000
        done
    done
done

python3 - "$OUT" "$SHAPES" <<'EOF'
import sys

sys.path.insert(0, "scripts")
from load_results import figures, load, median, show, summary

runs = load(sys.argv[1])

peers = [("relay", "InspIRCd")]
if any(label.startswith("ergo-mysql ") for label in runs):
    peers.append(("ergo-mysql", "ergo-mysql"))
head = ["shape (members:senders)", "case", "figure"] + [title for _, title in peers]
for door in ("WS", "IRC"):
    head += [f"Parley {door}"] + [f"{door} / {title}" for _, title in peers]
print("| " + " | ".join(head) + " |")
print("|" + " --- |" * len(head))
for shape in sys.argv[2].split():
    for case in ("closed", "1000/s"):
        for name, figure in figures(case):
            theirs = [median(runs, f"{peer} {shape} {case}", figure) for peer, _ in peers]
            cells = [show(value, figure) for value in theirs]
            for server in ("ws", "irc"):
                mine = median(runs, f"{server} {shape} {case}", figure)
                cells.append(show(mine, figure))
                cells += [f"{mine / value:.2f}×" if mine and value else "-" for value in theirs]
            print(f"| {shape} | {case} | {name} | " + " | ".join(cells) + " |")
print(summary(runs, sys.argv[1]))
EOF
