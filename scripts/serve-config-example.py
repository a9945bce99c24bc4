#!/usr/bin/env python3
"""Writes the commented example of `parley serve --config`: every setting with its help
text and its default, from the binary itself (`parley serve --help` and `--check`).

    python3 scripts/serve-config-example.py .build/debug/parley > deploy/parley.yaml
"""
import re
import subprocess
import sys
import textwrap

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/parley"
help_text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, check=True).stdout
if True:
    # No file, no flags but a data folder that does not matter: the defaults.
    check = subprocess.run([binary, "serve", "--check"], capture_output=True, text=True, check=True).stdout

# Each option's help, its wrapped lines joined, without the "(default: …)" the value shows.
helps = {}
current = None
for line in help_text.splitlines():
    match = re.match(r"^  --([a-z0-9-]+)( <[^>]+>)?\s*(.*)$", line)
    if match:
        current = match.group(1)
        helps[current] = match.group(3).strip()
    elif current and line.startswith("    ") and line.strip():
        helps[current] = (helps[current] + " " + line.strip()).strip()
    elif not line.strip():
        current = None

print("# parley serve --config /etc/parley/parley.yaml")
print("#")
print("# Every setting of `parley serve`, named as its flag is without the dashes, with its")
print("# default (~: not set). A flag given on the command line wins over the file.")
print("# `parley serve --config FILE --check` checks a file and prints what the server would use;")
print("# SIGHUP reloads the settings docs/server.md marks as reloadable.")
print("# Made by scripts/serve-config-example.py from the binary's own help.")
for line in check.splitlines():
    key = line.split(":", 1)[0]
    text = re.sub(r"\s*\(default: [^)]*\)\s*$", "", helps.get(key, ""))
    print()
    for part in textwrap.wrap(text, 88):
        print("# " + part)
    print(line)
