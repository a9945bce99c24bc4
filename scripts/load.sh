#!/usr/bin/env bash
# Load figures for docs/performance.md: starts a release `parley serve` on a free port with a
# fresh data folder, runs parley-load in the three workloads of the server issue, and
# reads the server's RSS while 10,000 sessions sit idle.
#
#   scripts/load.sh            # builds release binaries into .build-release first
#   BIN=path/to/release scripts/load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$(scripts/release-bin.sh)}
IDLE=${IDLE:-10000}
ulimit -n "$(ulimit -Hn)" || true

data=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$data"' EXIT
PARLEY_BCRYPT_COST=4 "$BIN/parley" serve --port 0 --data "$data" --rate-limit 0 --max-sockets-per-user 4 --max-registrations 0 --max-unsigned-per-address 0 \
    --max-password-checks-per-address 0 \
    --log-level warning > "$data/serve.out" &
server=$!
for _ in $(seq 50); do grep -q listening "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(ws:[^ ]*\).*/\1/p' "$data/serve.out")
echo "server $url (pid $server)"

echo "== 20 members in one group, 5 senders as fast as acknowledged"
"$BIN/parley-load" --url "$url" --clients 20 --groups 1 --senders 5 --seconds 10
echo "== 50-member group at 2,000 messages/s"
"$BIN/parley-load" --url "$url" --clients 50 --groups 1 --senders 10 --rate 2000 --seconds 10
echo "== $IDLE idle sessions"
grep VmRSS "/proc/$server/status" | sed 's/^/before: /'
"$BIN/parley-load" --url "$url" --clients "$IDLE" --idle 30 > "$data/idle.out" &
load=$!
# Measure once every session is connected and signed in.
for _ in $(seq 600); do grep -q "^idle:" "$data/idle.out" && break; sleep 1; done
sleep 2
cat "$data/idle.out"
echo "server sockets open: $(ls -l "/proc/$server/fd" | grep -c socket)"
grep VmRSS "/proc/$server/status" | sed 's/^/with sessions: /'
wait $load || true
