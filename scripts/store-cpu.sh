#!/usr/bin/env bash
# Server CPU a message on SQLite against one PostgreSQL node, in turns: issue 37's
# PostgreSQL targets (CPU a message ≤ 2× SQLite's, throughput ≥ 0.6×). Each pair runs a
# fresh `parley serve` on SQLite, then one on a fresh database of a throwaway PostgreSQL 15,
# each under `parley-load`'s closed loop (20 members, 5 senders, SECONDS_EACH s, default 8);
# CPU is the server process's from its start's end (the load's sign-ups included) over
# its acknowledged sends.
#
#   BIN=.build/release scripts/store-cpu.sh 6       # six pairs
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
RUNS=${1:-4}
SECONDS_EACH=${SECONDS_EACH:-8}
PG=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d)
chmod 755 "$work"
as_pg=""
if [[ $(id -u) == 0 ]]; then as_pg="runuser -u postgres --"; mkdir "$work/pg" && chown postgres "$work/pg"; fi
pgport=$((20000 + RANDOM % 10000))
trap '$as_pg "$PG/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
$as_pg "$PG/initdb" -D "$work/pg" -U parley --auth=trust -E UTF8 --locale=C >/dev/null
$as_pg "$PG/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w -o "-p $pgport -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
ticks=$(getconf CLK_TCK)

run() { # NAME [SERVE-ARGS...]: prints the server's CPU µs a message and the acknowledged sends/s
    local data="$work/$1-$pair"
    shift
    mkdir -p "$data"
    PARLEY_BCRYPT_COST=4 "$BIN/parley" serve --port 0 --data "$data" --rate-limit 0 --max-sockets-per-user 4 \
        --max-unsigned-per-address 0 --max-password-checks-per-address 0 --max-registrations 0 --log-level warning "$@" \
        > "$data/out" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do grep -q listening "$data/out" 2>/dev/null && break; sleep 0.1; done
    local url before after
    url=$(sed -n 's/.*listening on \(ws:[^ ]*\).*/\1/p' "$data/out")
    before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    "$BIN/parley-load" --url "$url" --clients 20 --groups 1 --senders 5 --seconds "$SECONDS_EACH" > "$data/load" 2>&1
    after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    sed -n 's/acknowledged sends: \([0-9]*\) (\([0-9]*\)\/s).*/\1 \2/p' "$data/load" |
        awk -v cpu="$((after - before))" -v hz="$ticks" '{ printf "%d %d\n", cpu / hz * 1e6 / $1, $2 }'
}

for pair in $(seq "$RUNS"); do
    read -r sqlite_cpu sqlite_rate < <(run sqlite)
    $as_pg "$PG/createdb" -h 127.0.0.1 -p "$pgport" -U parley "pair$pair"
    read -r pg_cpu pg_rate < <(run pg --postgres "postgres://parley@127.0.0.1:$pgport/pair$pair")
    awk -v p="$pair" -v sc="$sqlite_cpu" -v sr="$sqlite_rate" -v pc="$pg_cpu" -v pr="$pg_rate" 'BEGIN {
        printf "pair %d: SQLite %d µs a message (%d/s), PostgreSQL %d µs (%d/s): CPU %.2f×, throughput %.2f×\n", p, sc, sr, pc, pr, pc / sc, pr / sr }'
done
