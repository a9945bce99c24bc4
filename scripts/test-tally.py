#!/usr/bin/env python3
"""Counts the tests that run in process and those that start a Parley binary.

    PARLEY_TEST_TALLY=/tmp/tally swift test 2>&1 | tee /tmp/test.log
    python3 scripts/test-tally.py /tmp/tally /tmp/test.log

Each start of a `parley*` binary by a test is a line in the tally (the test's id, from
`ChildProcess`); the log's last line says how many tests ran. A test that starts none
runs in process: the engine's API, the server or the gateway on a socket, the shell
through `CommandLineEntry.runInProcess`.
"""
import collections
import re
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
tally, log = sys.argv[1], sys.argv[2]
starts = collections.Counter(line.strip() for line in open(tally, encoding="utf-8") if line.strip())
# A start from a thread of a test's own names no test; the test itself names the rest.
unnamed = starts.pop("(no test)", 0)
ran = re.findall(r"Test run with (\d+) tests? in (\d+) suites?", open(log, encoding="utf-8", errors="replace").read())
if not ran:
    sys.exit(f"{log}: no 'Test run with N tests' line")
total = int(ran[-1][0])
# An id is Module.Suite/function()/File.swift:line:column; its module says its target.
targets = collections.Counter(test.split(".", 1)[0] for test in starts)
binary = len(starts)
print(f"tests: {total}; in process: {total - binary}; through a binary: {binary} (binaries started: {sum(starts.values()) + unnamed})")
for target, count in sorted(targets.items()):
    print(f"  {target}: {count} tests start a binary")
