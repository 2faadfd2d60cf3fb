"""Precision on the real-code corpus: join a devlint run with the labelled list.

    python benchmarks/precision.py REPORTS.txt [--labels benchmarks/labels.csv] [--markdown]

REPORTS.txt is devlint's text output over a corpus root (`~/.cache/devlint-dev-corpus/src` from
`../shared/corpus/fetch.sh full`, `.../wide` from `fetch.sh wide`; give both outputs concatenated to
judge both sets), paths relative to that root or absolute. Labels name paths relative to their root
(the two sets hold different projects, so a path names one file).
Prints per-rule counts (reports, true bug, defensible, false positive, not yet labelled) and
every unlabelled report, so a rule change shows exactly what to read. Labels that no longer
match a report are listed as "gone" (a fixed false positive, or a lost true bug: read them).

The labels file is CSV: path,line,code,verdict,reason with verdict in {true,defensible,false}.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import sys
from collections import Counter

VERDICTS = ("true", "defensible", "false")
_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>DEV\d{3}) ")


def read_reports(path: str) -> list[tuple[str, int, str]]:
    roots = [os.path.expanduser(f"~/.cache/devlint-dev-corpus/{name}/") for name in ("src", "wide", "fresh")]
    reports = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            match = _LINE.match(line)
            if match:
                rel = match["path"]
                for root in roots:
                    if rel.startswith(root):
                        rel = rel[len(root):]
                reports.append((rel, int(match["line"]), match["code"]))
    return reports


def read_labels(path: str) -> dict[tuple[str, int, str], tuple[str, str]]:
    labels = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["verdict"] not in VERDICTS:
                raise SystemExit(f"{path}: bad verdict {row['verdict']!r} for {row['path']}:{row['line']}")
            labels[(row["path"], int(row["line"]), row["code"])] = (row["verdict"], row["reason"])
    return labels


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("reports")
    parser.add_argument("--labels", default=os.path.join(os.path.dirname(__file__), "labels.csv"))
    parser.add_argument("--markdown", action="store_true", help="print the counts as a markdown table")
    args = parser.parse_args()
    reports = read_reports(args.reports)
    labels = read_labels(args.labels)
    counts: dict[str, Counter] = {}
    unlabelled = []
    for key in reports:
        verdict = labels.get(key, ("unlabelled", ""))[0]
        counts.setdefault(key[2], Counter())[verdict] += 1
        if verdict == "unlabelled":
            unlabelled.append(key)
    gone = sorted(set(labels) - set(reports))
    if args.markdown:
        print("| rule | reports | true bug | defensible | false positive | TRUE share | FP rate |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    for code in sorted(counts):
        c = counts[code]
        total = sum(c.values())
        rate = c["false"] / total if total else 0.0
        share = c["true"] / total if total else 0.0
        if args.markdown:
            print(f"| {code} | {total} | {c['true']} | {c['defensible']} | {c['false']} | {share:.0%} | {rate:.1%} |")
        else:
            print(f"{code}: {total} reports, {c['true']} true, {c['defensible']} defensible, {c['false']} false,"
                  f" {c['unlabelled']} unlabelled (TRUE {share:.0%}, FP rate {rate:.1%})")
    for path, line, code in unlabelled:
        print(f"unlabelled: {path}:{line}: {code}", file=sys.stderr)
    for path, line, code in gone:
        verdict, reason = labels[(path, line, code)]
        print(f"gone: {path}:{line}: {code} (was {verdict}: {reason})", file=sys.stderr)
    return 1 if unlabelled else 0


if __name__ == "__main__":
    raise SystemExit(main())
