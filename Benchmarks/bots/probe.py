#!/usr/bin/env python3
"""A plugin that measures the host (used by scripts/bot-figures.py).

    probe.py latency FILE   for each message "t=SECONDS", appends now - SECONDS to FILE
    probe.py flood N FILE   on the message "go", writes N send actions at once and, once
                            all N results are back, writes N / elapsed to FILE
"""
import json
import sys
import time

mode = sys.argv[1]
print(json.dumps({"type": "hello", "name": "probe"}), flush=True)

if mode == "latency":
    out = open(sys.argv[2], "a")
    for line in sys.stdin:
        now = time.time()
        event = json.loads(line)
        if event.get("type") == "message":
            text = event["message"]["text"]
            if text.startswith("t="):
                out.write("%.6f\n" % (now - float(text[2:])))
                out.flush()
else:
    count, path = int(sys.argv[2]), sys.argv[3]
    started, answered, failed, dropped = None, 0, 0, 0
    for line in sys.stdin:
        event = json.loads(line)
        if event.get("type") == "message" and event["message"]["text"] == "go" and started is None:
            chat = event["chat"]["id"]
            started = time.time()
            lines = [json.dumps({"type": "send", "to": str(chat), "text": "flood %d" % i, "ref": i}) for i in range(count)]
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
        elif event.get("code") == "events_dropped" and started is not None:
            answered += event["count"]  # results lost to the bounded queue still went through the host
            dropped += event["count"]
        elif event.get("ref") is not None and started is not None:
            answered += 1
            failed += event.get("type") == "error"
            if answered >= count:
                elapsed = time.time() - started
                with open(path, "w") as f:
                    f.write("%d actions in %.3f s: %.0f actions/s (%d errors, %d results dropped by the queue)\n"
                            % (count, elapsed, count / elapsed, failed, dropped))
