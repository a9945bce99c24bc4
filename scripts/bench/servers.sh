# Sourced by the load scripts (side-by-side.sh, floor.sh, shapes.sh, profile-send.sh): starts
# one server at a time on loopback, fresh each time, and runs parley-load's bench mode at it.
#
#   source scripts/bench/servers.sh      # from the project root, with BIN set (parley, parley-load;
#                                          # PARLEY_BIN: another parley binary to serve with)
#   bench_start parley [MORE SERVE FLAGS]   # sets $url and $server_pids
#   bench_load LABEL --clients 20 --senders 5 --messages 10000 [--rate R]   # appends to $OUT
#   bench_stop
#   bench_case SERVER LABEL PARLEY-LOAD-ARGS...   # the three in one: a case on a fresh server
#   bench_has SERVER                     # whether the peer's binaries are here to start it
#
# Servers: parley (its WebSocket), parley-irc (its IRC gateway, members as guests), inspircd
# (apt-get install inspircd; TCP_NODELAY forced by nodelay.c), ergo and ergo-mysql ($ERGO_BIN;
# MariaDB for the second), floor, floor-thread and floor-loop (Benchmarks/Floor: NIO alone,
# then with a SQLite commit on a writer thread or on the loop). Ports: PARLEY_PORT (7979),
# PARLEY_IRC_PORT (6699), FLOOR_PORT (6670); InspIRCd 6667 and Ergo 6669, as their configs say.

bench_work=$(mktemp -d)
chmod 755 "$bench_work"
bench_pids=()
bench_port=${PARLEY_PORT:-7979}
bench_irc_port=${PARLEY_IRC_PORT:-6699}
bench_floor_port=${FLOOR_PORT:-6670}
trap 'bench_stop; rm -rf "$bench_work"' EXIT

bench_has() { # SERVER: whether this machine has what bench_start needs to start it
    case $1 in
        inspircd) [ -x /usr/sbin/inspircd ] ;;
        ergo) [ -n "${ERGO_BIN:-}" ] ;;
        ergo-mysql) [ -n "${ERGO_BIN:-}" ] && [ -x /usr/sbin/mariadbd ] ;;
        *) return 0 ;;
    esac
}

bench_stop() { # stops every server started (TERM, then KILL after 10 s)
    local pid
    for pid in "${bench_pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    for pid in "${bench_pids[@]}"; do
        for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2> /dev/null || true
    done
    bench_pids=()
}

