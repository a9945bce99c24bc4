#!/usr/bin/env python3
"""Sequential sends through the HTTP API for S seconds; prints count, median and p99.
   scripts/api-send-latency.py PORT BOT_TOKEN CHAT_ID [SECONDS]"""
import http.client, sys, time, json
port, token, chat = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 8
c = http.client.HTTPConnection("127.0.0.1", port)
lat = []
stop = time.time() + seconds
i = 0
while time.time() < stop:
    body = json.dumps({"chat": chat, "text": f"person {i}"})
    t = time.perf_counter()
    c.request("POST", "/v1/api/send", body=body, headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    lat.append((time.perf_counter() - t) * 1000)
    assert r.status == 200, r.status
    i += 1
lat.sort()
print(f"{len(lat)/seconds:.0f} sends/s, median {lat[len(lat)//2]:.2f} ms, p99 {lat[int(len(lat)*0.99)]:.2f} ms")
