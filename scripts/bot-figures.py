#!/usr/bin/env python3
"""Measures the bot host through the real binary (embedded mode):

  - send-to-plugin latency: the shell sends "t=<time>" messages at a steady rate to a
    group with a plugin in it; the plugin notes how long each took to reach it
    (command parsed, message committed, event to the bot's connection, host queue,
    JSON line, pipe, python reading it). p50/p99 over the run.
  - actions/s: the plugin writes N send actions at once (rate limit raised with
    --rate); the time until all N results are back.

    scripts/bot-figures.py [PATH_TO_PARLEY] [--messages 2000] [--rate 500] [--actions 5000]
"""
import argparse
import os
import subprocess
import tempfile
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("parley", nargs="?", default=os.path.join(root, ".build/debug/parley"))
parser.add_argument("--messages", type=int, default=2000)
parser.add_argument("--rate", type=int, default=500, help="messages a second in the latency run")
parser.add_argument("--actions", type=int, default=5000)
args = parser.parse_args()
probe = os.path.join(root, "Benchmarks/bots/probe.py")


def shell(data):
    env = dict(os.environ, PARLEY_BCRYPT_COST="4")
    process = subprocess.Popen([args.parley, "--data", data], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=env, text=True, bufsize=1)
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return process


def wait_for(path, predicate, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path) and predicate(open(path).read()):
            return True
        time.sleep(0.05)
    return False


data = tempfile.mkdtemp()
latencies = os.path.join(data, "latency.txt")
flood = os.path.join(data, "flood.txt")
p = shell(data)
w = p.stdin.write
w("/register bench@example.com --handle bench --password bench-password\n/create #bench\n")
w("/plugin load %s --as @probe --name probe latency %s\n/invite @probe #bench\n/sleep 500ms\n" % (probe, latencies))
p.stdin.flush()
time.sleep(2)
interval = 1.0 / args.rate
start = time.time()
for i in range(args.messages):
    target = start + i * interval
    delay = target - time.time()
    if delay > 0:
        time.sleep(delay)
    w("/send #bench t=%.6f\n" % time.time())
    p.stdin.flush()
wait_for(latencies, lambda text: text.count("\n") >= args.messages, 60)
values = sorted(float(v) * 1000 for v in open(latencies).read().split())
w("/plugin load %s --as @flood --name flood --rate 1000000 flood %d %s\n/invite @flood #bench\n/sleep 500ms\n/send #bench go\n"
  % (probe, args.actions, flood))
p.stdin.flush()
wait_for(flood, lambda text: "actions/s" in text)
w("/quit\n")
p.stdin.close()
p.wait(timeout=60)


def pct(q):
    return values[min(len(values) - 1, int(q * len(values)))]


print("send-to-plugin latency over %d messages at %d/s: p50 %.2f ms, p99 %.2f ms, max %.2f ms"
      % (len(values), args.rate, pct(0.5), pct(0.99), values[-1]))
print("actions through the host: " + open(flood).read().strip())
