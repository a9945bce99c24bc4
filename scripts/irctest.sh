#!/usr/bin/env bash
# Runs irctest, the IRC servers' conformance suite, against `parley serve --irc-port`,
# in the two selections of docs/irc.md, and prints pytest's summary of each.
#
#   scripts/irctest.sh              # both selections
#   scripts/irctest.sh rfc          # RFC 1459/2812: not implementation-specific, deprecated, strict or IRCv3
#   scripts/irctest.sh ircv3        # the IRCv3 specifications the gateway implements (docs/irc.md)
#   scripts/irctest.sh rfc -k topic # more pytest arguments after the selection
#
# irctest is not part of Parley and nothing here is committed from it: it is cloned into
# $IRCTEST_DIR (default /tmp/irctest, from $IRCTEST_REPO) and runs from a virtual
# environment in $IRCTEST_VENV with its own requirements. Parley's side is one file,
# scripts/irctest/parley_controller.py. PARLEY_BIN picks the binary (default: a debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
IRCTEST_DIR=${IRCTEST_DIR:-/tmp/irctest}
IRCTEST_REPO=${IRCTEST_REPO:-https://github.com/progval/irctest}
IRCTEST_VENV=${IRCTEST_VENV:-/tmp/irctest-venv}
if [[ -z "${PARLEY_BIN:-}" ]]; then
    swift build --product parley >&2
    PARLEY_BIN=$root/.build/debug/parley
fi
export PARLEY_BIN
[[ -d "$IRCTEST_DIR/irctest" ]] || git clone --quiet "$IRCTEST_REPO" "$IRCTEST_DIR"
if [[ ! -x "$IRCTEST_VENV/bin/pytest" ]]; then
    python3 -m venv "$IRCTEST_VENV"
    "$IRCTEST_VENV/bin/pip" install --quiet -r "$IRCTEST_DIR/requirements.txt"
fi

which=${1:-both}
shift || true
# The IRCv3 selection: every IRCv3 test but those of four extensions Parley does not
# implement (metadata, account registration, channel rename, account extbans). Multiline
# came in with draft/multiline (it was a fifth: 161 tests, as counted for InspIRCd then).
ircv3_skipped="metadata_3 account_registration channel_rename chmodes/account_extban"
run() {
    local name=$1
    shift
    echo "== irctest: $name"
    (cd "$IRCTEST_DIR" && PYTHONPATH="$root/scripts/irctest:$IRCTEST_DIR" "$IRCTEST_VENV/bin/pytest" \
        --controller parley_controller -p no:cacheprovider -q -rfE --tb=line "$@") || true
}
case $which in
rfc | both)
    run "RFC 1459/2812 (not implementation-specific, deprecated, strict or IRCv3)" irctest/server_tests/ \
        -m '(RFC1459 or RFC2812) and not implementation-specific and not deprecated and not strict and not IRCv3' "$@"
    ;;&
ircv3 | both)
    ignored=()
    for f in $ircv3_skipped; do ignored+=("--ignore=irctest/server_tests/$f.py"); done
    run "IRCv3 (the specifications of docs/irc.md)" irctest/server_tests/ "${ignored[@]}" \
        -m 'IRCv3 and not implementation-specific and not deprecated and not strict' "$@"
    ;;
rfc) ;;
*)
    echo "usage: scripts/irctest.sh [rfc|ircv3|both] [pytest arguments]" >&2
    exit 2
    ;;
esac
