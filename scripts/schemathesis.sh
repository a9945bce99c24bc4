#!/usr/bin/env bash
# Schemathesis (PyPI) against a live `parley serve` with its own OpenAPI document
# (docs/openapi.yaml, served at /v1/openapi.yaml): every answer must be no 5xx and must be
# one the document describes (status, content type, body). It generates requests from the
# document, valid and not, as a bot with a token in a group with messages.
#
#   scripts/schemathesis.sh [EXAMPLES]     # per operation, default 40
#   BIN=.build/release/parley scripts/schemathesis.sh
#
# Schemathesis is installed once into .build/schemathesis (a virtual environment).
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-40}
bin=${BIN:-.build/debug/parley}
venv=.build/schemathesis
if [ ! -x "$venv/bin/schemathesis" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet schemathesis
fi

work=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
# No request rate: what schemathesis sends should reach the ops, not the rate limit.
"$bin" serve --port 0 --data "$work/server" --rate-limit 0 --account-rate-limit 0 >"$work/out" 2>"$work/err" &
server=$!
for _ in $(seq 600); do
    grep -q "listening on" "$work/out" 2>/dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$work/err"; exit 1; }
    sleep 0.1
done
url=$(grep -o "ws://127.0.0.1:[0-9]*" "$work/out" | head -1)
port=${url##*:}
export PARLEY_BCRYPT_COST=4
made=$("$bin" --data "$work/alice" --server "$url/v1/ws" <<EOF
/register alice@example.com --handle alice --password secret-alice-1
/create #team
/send #team hello from alice
/bots new @ci --password ci-pass-1234
/invite @ci #team
/bots token @ci --name schemathesis
EOF
)
token=$(grep -o "pbt_[A-Za-z0-9_-]*" <<<"$made" | head -1)
[ -n "$token" ] || { echo "schemathesis.sh: no bot token: $made" >&2; exit 1; }

"$venv/bin/schemathesis" run docs/openapi.yaml --url "http://127.0.0.1:$port" \
    --header "Authorization: Bearer $token" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples "$examples" --no-color
