"""Zero-difference check: the reports (and their fixes) of two devlint checkouts over the corpus.

    python benchmarks/report_diff.py OLD_CHECKOUT NEW_CHECKOUT [--root DIR ...]
    python benchmarks/report_diff.py OLD_CHECKOUT --save baseline.json [--root DIR ...]
    python benchmarks/report_diff.py NEW_CHECKOUT --against baseline.json
    ... [--devlint-args "--preview --max-file-size 8MB"]

Each checkout runs its own devlint (`python -m devlint --isolated --no-cache --exit-zero
--output-format json --unsafe-fixes ROOT`, PYTHONPATH set to the checkout, run in ROOT) over each
root; the default roots are the `full` and `wide` corpus sets. `--concise` reads the default output
instead (no end positions, no fix edits: the run the CLI makes by default, where LibCST may parse only
the statements the rules need; with fix edits it parses every statement). Every report is reduced to what a
user sees: its path relative to the root, position, code, message, `# noqa` row, notebook cell,
and its fix (applicability, description, message and every edit). Prints each difference, grouped
by file: a report that is gone (`-`), new (`+`), or changed at the same place and code (`~`, with
the fields that differ). Exit 1 when there is any, 0 when the reports are identical.

`--save FILE` writes the first checkout's normalised reports (with its commit and the roots) so a
baseline is taken once; `--against FILE` compares the only checkout given with that file instead
of running a second one. Run it under `nice`; each side is one cold corpus run per root.
Run by hand, never by the tests.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
from typing import Any

CORPUS = os.path.expanduser("~/.cache/devlint-dev-corpus")
DEFAULT_ROOTS = [os.path.join(CORPUS, "src"), os.path.join(CORPUS, "wide")]

# A report's place: what pairs a gone report with a new one as "changed".
PLACE = ("path", "line", "column", "code")


def devlint_json(checkout: str, root: str, extra: tuple[str, ...] = (),
                 concise: bool = False) -> tuple[list[dict[str, Any]], str]:
    """(the JSON reports, devlint's stderr) of one cold run of `checkout`'s devlint over `root`; `concise`: the
    reports of the default output read back (no fix edits: devlint does not compute them there)."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout)}
    command = [sys.executable, "-m", "devlint", "--isolated", "--no-cache", "--exit-zero",
               "--output-format", "concise" if concise else "json", "--unsafe-fixes", *extra, root]
    done = subprocess.run(command, env=env, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"devlint of {checkout} failed on {root} (exit {done.returncode}):\n{done.stderr}")
    if concise:
        return [_concise_report(match) for match in CONCISE_LINE.finditer(done.stdout)], done.stderr
    return json.loads(done.stdout), done.stderr


# `path:line:column: CODE [*] message`, a line of the concise output
CONCISE_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>DEV\d+) (?P<message>.*)$", re.M)


def _concise_report(match: re.Match[str]) -> dict[str, Any]:
    """A concise line as the JSON report fields `normalised` reads (the fix marker stays in the message)."""
    return {"path": match["path"], "line": int(match["line"]), "column": int(match["column"]), "end_line": None,
            "end_column": None, "code": match["code"], "message": match["message"]}


def normalised(report: dict[str, Any], root: str) -> dict[str, Any]:
    """What a user sees of one report, with the path relative to the corpus root."""
    fix = report.get("fix")
    if fix is not None:
        fix = {
            "applicability": fix.get("applicability"),
            "description": fix.get("description"),
            "message": fix.get("message"),
            "edits": [[edit["content"], edit["location"]["row"], edit["location"]["column"],
                       edit["end_location"]["row"], edit["end_location"]["column"]]
                      for edit in fix.get("edits", [])],
        }
    return {
        "path": os.path.relpath(os.path.join(root, report["path"]), root),
        "line": report["line"],
        "column": report["column"],
        "end_line": report["end_line"],
        "end_column": report["end_column"],
        "code": report["code"],
        "message": report["message"],
        "noqa_row": report.get("noqa_row"),
        "cell": report.get("cell"),
        "notebook_line": report.get("notebook_line"),
        "fix": fix,
    }


def sort_key(report: dict[str, Any]) -> tuple:
    return (report["path"], report["line"], report["column"], report["code"], json.dumps(report, sort_keys=True))


def commit_of(checkout: str) -> str:
    done = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", checkout, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or "unknown") + (" (with uncommitted changes)" if dirty else "")


def collect(checkout: str, roots: list[str], extra: tuple[str, ...] = (), concise: bool = False) -> dict[str, Any]:
    """Every root's normalised reports from one checkout, keyed by the root's name."""
    sets: dict[str, Any] = {}
    for root in roots:
        name = os.path.basename(os.path.normpath(root))
        start = time.perf_counter()
        print(f"{checkout}: {root} ...", file=sys.stderr, flush=True)
        reports, stderr = devlint_json(checkout, root, extra, concise)
        sets[name] = {
            "root": root,
            "seconds": round(time.perf_counter() - start, 1),
            "stderr": stderr.strip().splitlines(),
            "reports": sorted((normalised(report, root) for report in reports), key=sort_key),
        }
        print(f"  {len(reports)} reports, {sets[name]['seconds']} s", file=sys.stderr, flush=True)
    return {"checkout": os.path.abspath(checkout), "commit": commit_of(checkout),
            "args": [*extra, *(["--output-format", "concise"] if concise else [])],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "sets": sets}


