#!/usr/bin/env bash
# Load figures for one node on SQLite, one node on PostgreSQL and two nodes on one
# PostgreSQL (members spread over both), in the two workloads of the server issue:
# 20 members with 5 senders as fast as acknowledged, and 50 members offered a fixed
# 2,000 messages/s. Starts a throwaway PostgreSQL 15 (initdb in a temporary folder; as
# the postgres user under root) and release binaries from BIN.
#
#   BIN=.build/release scripts/load-nodes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
SECONDS_EACH=${SECONDS_EACH:-10}
PG=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
ulimit -n "$(ulimit -Hn)" || true

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    $as_pg "$PG/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
as_pg=""
if [[ $(id -u) == 0 ]]; then as_pg="runuser -u postgres --"; mkdir "$work/pg" && chown postgres "$work/pg"; fi
pgport=$((20000 + RANDOM % 10000))
$as_pg "$PG/initdb" -D "$work/pg" -U parley --auth=trust -E UTF8 --locale=C >/dev/null
$as_pg "$PG/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1 ${PG_OPTIONS:-}" start >/dev/null

serve() { # DATA-FOLDER [ARGS...]: starts a node; its URL goes in DATA-FOLDER/url
    local data=$1
    shift
    mkdir -p "$data"
    PARLEY_BCRYPT_COST=4 "$BIN/parley" serve --port 0 --data "$data" --rate-limit 0 --max-sockets-per-user 4 --max-unsigned-per-address 0 --max-password-checks-per-address 0 \
        --max-registrations 0 --log-level warning "$@" > "$data/serve.out" 2> "$data/serve.err" &
    pids+=($!)
    for _ in $(seq 100); do grep -q listening "$data/serve.out" 2>/dev/null && break; sleep 0.1; done
    sed -n 's/.*listening on \(ws:[^ ]*\).*/\1/p' "$data/serve.out" > "$data/url"
}

workloads() { # URLS
    echo "-- 20 members in one group, 5 senders as fast as acknowledged"
    "$BIN/parley-load" --url "$1" --clients 20 --groups 1 --senders 5 --seconds "$SECONDS_EACH"
    echo "-- 50-member group at 2,000 messages/s (10 senders)"
    "$BIN/parley-load" --url "$1" --clients 50 --groups 1 --senders 10 --rate 2000 --seconds "$SECONDS_EACH"
}

stop_nodes() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
}

echo "== SQLite, one node"
serve "$work/sqlite"
workloads "$(cat "$work/sqlite/url")"
stop_nodes

$as_pg "$PG/createdb" -h 127.0.0.1 -p "$pgport" -U parley one
echo "== PostgreSQL, one node"
serve "$work/pg1" --postgres "postgres://parley@127.0.0.1:$pgport/one"
workloads "$(cat "$work/pg1/url")"
stop_nodes

$as_pg "$PG/createdb" -h 127.0.0.1 -p "$pgport" -U parley two
echo "== PostgreSQL, two nodes (member i on node i % 2)"
serve "$work/pg2a" --postgres "postgres://parley@127.0.0.1:$pgport/two" --media "$work/shared-media"
serve "$work/pg2b" --postgres "postgres://parley@127.0.0.1:$pgport/two" --media "$work/shared-media"
workloads "$(cat "$work/pg2a/url"),$(cat "$work/pg2b/url")"
stop_nodes
