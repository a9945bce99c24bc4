#!/usr/bin/env python3
"""Measures the shell: a 100k-line /send script (commands/s) and the time from start
to prompt on a terminal with a data folder holding those 100k messages.

usage: scripts/shell-figures.py PATH_TO_PARLEY [LINES]
"""
import os, pty, select, statistics, subprocess, sys, tempfile, time

parley = sys.argv[1]
lines = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
data = tempfile.mkdtemp(prefix="parley-figures-")
env = dict(os.environ, PARLEY_BCRYPT_COST="4", NO_COLOR="1")

setup = "/register figures@example.com --handle figures --password figures-pw\n/create #bench\n"
subprocess.run([parley, "--data", data], input=setup.encode(), env=env, check=True, stdout=subprocess.DEVNULL)

script = "".join(f"/send #bench message number {i}\n" for i in range(lines))
start = time.perf_counter()
result = subprocess.run([parley, "--data", data], input=script.encode(), env=env, stdout=subprocess.DEVNULL)
elapsed = time.perf_counter() - start
assert result.returncode == 0, result
print(f"{lines} /send lines in {elapsed:.2f} s: {lines / elapsed:,.0f} commands/s")

def time_to_prompt():
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(parley, [parley, "--data", data], env)
    start = time.perf_counter()
    seen = b""
    while b"> " not in seen:
        ready, _, _ = select.select([fd], [], [], 10)
        if not ready:
            raise RuntimeError("no prompt: " + seen.decode(errors="replace"))
        seen += os.read(fd, 4096)
    elapsed = time.perf_counter() - start
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(fd)
    return elapsed

samples = [time_to_prompt() for _ in range(30)]
print(f"start to prompt with {lines} messages: median {statistics.median(samples) * 1000:.1f} ms, "
      f"p90 {sorted(samples)[int(len(samples) * 0.9)] * 1000:.1f} ms")
