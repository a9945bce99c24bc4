#!/usr/bin/env bash
# A crowd on one node, for docs/performance.md: a release `parley serve` on a fresh data
# folder, SESSIONS idle signed-in sessions held by HOLDERS `parley-load --crowd`
# processes, each from its own loopback address (127.0.0.2, 127.0.0.3, …), GROUP of them
# members of one public group. While they are held it reports the server's resident
# memory per session, then a `parley-load --probe` process measures newcomers' sign-in
# and first send, and messages to the large group reaching every member.
#
#   scripts/crowd.sh                         # builds release binaries into .build-release
#   BIN=path/to/release SESSIONS=19000 scripts/crowd.sh
#
# The server runs with the default per-address limits (the holders sign up a few at a
# time), and with PARLEY_BCRYPT_COST=4 so that 19,000 sign-ups take a minute, not an
# hour: a newcomer's sign-in at the default cost adds bcrypt's own time.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$(scripts/release-bin.sh)}
SESSIONS=${SESSIONS:-19000}
HOLDERS=${HOLDERS:-8}
GROUP=${GROUP:-1000}
NEWCOMERS=${NEWCOMERS:-200}
MESSAGES=${MESSAGES:-50}
ulimit -n "$(ulimit -Hn)" || true

data=$(mktemp -d)
holders=()
cleanup() {
    kill "${holders[@]}" 2>/dev/null || true
    kill "$server" 2>/dev/null || true
    rm -rf "$data"
}
trap cleanup EXIT
PARLEY_BCRYPT_COST=4 "$BIN/parley" serve --port 0 --data "$data/server" --max-registrations 0 \
    --max-connections $((SESSIONS + 500)) --log-level warning > "$data/serve.out" &
server=$!
for _ in $(seq 100); do grep -q listening "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(ws:[^ ]*\).*/\1/p' "$data/serve.out")
rss() { awk '/VmRSS/ { print $2 }' "/proc/$server/status"; }
echo "server $url (pid $server), $SESSIONS sessions from $HOLDERS addresses, $GROUP of them in one group"
sleep 1
before=$(rss)
echo "server resident before: $before KiB"

group="crowd-$RANDOM$RANDOM"
per=$((SESSIONS / HOLDERS))
members=$((GROUP / HOLDERS))
started=$(date +%s)
for index in $(seq 0 $((HOLDERS - 1))); do
    count=$per
    [[ $index -eq $((HOLDERS - 1)) ]] && count=$((SESSIONS - per * (HOLDERS - 1)))
    in_group=$members
    [[ $index -eq $((HOLDERS - 1)) ]] && in_group=$((GROUP - members * (HOLDERS - 1)))
    create=()
    [[ $index -eq 0 ]] && create=(--create-group)
    "$BIN/parley-load" --url "$url" --crowd "$count" --from "127.0.0.$((index + 2))" --group "$group" \
        --group-members "$in_group" "${create[@]}" --until "$data/done" > "$data/holder-$index.out" 2> "$data/holder-$index.err" &
    holders+=($!)
    if [[ $index -eq 0 ]]; then
        until grep -q "group ready" "$data/holder-0.out"; do
            kill -0 "${holders[0]}" 2>/dev/null || { cat "$data/holder-0.err"; exit 1; }
            sleep 0.2
        done
    fi
done
for index in $(seq 0 $((HOLDERS - 1))); do
    until grep -q "^held" "$data/holder-$index.out"; do
        kill -0 "${holders[$index]}" 2>/dev/null || { echo "holder $index failed:"; tail -5 "$data/holder-$index.err"; exit 1; }
        sleep 1
    done
done
echo "signed in and held after $(($(date +%s) - started)) s"
sleep 5
held=$(rss)
sockets=$(find "/proc/$server/fd" -lname 'socket:*' | wc -l)
echo "server resident with them: $held KiB; sockets open: $sockets"
awk -v b="$before" -v h="$held" -v n="$SESSIONS" 'BEGIN { printf "resident memory per session: %.2f KiB\n", (h - b) / n }'

"$BIN/parley-load" --url "$url" --probe "$NEWCOMERS" --from 127.0.0.$((HOLDERS + 2)) --group "$group" --group-messages "$MESSAGES"
echo "server resident after the probe: $(rss) KiB"
touch "$data/done"
for index in $(seq 0 $((HOLDERS - 1))); do wait "${holders[$index]}" || true; done
cat "$data"/holder-*.out | python3 -c '
import sys, collections
by_message = collections.defaultdict(list)
for line in sys.stdin:
    if line.startswith("delivered"):
        for pair in line.split()[1:]:
            sent, latency = pair.split(":")
            by_message[int(sent)].append(int(latency) / 1000)
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")
every = [latency for latencies in by_message.values() for latency in latencies]
last = [max(latencies) for latencies in by_message.values()]
counts = sorted(len(latencies) for latencies in by_message.values())
print(f"group messages: {len(by_message)}, deliveries per message: min {counts[0] if counts else 0} max {counts[-1] if counts else 0}")
print(f"each delivery: p50 {pct(every, .5):.2f} ms p99 {pct(every, .99):.2f} ms")
print(f"last member of the group: p50 {pct(last, .5):.2f} ms p99 {pct(last, .99):.2f} ms max {max(last) if last else 0:.2f} ms")
'
