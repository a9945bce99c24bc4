#!/usr/bin/env bash
# Where a send's time goes inside the server, stage by stage (docs/performance.md): a
# release `parley serve` on a fresh folder with PARLEY_STAGES, parley-load driving 20
# members of one group, 5 of them sending RATE messages/s in all, then the server stopped
# and scripts/send-stages.py's table of the sends after the first second.
#
#   scripts/send-stages.sh                 # 1,000 messages/s for 10 s; builds release binaries first
#   RATE=0 SECONDS_RUN=10 BIN=… scripts/send-stages.sh   # closed loop
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$(scripts/release-bin.sh)}
RATE=${RATE:-1000}
SECONDS_RUN=${SECONDS_RUN:-10}
data=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$data"' EXIT
PARLEY_STAGES=$data/stages.tsv PARLEY_BCRYPT_COST=4 "$BIN/parley" serve --port 0 --data "$data" --rate-limit 0 \
    --max-registrations 0 --max-unsigned-per-address 0 --max-password-checks-per-address 0 --log-level warning > "$data/serve.out" &
server=$!
for _ in $(seq 100); do grep -q listening "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(ws:[^ ]*\).*/\1/p' "$data/serve.out")
"$BIN/parley-load" --url "$url" --clients 20 --groups 1 --senders 5 --rate "$RATE" --seconds "$SECONDS_RUN" >&2
kill -TERM $server
wait $server || true
skip=$(( RATE > 0 ? RATE : 0 ))
python3 scripts/send-stages.py "$data/stages.tsv" --skip "$skip" --markdown