bench_wait_port() { # PORT PID: until the port answers, while the process lives (30 s at most)
    for _ in $(seq 300); do
        (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null && return 0
        kill -0 "$2" 2> /dev/null || return 1
        sleep 0.1
    done
    return 1
}

bench_mariadb() { # a fresh MariaDB on a unix socket in $bench_work/mysql, with a database and user for Ergo
    local dir=$bench_work/mysql
    rm -rf "$dir"
    mkdir -p "$dir"
    chown mysql:mysql "$dir" 2> /dev/null || true
    mariadb-install-db --no-defaults --user=mysql --datadir="$dir/data" --skip-test-db > "$dir/install.log" 2>&1
    /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$dir/data" --socket="$dir/mysqld.sock" \
        --skip-networking --innodb-flush-log-at-trx-commit=2 --log-error="$dir/error.log" > /dev/null 2>&1 &
    bench_pids+=($!)
    bench_mysql_pid=$!
    for _ in $(seq 300); do
        mariadb-admin --no-defaults --socket="$dir/mysqld.sock" -uroot ping > /dev/null 2>&1 && break
        sleep 0.1
    done
    mariadb --no-defaults --socket="$dir/mysqld.sock" -uroot -e "CREATE DATABASE ergo_history;
        CREATE USER 'ergo'@'localhost' IDENTIFIED BY 'bench-password';
        GRANT ALL PRIVILEGES ON ergo_history.* TO 'ergo'@'localhost';"
}

bench_start() { # SERVER [MORE PARLEY SERVE FLAGS]: starts it fresh; sets url and server_pids
    local server=$1 dir=$bench_work/$1
    shift
    rm -rf "$dir"
    mkdir -p "$dir"
    case $server in
        parley | parley-irc)
            # Cost 4 for passwords: signing the members up is not what is measured.
            PARLEY_BCRYPT_COST=4 "${PARLEY_BIN:-$BIN/parley}" serve --host 127.0.0.1 --port "$bench_port" --irc-port "$bench_irc_port" \
                --irc-guests --data "$dir" --rate-limit 0 --max-registrations 0 --max-unsigned-per-address 0 \
                --max-password-checks-per-address 0 --log-level warning "$@" > "$dir/log" 2>&1 &
            bench_pids+=($!)
            server_pids=$!
            url=ws://127.0.0.1:$bench_port
            if [ "$server" = parley-irc ]; then url=irc://127.0.0.1:$bench_irc_port; fi
            bench_wait_port "$bench_port" $! && bench_wait_port "$bench_irc_port" $! ;;
        inspircd)
            cc -O2 -shared -fPIC -o "$bench_work/nodelay.so" scripts/bench/nodelay.c -ldl
            sed "s#BENCH_DIR#$dir#" scripts/bench/inspircd.conf > "$dir/inspircd.conf"
            chown -R irc:irc "$dir" 2> /dev/null || true
            # as the irc user Debian's package makes, when there is one (InspIRCd refuses root otherwise)
            local as=(env) root=(--runasroot)
            if id irc > /dev/null 2>&1; then as=(setpriv --reuid=irc --regid=irc --init-groups) root=(); fi
            LD_PRELOAD=$bench_work/nodelay.so "${as[@]}" /usr/sbin/inspircd --config "$dir/inspircd.conf" --nofork --nopid \
                "${root[@]}" > "$dir/log" 2>&1 &
            bench_pids+=($!)
            server_pids=$!
            url=irc://127.0.0.1:6667
            bench_wait_port 6667 $! ;;
        ergo | ergo-mysql)
            local enable=false
            if [ "$server" = ergo-mysql ]; then
                bench_mariadb
                enable=true
            fi
            sed -e "s#MYSQL_SOCKET#$bench_work/mysql/mysqld.sock#" -e "s#enabled: false \# ergo-mysql#enabled: $enable#" \
                scripts/bench/ergo.yaml > "$dir/ergo.yaml"
            (cd "$dir" && exec "$ERGO_BIN" run --conf ergo.yaml > log 2>&1) &
            bench_pids+=($!)
            server_pids=$!
            if [ "$server" = ergo-mysql ]; then server_pids=$!,$bench_mysql_pid; fi
            url=irc://127.0.0.1:6669
            bench_wait_port 6669 $! ;;
        floor | floor-thread | floor-loop)
            local store=()
            if [ "$server" = floor-thread ]; then store=(--store "$dir/floor.db" --commit-on thread); fi
            if [ "$server" = floor-loop ]; then store=(--store "$dir/floor.db" --commit-on loop); fi
            Benchmarks/Floor/.build/release/floor --port "$bench_floor_port" "${store[@]}" > "$dir/log" 2>&1 &
            bench_pids+=($!)
            server_pids=$!
            url=irc://127.0.0.1:$bench_floor_port
            bench_wait_port "$bench_floor_port" $! ;;
        *)
            echo "bench_start: no server called $server" >&2
            return 1 ;;
    esac
}

bench_load() { # LABEL PARLEY-LOAD-ARGS...: one run at $url, its JSON line appended to $OUT
    local label=$1
    shift
    timeout 600 "$BIN/parley-load" --url "$url" "$@" --server-pid "$server_pids" --label "$label" --json "$OUT" > /dev/null \
        || echo "== $label: the load failed (exit $?); the table shows what it has" >&2
}

bench_case() { # SERVER LABEL PARLEY-LOAD-ARGS...: one case on a fresh SERVER, stopped after
    local server=$1 label=$2
    shift 2
    if bench_start "$server"; then
        bench_load "$label" "$@"
    else
        echo "== $label: $server did not start; its log:" >&2
        tail -5 "$bench_work/$server/log" >&2 || true
    fi
    bench_stop
}
