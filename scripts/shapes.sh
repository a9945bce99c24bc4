#!/usr/bin/env bash
# Issue 37's side-by-side in shapes side-by-side.sh does not run: Parley over WebSocket and
# through its IRC gateway against InspIRCd (+TCP_NODELAY), under parley-load's bench mode,
# each case on a fresh server, in turns, REPS times; then each figure's median and Parley's
# ratio to the relay's (docs/performance.md, "Other shapes").
#
#   scripts/shapes.sh 3                          # BIN= a folder with release parley and parley-load
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
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    BIN=${BIN:-$(scripts/release-bin.sh)}
    [ -x /usr/sbin/inspircd ] || { echo "shapes.sh: the relay is InspIRCd 3: apt-get install inspircd" >&2; exit 1; }
    : > "$OUT"
fi
source scripts/bench/servers.sh

run() { # SERVER LABEL PARLEY-LOAD-ARGS...: relay, ws and irc are InspIRCd and Parley's two doors
    local server=$1 label=$2 start
    shift 2
    case $server in relay) start=inspircd ;; ws) start=parley ;; irc) start=parley-irc ;; esac
    bench_case "$start" "$server $label" "$@"
}

for _ in $(seq 1 "$REPS"); do
    for shape in $SHAPES; do
        members=${shape%:*} senders=${shape#*:}
        for server in relay ws irc; do
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

print("| shape (members:senders) | case | figure | InspIRCd | Parley WS | ratio | Parley IRC | ratio |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for shape in sys.argv[2].split():
    for case in ("closed", "1000/s"):
        for name, figure in figures(case):
            relay = median(runs, f"relay {shape} {case}", figure)
            cells = [show(relay, figure)]
            for server in ("ws", "irc"):
                mine = median(runs, f"{server} {shape} {case}", figure)
                cells += [show(mine, figure), f"{mine / relay:.2f}×" if mine and relay else "-"]
            print(f"| {shape} | {case} | {name} | " + " | ".join(cells) + " |")
print(summary(runs, sys.argv[1]))
EOF
