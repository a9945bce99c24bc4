#!/usr/bin/env python3
"""The table of scripts/side-by-side.sh: each server's median of each figure over the runs, and
Parley's ratios to the peer that stores (ergo-mysql, else ergo) and to the relay (inspircd).
usage: side-by-side.py RESULTS.jsonl"""
import sys

sys.path.insert(0, "scripts")
from load_results import load, median as median_of

runs = load(sys.argv[1])

order = ["inspircd", "ergo", "ergo-mysql", "parley", "parley-irc"]
servers = [s for s in order if any(label.startswith(s + " ") for label in runs)]
cases = ["closed-loop", "rate 1000/s", "rate 50/s"]
figures = [
    ("acked/s", "acked_per_s", lambda v: f"{v:,.0f}"),
    ("e2e p50", "e2e_p50_ms", lambda v: f"{v:.2f} ms"),
    ("e2e p99", "e2e_p99_ms", lambda v: f"{v:.2f} ms"),
    ("ack p99", "ack_p99_ms", lambda v: f"{v:.2f} ms"),
    ("CPU per message", "cpu", lambda v: f"{v:.0f} µs"),
]


def median(server, case, key):
    return median_of(runs, f"{server} {case}", key)


peer = "ergo-mysql" if "ergo-mysql" in servers else ("ergo" if "ergo" in servers else None)
mine = [s for s in ("parley", "parley-irc") if s in servers]
ratios = [(m, p) for p in (peer, "inspircd") if p in servers for m in mine]
names = {"parley": "WS", "parley-irc": "IRC"}
header = ["case", "figure"] + servers + [f"{names[m]} / {p}" for m, p in ratios]
print("| " + " | ".join(header) + " |")
print("|" + " --- |" * len(header))
for case in cases:
    for title, key, shown in figures:
        values = {s: median(s, case, key) for s in servers}
        if all(v is None for v in values.values()) or (key == "acked_per_s" and case != "closed-loop"):
            continue  # at a fixed rate every server acknowledges the rate (missing sends are counted below)
        cells = [case, title] + ["-" if values[s] is None else shown(values[s]) for s in servers]
        for m, p in ratios:
            a, b = values.get(p), values.get(m)
            cells.append(f"{b / a:.2f}×" if a and b else "-")
        print("| " + " | ".join(cells) + " |")
counts = {label: len(rs) for label, rs in runs.items()}
missing = sum(r.get("missing", 0) for rs in runs.values() for r in rs)
errors = sum(r.get("errors", 0) for rs in runs.values() for r in rs)
print(f"\nruns per case: {min(counts.values()) if counts else 0}–{max(counts.values()) if counts else 0}; "
      f"missing deliveries: {missing}; refused or unanswered sends: {errors}")
