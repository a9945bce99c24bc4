#!/usr/bin/env python3
"""Runs a test command (`swift test`) and makes a hang fail with a diagnosis.

    scripts/watch-tests.py SECONDS -- swift test

The command's output passes through unchanged. If the command has not ended after
SECONDS, this prints

  - the tests that started and never ended;
  - the processes the command started, still running;
  - the test process's threads that are in Parley's code (gdb, when installed),
    demangled, with all of its threads in a file;
  - the tests that never ended once more, for a log read from its end;

then kills what the command started and exits 124. Otherwise it exits with the
command's status.

What the tests leave running is stopped, and named: once the command has ended, and
also once its test process has been gone 30 s while the command goes on. `swift test`
waits for the end of the test process's output, so a server that a crashed test
started, still holding a copy of it, would keep `swift test` from ever ending.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

STARTED = re.compile(r"^◇ Test (?!case passing |run started)(\S.*?) started\.$")
ENDED = re.compile(r"^[✔✘] Test (\S.*?) (?:with \d+ test cases? )?(?:passed|failed)")
XCTEST_STARTED = re.compile(r"^Test Case '(.+)' started")
XCTEST_ENDED = re.compile(r"^Test Case '(.+)' (?:passed|failed|skipped)")
COLOUR = re.compile(r"\x1b\[[0-9;]*m")
# How long the command may go on without a test process before what is left is stopped.
ORPHANED_GRACE = 30


def main() -> int:
    arguments = sys.argv[1:]
    if len(arguments) < 3 or arguments[1] != "--" or not arguments[0].isdigit():
        print("usage: watch-tests.py SECONDS -- COMMAND [ARGUMENT ...]", file=sys.stderr)
        return 2
    limit = int(arguments[0])
    command = arguments[2:]
    began = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    running: dict[str, float] = {}
    lock = threading.Lock()

    def relay() -> None:
        assert child.stdout is not None
        for raw in iter(child.stdout.readline, b""):
            sys.stdout.buffer.write(raw)
            sys.stdout.buffer.flush()
            line = COLOUR.sub("", raw.decode("utf-8", "replace")).rstrip("\n")
            with lock:
                if match := STARTED.match(line) or XCTEST_STARTED.match(line):
                    running[match.group(1)] = time.monotonic() - began
                elif match := ENDED.match(line) or XCTEST_ENDED.match(line):
                    running.pop(match.group(1), None)

    reader = threading.Thread(target=relay, daemon=True)
    reader.start()

    processes = Processes(child.pid)
    seen_test_process = False
    test_process_gone_since: float | None = None
    reason = None
    while child.poll() is None:
        time.sleep(2)
        members = processes.members()
        testers = [pid for pid in members if is_test_process(pid)]
        seen_test_process = seen_test_process or bool(testers)
        if seen_test_process and not testers:
            test_process_gone_since = test_process_gone_since or time.monotonic()
            if time.monotonic() - test_process_gone_since > ORPHANED_GRACE:
                # `swift test` waits for the end of the test process's output, which
                # what the test process left running still holds.
                stop_leftovers([pid for pid in members if pid != child.pid], "the test process ended; the command still waits, on")
                test_process_gone_since = None
        else:
            test_process_gone_since = None
        if time.monotonic() - began > limit:
            reason = f"the tests did not finish within {limit} s"
            break

    if reason is None:
        # Whatever the command left behind must not hold its output open.
        stop_leftovers(processes.members(), "the command ended; it left running")
        reader.join(timeout=10)
        return child.returncode

    sys.stdout.flush()
    with lock:
        unfinished = sorted(running.items(), key=lambda item: item[1])
    leftovers = processes.members()
    print(f"\n=== watch-tests: {reason} ===", flush=True)
    print_unfinished(unfinished)
    print("=== processes the command started, still running ===", flush=True)
    for pid in leftovers:
        print(f"{pid} {command_line(pid)}", flush=True)
    for pid in leftovers:
        if is_test_process(pid):
            print_threads(pid)
    processes.kill()
    reader.join(timeout=10)
    # Again, last, for a log read from its end.
    print_unfinished(unfinished)
    print(f"=== watch-tests: {reason} ===", flush=True)
    return 124


class Processes:
    """What the command started: its descendants, and every process in a process group
    one of them led or joined. `swift test` runs the test process in a group of its own,
    and the children of a test process that crashed stay in that group. A process that
    left the command's session on purpose (PostgreSQL, the watcher that stops it after
    the tests) is not counted: it holds none of the command's output."""

    def __init__(self, root: int):
        self.root = root
        self.groups = {root}

    def members(self) -> list[int]:
        table = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            # After the name: state, ppid, pgrp, session.
            if fields[0] != b"Z" and int(fields[3]) == self.root:
                table[int(entry)] = (int(fields[1]), int(fields[2]))
        descendants = {self.root}
        grew = True
        while grew:
            grew = False
            for pid, (parent, _) in table.items():
                if parent in descendants and pid not in descendants:
                    descendants.add(pid)
                    grew = True
        self.groups |= {table[pid][1] for pid in descendants if pid in table}
        return sorted(pid for pid, (_, group) in table.items() if group in self.groups)

    def kill(self) -> None:
        self.members()
        for group in self.groups:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass


def stop_leftovers(pids: list[int], what: str) -> None:
    if not pids:
        return
    print(f"=== watch-tests: {what}: ===", flush=True)
    for pid in pids:
        print(f"{pid} {command_line(pid)}", flush=True)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return cmdline.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:300]
    except OSError:
        return "?"


def is_test_process(pid: int) -> bool:
    return ".xctest" in command_line(pid).split(" ")[0]


def print_unfinished(unfinished: list[tuple[str, float]]) -> None:
    print(f"=== {len(unfinished)} tests started and never ended (started at, in s after the command) ===")
    for name, started in unfinished:
        print(f"{started:8.1f}  {name}")
    sys.stdout.flush()


def print_threads(pid: int) -> None:
    """The threads of the test process that are in the project's code, their first
    frames; all of them, whole, go to a file (a CI log may keep only so much)."""
    gdb = shutil.which("gdb")
    if gdb is None:
        print(f"=== no threads of {pid}: gdb is not installed ===", flush=True)
        return
    try:
        traced = subprocess.run(
            [gdb, "-p", str(pid), "-batch", "-ex", "set print frame-arguments none", "-ex", "thread apply all bt 60"],
            capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        print(f"=== no threads of {pid}: gdb did not finish within 300 s ===", flush=True)
        return
    text = traced.stdout.decode("utf-8", "replace")
    demangler = shutil.which("swift-demangle")
    if demangler:
        demangled = subprocess.run([demangler, "--simplified"], input=text.encode(), capture_output=True)
        text = demangled.stdout.decode("utf-8", "replace") or text
    dump = os.path.join(tempfile.gettempdir(), f"watch-tests-threads-{pid}.txt")
    with open(dump, "w") as file:
        file.write(text)
    threads = [part for part in re.split(r"\n(?=Thread \d+ )", text) if part.startswith("Thread ")]
    ours = [thread for thread in threads if "Parley" in thread]
    print(f"=== {len(ours)} of the {len(threads)} threads of {pid} are in Parley's code (all of them: {dump}) ===")
    for thread in ours:
        lines = thread.strip().split("\n")
        print("\n".join(line[:240] for line in lines[:30]))
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
