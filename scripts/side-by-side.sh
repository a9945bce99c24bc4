#!/usr/bin/env bash
# Parley beside other chat servers under one load generator (parley-load's bench mode), in
# turns, REPS times, then each figure's median and its ratio to the peers' (scripts/side-by-side.py).
#
#   scripts/side-by-side.sh [REPS]                 # default 3
#   ERGO_BIN=/path/to/ergo scripts/side-by-side.sh 3
#   RESULTS=/tmp/side-by-side-….jsonl scripts/side-by-side.sh   # the table again from a run's results
#
# Servers, each fresh for every case (a new data folder, database or process):
#   parley       Parley's WebSocket (release build; BIN= a folder with parley and parley-load)
#   parley-irc   the same server through its IRC gateway, members as guests
#   inspircd     InspIRCd 3, a C++ relay that stores nothing: the physical reference. When
#                /usr/sbin/inspircd is installed (apt-get install inspircd); TCP_NODELAY is forced
#                on its sockets (scripts/bench/nodelay.c), without which it stalls on delayed ACKs.
#   ergo         Ergo, an IRC server that keeps channel history (in memory, 2,048 lines), when
#                ERGO_BIN names its binary (build it from github.com/ergochat/ergo with Go).
#   ergo-mysql   the same with its history in MariaDB (innodb_flush_log_at_trx_commit=2, the
#                durability of SQLite's synchronous=NORMAL), when mariadbd is installed too; its
#                CPU and memory are Ergo's plus MariaDB's.
# SERVERS="parley parley-irc" picks some; ONLY=REGEX picks cases by label.
#
# Cases: one group of MEMBERS (20) members, all connected and receiving; SENDERS (5) of them
# send. closed-loop: 10,000 messages, each sender sending when its last send is acknowledged
# (Parley: the reply, after the commit; IRC: the echo of its own PRIVMSG). rate 1000/s: 5,000
# messages on a fixed schedule; rate 50/s: 250. Latency (e2e) is from send (or scheduled) time to
# each other member's receipt, one process, one clock; ack, to the sender's acknowledgement.
# Server CPU is counted from the first send to the last delivery, so setup (sign-ups, joins) is
# not in it.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
MEMBERS=${MEMBERS:-20}
SENDERS=${SENDERS:-5}
OUT=${RESULTS:-${OUT:-/tmp/side-by-side-$(date +%Y%m%d-%H%M%S).jsonl}}
cases=("closed-loop|--messages 10000" "rate 1000/s|--messages 5000 --rate 1000" "rate 50/s|--messages 250 --rate 50")

source scripts/bench/servers.sh

if [ -z "${SERVERS:-}" ]; then
    SERVERS=""
    for server in inspircd parley parley-irc ergo ergo-mysql; do
        if bench_has "$server"; then SERVERS="$SERVERS $server"; fi
    done
fi
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    BIN=${BIN:-$(scripts/release-bin.sh)}
    : > "$OUT"
fi

for rep in $(seq "$REPS"); do
    for server in $SERVERS; do
        for case in "${cases[@]}"; do
            label="$server ${case%%|*}"
            [[ $label =~ ${ONLY:-.} ]] || continue
            echo "== $label (run $rep of $REPS)" >&2
            # shellcheck disable=SC2086 # the case's arguments are words
            bench_case "$server" "$label" --clients "$MEMBERS" --senders "$SENDERS" ${case#*|}
        done
    done
done
echo "results: $OUT" >&2
python3 scripts/side-by-side.py "$OUT"
