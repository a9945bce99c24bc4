#!/usr/bin/env bash
# Two release binaries of `parley serve`, run in turns under parley-load's bench mode (each
# run on a fresh server, through scripts/profile-send.sh without perf), one line per run:
# the load's figures and the server's own counters from /metrics.
# Runs in turns because this machine's speed changes on its own, within seconds: a figure
# is only worth comparing with the other binary's runs beside it (docs/performance.md).
#
#   scripts/compare-send.sh OLD NEW 4 --messages 10000                # closed loop, 4 runs each
#   scripts/compare-send.sh OLD NEW 3 --messages 5000 --rate 1000     # a fixed 1,000 messages/s
#
# Per run: acknowledged/s; e2e p50 and p99 (the load's clock); server and load CPU per
# message (from the first send to the last delivery); messages per commit and commit time per message
# (parley_commit_*); events per socket write; and the bucket holding the 99th percentile of
# the server's own send time (frame to reply).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n 2,14p "$0"; exit 2; }
old=$1 new=$2 runs=$3
shift 3
export BIN=${BIN:-$(scripts/release-bin.sh)}
for run in $(seq 1 "$runs"); do
    for bin in "$old" "$new"; do
        PERF=0 PARLEY_BIN="$bin" scripts/profile-send.sh "$@" > /dev/null
        python3 - "$bin" /tmp/parley-send.jsonl /tmp/parley-send.metrics <<'EOF'
import json, re, sys

binary, out, metrics = sys.argv[1:]
lines = [line for line in open(out) if line.strip()]
figures = json.loads(lines[-1]) if lines else {}
number = lambda key: float(figures.get(key, "nan"))
lines = [line for line in open(metrics) if not line.startswith("#")]


def total(name):
    return sum(float(line.split()[-1]) for line in lines if line.startswith(name + " ") or line.startswith(name + "{"))


def bucket(name, label, q):
    buckets = []
    for line in lines:
        if line.startswith(name + "_bucket") and label in line:
            le = re.search(r'le="([^"]+)"', line)[1]
            buckets.append((float("inf") if le == "+Inf" else float(le), float(line.split()[-1])))
    buckets.sort()
    if not buckets or buckets[-1][1] == 0:
        return float("nan")
    return next(le for le, count in buckets if count >= q * buckets[-1][1]) * 1000


acked = number("acked") or float("nan")  # a run with nothing acknowledged prints nan, not a traceback
send_p99 = bucket("parley_request_duration_seconds", 'op="send"', 0.99)
messages = total("parley_commit_batch_messages_sum")
commits = total("parley_commit_batch_messages_count")
writes = total("parley_socket_write_batch_events_count")
print(
    f"{binary}: {number('acked_per_s'):,.0f}/s  e2e p50 {number('e2e_p50_ms')} p99 {number('e2e_p99_ms')} ms  "
    f"CPU/msg server {number('server_cpu_s') / acked * 1e6:.0f} µs generator {number('client_cpu_s') / acked * 1e6:.0f} µs  "
    f"msgs/commit {messages / max(commits, 1):.2f}  commit/msg {total('parley_commit_duration_seconds_sum') / max(messages, 1) * 1e6:.0f} µs  "
    f"events/write {total('parley_socket_write_batch_events_sum') / max(writes, 1):.2f}  "
    f"send p99 ≤ {send_p99} ms  errors {figures.get('errors', '?')}"
)
EOF
    done
done
