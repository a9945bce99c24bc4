"""The results `parley-load --json` appends, one run a line, read back by label: the helpers
that scripts/side-by-side.py, shapes.sh and floor.sh print their tables with."""
import json
import statistics


def load(path):
    """Runs by their label."""
    runs = {}
    for line in open(path):
        if line.strip():
            run = json.loads(line)
            runs.setdefault(run["label"], []).append(run)
    return runs


def median(runs, label, figure):
    """The median of `figure` over the label's runs; "cpu" is the server's CPU a message in
    µs, from the first send to the last delivery. None without runs."""
    values = []
    for run in runs.get(label, []):
        if figure == "cpu":
            if run.get("server_cpu_s") and run.get("acked"):
                values.append(run["server_cpu_s"] / run["acked"] * 1e6)
        elif run.get(figure) is not None:
            values.append(run[figure])
    return statistics.median(values) if values else None


def figures(case):
    """The figures a case's table rows show, (name, key): a case at a fixed rate has no
    throughput of its own to compare."""
    rows = [("acknowledged/s", "acked_per_s"), ("e2e p99 ms", "e2e_p99_ms"), ("server CPU µs/msg", "cpu")]
    return rows if case == "closed" else rows[1:]


def show(value, figure):
    return "-" if value is None else f"{value:.2f}" if figure == "e2e_p99_ms" else f"{value:,.0f}"


def summary(runs, path):
    missing = sum(run.get("missing") or 0 for label in runs for run in runs[label])
    return f"\nruns: {sum(len(v) for v in runs.values())}, messages missing in all: {missing}; results: {path}"
