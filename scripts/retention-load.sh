#!/usr/bin/env bash
# Retention under load, for docs/performance.md: a data folder holding N old messages
# (default 1,000,000, sent 40 days ago), then people sending at a fixed rate; first on a
# server that keeps messages for good ("before"), then on one started with
# --retention-days 30, whose first sweep deletes them all while the same sends go on
# ("during"). Prints parley-load's figures for each and the sweep's own log line.
#
#   scripts/retention-load.sh                  # builds release binaries first
#   BIN=path/to/release OLD=200000 RATE=500 scripts/retention-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$(scripts/release-bin.sh)}
OLD=${OLD:-1000000}
RATE=${RATE:-500}
SECONDS_EACH=${SECONDS_EACH:-20}
data=$(mktemp -d)
server=
trap 'kill $server 2>/dev/null || true; rm -rf "$data"' EXIT

# A person and a group holding the old messages, made by the shell (embedded).
PARLEY_BCRYPT_COST=4 "$BIN/parley" --data "$data" > /dev/null <<'SCRIPT'
/register archivist@example.com --handle archivist --password archive-pass-1
/create #archive
SCRIPT
python3 - "$data/parley.sqlite" "$OLD" <<'PY'
import sqlite3, sys, time
path, count = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path)
chat, = db.execute("SELECT id FROM chat WHERE handle = 'archive'").fetchone()
user, = db.execute("SELECT id FROM user WHERE handle = 'archivist'").fetchone()
start = int((time.time() - 40 * 86400) * 1000)
base, = db.execute("SELECT last_seq FROM chat WHERE id = ?", (chat,)).fetchone()
batch = 50000
for first in range(0, count, batch):
    rows = [(chat, base + i + 1, user, "text", f"an old message, number {i}", start + i) for i in range(first, min(count, first + batch))]
    db.executemany("INSERT INTO message (chat_id, seq, sender_id, kind, text, sent_at) VALUES (?, ?, ?, ?, ?, ?)", rows)
db.execute("UPDATE chat SET last_seq = ? WHERE id = ?", (base + count, chat))
db.commit()
print(f"{count} messages of 40 days ago in #archive")
PY

serve() {
    PARLEY_BCRYPT_COST=4 "$BIN/parley" serve --port 0 --data "$data" --rate-limit 0 --max-registrations 0 \
        --max-unsigned-per-address 0 --max-password-checks-per-address 0 --log-level info "$@" > "$data/serve.out" 2>&1 &
    server=$!
    for _ in $(seq 300); do grep -q listening "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
    url=$(sed -n 's/.*listening on \(ws:[^ ]*\).*/\1/p' "$data/serve.out" | head -1)
}
stop() {
    kill "$server"
    wait "$server" || true
}

serve
# The search index takes the old messages up first (a search waits for it), as on a
# server that has held them a while.
PARLEY_BCRYPT_COST=4 "$BIN/parley" --data "$data/shell" --server "$url" > /dev/null <<'SCRIPT'
/login @archivist --password archive-pass-1
/search number 7
SCRIPT
echo "== before: the server keeps messages for good; $RATE sends/s for ${SECONDS_EACH}s"
"$BIN/parley-load" --url "$url" --clients 20 --groups 1 --senders 5 --rate "$RATE" --seconds "$SECONDS_EACH"
stop

serve --retention-days 30 --retention-interval 60 --retention-batch "${BATCH:-50}"
echo "== during: --retention-days 30, its first sweep deleting the $OLD old messages; the same sends"
"$BIN/parley-load" --url "$url" --clients 20 --groups 1 --senders 5 --rate "$RATE" --seconds "$SECONDS_EACH"
for _ in $(seq 600); do grep -q "retention: deleted" "$data/serve.out" && break; sleep 0.5; done
grep -o "retention: deleted.*" "$data/serve.out" || echo "the sweep had not finished"
left=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM message m JOIN chat c ON c.id = m.chat_id WHERE c.handle = 'archive'\").fetchone()[0])" "$data/parley.sqlite")
echo "old messages left: $left"
stop