def differences(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """One line per difference between two lists of normalised reports, by file and line."""
    def counted(reports: list[dict[str, Any]]) -> collections.Counter:
        return collections.Counter(json.dumps(report, sort_keys=True) for report in reports)

    old_count, new_count = counted(old), counted(new)
    gone = [json.loads(text) for text in (old_count - new_count).elements()]
    added = [json.loads(text) for text in (new_count - old_count).elements()]
    added_at: dict[tuple, list[dict[str, Any]]] = collections.defaultdict(list)
    for report in added:
        added_at[tuple(report[field] for field in PLACE)].append(report)
    lines: list[tuple[tuple, str]] = []
    for report in sorted(gone, key=sort_key):
        place = tuple(report[field] for field in PLACE)
        if added_at.get(place):
            changed = added_at[place].pop(0)
            fields = [f"{field}: {json.dumps(report[field])} -> {json.dumps(changed[field])}"
                      for field in report if report[field] != changed[field]]
            lines.append((sort_key(report), f"~ {describe(report)}\n    " + "\n    ".join(fields)))
        else:
            lines.append((sort_key(report), f"- {describe(report)}"))
    for reports in added_at.values():
        lines.extend((sort_key(report), f"+ {describe(report)}") for report in reports)
    return [line for _, line in sorted(lines)]


def describe(report: dict[str, Any]) -> str:
    fix = report["fix"]
    fixed = "no fix" if fix is None else f"{fix['applicability']} fix, {len(fix['edits'])} edit(s)"
    return f"{report['path']}:{report['line']}:{report['column']}: {report['code']} {report['message']} [{fixed}]"


def compare(old: dict[str, Any], new: dict[str, Any]) -> int:
    """Print every difference between two collections; the number of differences."""
    print(f"old: {old['checkout']} at {old['commit']} ({old['date']})")
    print(f"new: {new['checkout']} at {new['commit']} ({new['date']})")
    total = 0
    for name in sorted(set(old["sets"]) | set(new["sets"])):
        if name not in old["sets"] or name not in new["sets"]:
            print(f"\n## {name}: only on the {'old' if name in old['sets'] else 'new'} side; not compared")
            total += 1
            continue
        before, after = old["sets"][name], new["sets"][name]
        found = differences(before["reports"], after["reports"])
        total += len(found)
        print(f"\n## {name}: {len(before['reports'])} reports before, {len(after['reports'])} after,"
              f" {len(found)} difference(s)")
        if before["stderr"] != after["stderr"]:
            # Not a report: the summary line (files checked) or a warning; shown, not counted.
            print("stderr differs:\n  old: " + "\n  old: ".join(before["stderr"])
                  + "\n  new: " + "\n  new: ".join(after["stderr"]))
        for line in found:
            print(line)
    print(f"\n{total} difference(s)")
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", metavar="CHECKOUT", help="OLD [NEW], or one with --save/--against")
    parser.add_argument("--root", action="append", dest="roots", metavar="DIR",
                        help="corpus root, repeatable (default: the full and wide sets)")
    parser.add_argument("--save", metavar="FILE", help="write the first checkout's normalised reports here")
    parser.add_argument("--against", metavar="FILE", help="compare the checkout with reports saved by --save")
    parser.add_argument("--devlint-args", default="", metavar="ARGS",
                        help="more options for both sides' devlint, as one string (`--preview`)")
    parser.add_argument("--concise", action="store_true",
                        help="compare the default output's reports (positions, codes, messages, fix markers), which "
                             "computes no fix edits, instead of the JSON's")
    args = parser.parse_args()
    extra = tuple(args.devlint_args.split())
    roots = [os.path.abspath(os.path.expanduser(root)) for root in args.roots or DEFAULT_ROOTS]
    wanted = 1 if args.against else 2
    if len(args.checkouts) > wanted or (len(args.checkouts) < wanted and not args.save):
        parser.error("give OLD NEW, or OLD with --save, or NEW with --against")
    first = collect(args.checkouts[0], roots, extra, args.concise)
    if args.save:
        with open(args.save, "w") as handle:
            json.dump(first, handle, indent=1, sort_keys=True)
        print(f"saved {sum(len(s['reports']) for s in first['sets'].values())} reports to {args.save}",
              file=sys.stderr)
    if args.against:
        with open(args.against) as handle:
            return 1 if compare(json.load(handle), first) else 0
    if len(args.checkouts) == 2:
        return 1 if compare(first, collect(args.checkouts[1], roots, extra, args.concise)) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
