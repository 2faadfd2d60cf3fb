"""Every fix devlint offers on the corpus, joined with its reviewed verdict.

    C=~/.cache/devlint-dev-corpus
    devlint --isolated --no-cache --exit-zero -q --unsafe-fixes --output-format json-lines $C/src > /tmp/full.jsonl
    devlint --isolated --no-cache --exit-zero -q --unsafe-fixes --output-format json-lines $C/wide > /tmp/wide.jsonl
    python benchmarks/fix_review.py --full /tmp/full.jsonl --wide /tmp/wide.jsonl [--markdown]

`benchmarks/fix_labels.csv` holds one row per fix hunk that was read (set, path, line, code,
applicability, verdict, reason; verdict good / harmless / bad). This prints the counts per rule,
set and applicability, every offered fix that has no row (read it and add one), and every row
whose fix is no longer offered. Exit 1 when a fix is unlabelled or any labelled fix is bad.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from collections import Counter

VERDICTS = ("good", "harmless", "bad")
_ROOTS = {name: os.path.expanduser(f"~/.cache/devlint-dev-corpus/{folder}/")
          for name, folder in (("full", "src"), ("wide", "wide"))}


def offered_fixes(name: str, path: str) -> dict[tuple[str, str, int, str], str]:
    """(set, path under the set's root, line, code) -> applicability, for every report with a fix."""
    fixes = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("{"):
                continue
            report = json.loads(line)
            if not report.get("fix"):
                continue
            relative = report["path"]
            if relative.startswith(_ROOTS[name]):
                relative = relative[len(_ROOTS[name]):]
            fixes[(name, relative, report["line"], report["code"])] = report["fix"]["applicability"]
    return fixes


def read_labels(path: str) -> dict[tuple[str, str, int, str], tuple[str, str]]:
    labels = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["verdict"] not in VERDICTS:
                raise SystemExit(f"{path}: bad verdict {row['verdict']!r} for {row['path']}:{row['line']}")
            labels[(row["set"], row["path"], int(row["line"]), row["code"])] = (row["applicability"], row["verdict"])
    return labels


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", help="json-lines output over the full set")
    parser.add_argument("--wide", help="json-lines output over the wide set")
    parser.add_argument("--labels", default=os.path.join(os.path.dirname(__file__), "fix_labels.csv"))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    fixes: dict[tuple[str, str, int, str], str] = {}
    for name in ("full", "wide"):
        if getattr(args, name):
            fixes.update(offered_fixes(name, getattr(args, name)))
    labels = read_labels(args.labels)
    counts: Counter[tuple[str, str, str, str]] = Counter()
    unlabelled = []
    for key, applicability in sorted(fixes.items()):
        label = labels.get(key)
        if label is None:
            unlabelled.append(key)
            continue
        counts[(key[3], key[0], applicability, label[1])] += 1
    sets = {key[0] for key in fixes}
    gone = sorted(key for key in labels if key[0] in sets and key not in fixes)
    rows = sorted({(code, name, applicability) for code, name, applicability, _ in counts})
    if args.markdown:
        print("| rule | set | fix | good | harmless | bad |")
        print("|---|---|---|---:|---:|---:|")
    for code, name, applicability in rows:
        good, harmless, bad = (counts[(code, name, applicability, verdict)] for verdict in VERDICTS)
        if args.markdown:
            print(f"| {code} | {name} | {applicability} | {good} | {harmless} | {bad} |")
        else:
            print(f"{code} {name} {applicability}: {good} good, {harmless} harmless, {bad} bad")
    for name, path, line, code in unlabelled:
        print(f"unlabelled: {name}: {path}:{line}: {code} ({fixes[(name, path, line, code)]})", file=sys.stderr)
    for name, path, line, code in gone:
        print(f"gone: {name}: {path}:{line}: {code}", file=sys.stderr)
    bad = sum(n for (_, _, _, verdict), n in counts.items() if verdict == "bad")
    return 1 if unlabelled or bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
