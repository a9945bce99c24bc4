#!/usr/bin/env python3
"""Where a send's time goes inside `parley serve`, from the file it writes when started
with PARLEY_STAGES=FILE (Sources/ParleyLive/SendStages.swift): for each stage, the time
from the request frame's arrival (p50, p90, p99, max), and the step from the stage
before it (p50, p99), in milliseconds.

    PARLEY_STAGES=/tmp/stages.tsv parley serve ...   # load it, stop it (SIGTERM)
    python3 scripts/send-stages.py /tmp/stages.tsv [--skip N]

--skip N leaves out the first N sends (a run's warm-up)."""
import argparse
import sys


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N sends")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = parser.parse_args()
    with open(args.file) as handle:
        stages = handle.readline().split()
        rows = [line.split("\t") for line in handle if line.strip()]
    rows = rows[args.skip:]
    parsed = [[None if cell.strip() == "-" else int(cell) / 1000 for cell in row] for row in rows]
    complete = [row for row in parsed if all(cell is not None for cell in row)]
    print(f"{len(rows)} sends, {len(complete)} through every stage", file=sys.stderr)
    header = ["stage", "from frame p50", "p90", "p99", "max", "step p50", "step p99"]
    lines = []
    for index, stage in enumerate(stages):
        since = [row[index] for row in complete]
        steps = [row[index] - (row[index - 1] if index else 0) for row in complete]
        if stage == "delivered":
            # From the publication: the reply is written between the two.
            steps = [row[index] - row[stages.index("published")] for row in complete]
            stage = "delivered (step from published)"
        if stage == "replied":
            steps = [row[index] - row[stages.index("published")] for row in complete]
            stage = "replied (step from published)"
        figures = [percentile(since, 0.5), percentile(since, 0.9), percentile(since, 0.99), max(since, default=float("nan")),
                   percentile(steps, 0.5), percentile(steps, 0.99)]
        lines.append([stage] + [f"{value:.3f}" for value in figures])
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + " --- |" * len(header))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(row[i]) for row in [header] + lines) for i in range(len(header))]
        for row in [header] + lines:
            print("  ".join(cell.rjust(width) if i else cell.ljust(width) for i, (cell, width) in enumerate(zip(row, widths))))


if __name__ == "__main__":
    main()
