#!/usr/bin/env bash
# Builds release `parley` and `parley-load` into .build-release and prints the folder
# that holds them, for the load scripts: BIN=${BIN:-$(scripts/release-bin.sh)}.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in parley parley-load; do
    swift build -c release --scratch-path .build-release --product "$product" >&2
done
echo .build-release/release
