#!/usr/bin/env bash
# Builds and runs one libFuzzer target over Parley's parsers.
#
#   scripts/fuzz.sh TARGET [SECONDS]     # TARGET: media request shell plugin sanitizer irc hook, or all
#   RUNS=1000000 scripts/fuzz.sh media   # stop after that many inputs instead
#
# The parsers' own sources are compiled with the fuzzer and AddressSanitizer into
# .build-fuzz/ (ParleyCore and ParleyProtocol as modules, the parser's files into the
# target), no package dependencies needed. Seeds come from Fuzz/Corpus/TARGET; inputs
# the fuzzer finds go to a temporary folder, crashes to .build-fuzz/crashes/. Exits
# non-zero on a crash, printing the input that caused it.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS]}
seconds=${2:-30}
if [[ $target == all ]]; then
    for each in media request shell plugin sanitizer irc hook; do "$0" "$each" "$seconds"; done
    exit 0
fi
out=.build-fuzz
mkdir -p "$out/crashes"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6)

# swiftc, without gold's warnings about AddressSanitizer's local symbols.
compile() {
    swiftc "$@" 2>&1 | { grep -v "Cannot export local symbol" || true; } >&2
    return "${PIPESTATUS[0]}"
}

# module NAME SOURCES...: compiles a library module once its sources change.
module() {
    local name=$1
    shift
    local stamp="$out/$name.o"
    if [[ -f $stamp ]] && [[ -z $(find "$@" -newer "$stamp" 2>/dev/null) ]]; then return; fi
    compile "${flags[@]}" -wmo -module-name "$name" -I "$out" -emit-module -emit-module-path "$out/$name.swiftmodule" \
        -emit-object -o "$stamp" "$@"
}
module ParleyCore $(find Sources/ParleyCore -name '*.swift' | sort)
module ParleyProtocol $(find Sources/ParleyProtocol -name '*.swift' | sort)

case $target in
media) sources=(Sources/ParleyEngine/Media/MediaInspector.swift) ;;
request) sources=() ;;
shell)
    sources=(Sources/ParleyShell/Input/LineReader.swift Sources/ParleyShell/Input/HereDocument.swift
        Sources/ParleyShell/Input/Tokenizer.swift Sources/ParleyShell/Input/CommandInput.swift
        Sources/ParleyShell/Input/DurationText+Parse.swift Sources/ParleyShell/ErrorCode+Shell.swift)
    ;;
plugin)
    sources=($(find Sources/ParleyBots/PluginLines Sources/ParleyBots/Schedules -name '*.swift' | sort) Sources/ParleyBots/JSONValue.swift)
    ;;
sanitizer) sources=(Sources/ParleyShell/Output/Sanitizer.swift) ;;
irc) sources=(Sources/ParleyIRC/IRCMessage.swift) ;;
hook) sources=() ;;
*)
    echo "unknown target $target (media request shell plugin sanitizer irc hook)" >&2
    exit 2
    ;;
esac
binary="$out/fuzz-$target"
if [[ ! -x $binary ]] || [[ -n $(find "Fuzz/Targets/$target.swift" "${sources[@]}" "$out/ParleyCore.o" "$out/ParleyProtocol.o" -newer "$binary") ]]; then
    compile "${flags[@]}" -module-name "Fuzz_$target" -I "$out" "Fuzz/Targets/$target.swift" "${sources[@]}" \
        "$out/ParleyCore.o" "$out/ParleyProtocol.o" -o "$binary"
fi

found=$(mktemp -d)
trap 'rm -rf "$found"' EXIT
limit=(-max_total_time="$seconds")
[[ -n ${RUNS:-} ]] && limit=(-runs="$RUNS")
echo "== fuzz $target (${RUNS:-$seconds s})"
"$binary" "${limit[@]}" -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/crashes/$target-" \
    "$found" "Fuzz/Corpus/$target" 2>"$out/$target.log" || {
    tail -40 "$out/$target.log" >&2
    exit 1
}
grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" "$out/$target.log" || tail -3 "$out/$target.log"
