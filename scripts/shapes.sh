#!/usr/bin/env bash
# Issue 37's side-by-side in shapes the bench does not run: Parley over WebSocket and
# through its IRC gateway against InspIRCd (+TCP_NODELAY), under the bench's compiled load
# generator, each case on a fresh server, in turns, REPS times; then each figure's median
# and Parley's ratio to the relay's (figures in docs/performance.md's history in git, "Other shapes").
#
#   PARLEY_BIN=/path/to/release/parley scripts/shapes.sh 3
#   SHAPES="4:2 100:20" scripts/shapes.sh 1      # members:senders; default "4:2 20:5 100:20 50:50"
#   RESULTS=/tmp/parley-shapes-….jsonl scripts/shapes.sh   # the table again from a run's results
#
# Per shape: the closed loop (about 10,000 messages in all) and a fixed 1,000 messages/s
# (10 s). CPU a message is the server's over the whole run (setup included), divided by
# the acknowledged messages, as the bench's ratios are.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:?set BENCH to the shared bench folder (chatload.c, peers.sh): it is kept beside the repository, not in it}
REPS=${1:-3}
SHAPES=${SHAPES:-"4:2 20:5 100:20 50:50"}
export PARLEY_BIN=${PARLEY_BIN:-$PWD/.build/release/parley} PARLEY_PORT=${PARLEY_PORT:-7979}
irc_port=${PARLEY_IRC_PORT:-6699}
# A hundred members register from one address: the admission limits are lifted (the
# bench's 20 fit under them), nothing on the send path.
limits="--max-registrations 0 --max-unsigned-per-address 0 --max-password-checks-per-address 0"
CHATLOAD_BIN=${CHATLOAD_BIN:-/tmp/chatload-bin}
OUT=${RESULTS:-${OUT:-/tmp/parley-shapes-$(date +%Y%m%d-%H%M%S).jsonl}}
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    [ -x "$PARLEY_BIN" ] || swift build -c release --product parley
    if [ ! -x "$CHATLOAD_BIN" ] || [ "$BENCH/chatload.c" -nt "$CHATLOAD_BIN" ]; then
        cc -O2 -o "$CHATLOAD_BIN" "$BENCH/chatload.c" -lm
    fi
    [ -x /usr/sbin/inspircd ] || bash "$BENCH/peers.sh" install-light
    : > "$OUT"
fi

run() { # SERVER LABEL CHATLOAD-ARGS...
    local server=$1 label=$2 pid
    shift 2
    case $server in
        relay)
            bash "$BENCH/peers.sh" start-irc --nodelay > /dev/null
            pid=$(cat /tmp/inspircd/server.pid)
            set -- --proto irc --url irc://127.0.0.1:6667 "$@" ;;
        ws)
            PARLEY_ARGS="$limits" bash "$BENCH/peers.sh" start-parley > /dev/null
            pid=$(cat /tmp/parley-peer/server.pid)
            set -- --proto parley --url "ws://127.0.0.1:$PARLEY_PORT/v1/ws" "$@" ;;
        irc)
            PARLEY_ARGS="$limits --irc-port $irc_port --irc-guests" bash "$BENCH/peers.sh" start-parley > /dev/null
            pid=$(cat /tmp/parley-peer/server.pid)
            set -- --proto irc --url "irc://127.0.0.1:$irc_port" "$@" ;;
    esac
    timeout 600 "$CHATLOAD_BIN" "$@" --server-pid "$pid" --label "$server $label" --json "$OUT" > /dev/null \
        || echo "shapes.sh: $server $label: the generator failed (exit $?); the table shows what it has" >&2
    if [ "$server" = relay ]; then bash "$BENCH/peers.sh" stop-irc > /dev/null; else bash "$BENCH/peers.sh" stop-parley > /dev/null; fi
}

for _ in $(seq 1 "$REPS"); do
    for shape in $SHAPES; do
        members=${shape%:*} senders=${shape#*:}
        for server in relay ws irc; do
            run "$server" "$shape closed" -m "$members" -s "$senders" -k $((10000 / senders))
            run "$server" "$shape 1000/s" -m "$members" -s "$senders" -k $((10000 / senders)) --rate 1000
        done
    done
done

python3 - "$OUT" "$SHAPES" <<'EOF'
import sys

sys.path.insert(0, "scripts")
from chatload_results import figures, load, median, show, summary

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
