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
# messages on a fixed schedule; rate 50/s: 250. Latency is from send (or scheduled) time to each
# other member's receipt, one process, one clock. Server CPU is counted from the first send to
# the last delivery, so setup (sign-ups, joins) is not in it.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
MEMBERS=${MEMBERS:-20}
SENDERS=${SENDERS:-5}
OUT=${RESULTS:-${OUT:-/tmp/side-by-side-$(date +%Y%m%d-%H%M%S).jsonl}}
port=${PARLEY_PORT:-7979}
irc_port=${PARLEY_IRC_PORT:-6699}
cases=("closed-loop|--messages 10000" "rate 1000/s|--messages 5000 --rate 1000" "rate 50/s|--messages 250 --rate 50")

if [ -z "${SERVERS:-}" ]; then
    SERVERS="parley parley-irc"
    [ -x /usr/sbin/inspircd ] && SERVERS="inspircd $SERVERS"
    if [ -n "${ERGO_BIN:-}" ]; then
        SERVERS="$SERVERS ergo"
        command -v mariadbd > /dev/null || [ -x /usr/sbin/mariadbd ] && SERVERS="$SERVERS ergo-mysql"
    fi
fi
if [ -n "${RESULTS:-}" ]; then
    REPS=0
else
    BIN=${BIN:-$(scripts/release-bin.sh)}
    : > "$OUT"
fi
work=$(mktemp -d)
chmod 755 "$work"
pids=()
stop_all() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2> /dev/null || true
    done
    pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT

wait_port() { # PORT PID: until the port answers, while the process lives
    for _ in $(seq 300); do
        (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0
        kill -0 "$2" 2> /dev/null || return 1
        sleep 0.1
    done
    return 1
}

start_mariadb() { # a fresh MariaDB on a unix socket in $work/mysql, with a database and user for Ergo
    local dir=$work/mysql
    rm -rf "$dir"
    mkdir -p "$dir"
    chown mysql:mysql "$dir" 2> /dev/null || true
    mariadb-install-db --no-defaults --user=mysql --datadir="$dir/data" --skip-test-db > "$dir/install.log" 2>&1
    /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$dir/data" --socket="$dir/mysqld.sock" \
        --skip-networking --innodb-flush-log-at-trx-commit=2 --log-error="$dir/error.log" > /dev/null 2>&1 &
    pids+=($!)
    mysql_pid=$!
    for _ in $(seq 300); do
        mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot ping > /dev/null 2>&1 && break
        sleep 0.1
    done
    mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot -e "CREATE DATABASE ergo_history;
        CREATE USER 'ergo'@'localhost' IDENTIFIED BY 'bench-password';
        GRANT ALL PRIVILEGES ON ergo_history.* TO 'ergo'@'localhost';"
}

start() { # SERVER: starts it fresh; sets url and server_pids
    local server=$1 dir=$work/$1
    rm -rf "$dir"
    mkdir -p "$dir"
    case $server in
        parley | parley-irc)
            "$BIN/parley" serve --host 127.0.0.1 --port "$port" --irc-port "$irc_port" --irc-guests --data "$dir" \
                --rate-limit 0 --max-registrations 100000 --log-level warning > "$dir/log" 2>&1 &
            pids+=($!)
            server_pids=$!
            url=ws://127.0.0.1:$port
            if [ "$server" = parley-irc ]; then url=irc://127.0.0.1:$irc_port; fi
            wait_port "$port" $! && wait_port "$irc_port" $! ;;
        inspircd)
            cc -O2 -shared -fPIC -o "$work/nodelay.so" scripts/bench/nodelay.c -ldl
            sed "s#BENCH_DIR#$dir#" scripts/bench/inspircd.conf > "$dir/inspircd.conf"
            chown -R irc:irc "$dir" 2> /dev/null || true
            # as the irc user Debian's package makes, when there is one (InspIRCd refuses root otherwise)
            local as=(env) root=(--runasroot)
            id irc > /dev/null 2>&1 && as=(setpriv --reuid=irc --regid=irc --init-groups) && root=()
            LD_PRELOAD=$work/nodelay.so "${as[@]}" /usr/sbin/inspircd --config "$dir/inspircd.conf" --nofork --nopid \
                "${root[@]}" > "$dir/log" 2>&1 &
            pids+=($!)
            server_pids=$!
            url=irc://127.0.0.1:6667
            wait_port 6667 $! ;;
        ergo | ergo-mysql)
            local enable=false
            if [ "$server" = ergo-mysql ]; then
                start_mariadb
                enable=true
            fi
            sed -e "s#MYSQL_SOCKET#$work/mysql/mysqld.sock#" -e "s#enabled: false \# ergo-mysql#enabled: $enable#" \
                scripts/bench/ergo.yaml > "$dir/ergo.yaml"
            (cd "$dir" && exec "$ERGO_BIN" run --conf ergo.yaml > log 2>&1) &
            pids+=($!)
            server_pids=$!
            if [ "$server" = ergo-mysql ]; then server_pids=$!,$mysql_pid; fi
            url=irc://127.0.0.1:6669
            wait_port 6669 $! ;;
    esac
}

for rep in $(seq "$REPS"); do
    for server in $SERVERS; do
        for case in "${cases[@]}"; do
            label="$server ${case%%|*}"
            [[ $label =~ ${ONLY:-.} ]] || continue
            if ! start "$server"; then
                echo "== $label: the server did not start (see its log below)" >&2
                tail -5 "$work/$server/log" >&2 || true
                stop_all
                continue
            fi
            echo "== $label (run $rep of $REPS)" >&2
            # shellcheck disable=SC2086 # the case's arguments are words
            timeout 600 "$BIN/parley-load" --url "$url" --clients "$MEMBERS" --senders "$SENDERS" ${case#*|} \
                --server-pid "$server_pids" --label "$label" --json "$OUT" > /dev/null || echo "== $label failed" >&2
            stop_all
        done
    done
done
echo "results: $OUT" >&2
python3 scripts/side-by-side.py "$OUT"
