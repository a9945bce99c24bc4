#!/usr/bin/env python3
"""Posts to one hook as fast as N keep-alive clients can for S seconds; prints posts/s.
   scripts/hook-load.py PORT /v1/hooks/TOKEN [CLIENTS] [SECONDS]"""
import http.client, sys, threading, time
port, path = int(sys.argv[1]), sys.argv[2]
clients = int(sys.argv[3]) if len(sys.argv) > 3 else 8
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 10
counts = {"ok": 0, "other": 0}
lock = threading.Lock()
stop = time.time() + seconds
def run(n):
    c = http.client.HTTPConnection("127.0.0.1", port)
    i = 0
    while time.time() < stop:
        c.request("POST", path, body=f"load {n}-{i}", headers={"Content-Type": "text/plain"})
        r = c.getresponse(); r.read()
        with lock: counts["ok" if r.status == 200 else "other"] += 1
        i += 1
threads = [threading.Thread(target=run, args=(n,)) for n in range(clients)]
start = time.time()
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.time() - start
print(f"{counts['ok'] / elapsed:.0f} posts/s ({counts['ok']} ok, {counts['other']} refused) over {elapsed:.1f} s, {clients} clients")
