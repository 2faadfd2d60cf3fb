"""Recall on bugs that shipped: each case is a device bug that a public PyTorch project released and
its maintainers fixed, rewritten as a small file that keeps the bug's shape (where the value is made,
where it goes), beside the same file with the maintainers' fix.

    python benchmarks/shipped.py [--cases benchmarks/shipped] [--only DEV005] [--checkout DIR] [-v]

A case is a folder `benchmarks/shipped/DEVnnn/<name>/` with:
  bug.py    the code before the fix; each line the rule should report ends in `# expect: DEVnnn`
            (its first lines are comments naming the fix: `# shipped: <URL of the fix>`)
  fixed.py  the same code after the maintainers' fix: a report of that code there is a false one

Each case is checked with the default rules and with `--preview`, every file on its own
(`--isolated --no-cache`: no project settings, no cache). A case is found when a report of its code
is on an expected line; `--checkout DIR` runs the devlint of another checkout (its PYTHONPATH and
working directory) on the same cases, for a before/after. Prints, per code and mode: cases found, the missed ones by name, and reports of
that code on the fixed files. Exit 0; it measures, it does not gate.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
_EXPECT = re.compile(r"#\s*expect:\s*(DEV\d{3}(?:\s*,\s*DEV\d{3})*)")
MODES = {"default": [], "preview": ["--preview"]}


def expected_lines(path: str) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            match = _EXPECT.search(line)
            if match:
                found[number] = {code.strip() for code in match[1].split(",")}
    return found


def reports(paths: list[str], extra: list[str], checkout: str) -> dict[str, list[tuple[int, str]]]:
    """Every report the devlint of `checkout` makes on `paths`, by absolute path: (line, code)."""
    command = [sys.executable, "-m", "devlint", "--isolated", "--no-cache", "--exit-zero",
               "--output-format", "json", *extra, *paths]
    env = {**os.environ, "PYTHONPATH": checkout}  # (run in the checkout: `-m` puts it first on the path)
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=checkout, env=env)
    if done.returncode != 0:
        raise SystemExit(f"devlint failed ({done.returncode}): {done.stderr[-2000:]}")
    by_path: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for item in json.loads(done.stdout or "[]"):
        by_path[os.path.abspath(item["path"])].append((item["line"], item["code"]))
    return by_path


def cases(root: str, only: str | None) -> list[tuple[str, str, str]]:
    """(code, name, folder) of every case under `root`."""
    found = []
    for code in sorted(os.listdir(root)):
        if not re.fullmatch(r"DEV\d{3}", code) or (only and code != only):
            continue
        for name in sorted(os.listdir(os.path.join(root, code))):
            folder = os.path.join(root, code, name)
            if os.path.isfile(os.path.join(folder, "bug.py")):
                found.append((code, name, folder))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=os.path.join(HERE, "shipped"))
    parser.add_argument("--only", help="one rule code")
    parser.add_argument("--checkout", default=os.path.dirname(HERE), help="the devlint checkout to run")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the found cases too")
    args = parser.parse_args()
    chosen = cases(args.cases, args.only)
    if not chosen:
        print("no cases")
        return 0
    bugs = [os.path.abspath(os.path.join(folder, "bug.py")) for _, _, folder in chosen]
    fixed = [os.path.abspath(os.path.join(folder, "fixed.py")) for _, _, folder in chosen
             if os.path.isfile(os.path.join(folder, "fixed.py"))]
    for mode, extra in MODES.items():
        found_by_path = reports(bugs + fixed, extra, os.path.abspath(args.checkout))
        found: dict[str, list[str]] = defaultdict(list)
        missed: dict[str, list[str]] = defaultdict(list)
        on_fixed: dict[str, list[str]] = defaultdict(list)
        for code, name, folder in chosen:
            bug = os.path.abspath(os.path.join(folder, "bug.py"))
            wanted = expected_lines(bug)
            hit = any(code in wanted.get(line, ()) and reported == code for line, reported in found_by_path[bug])
            (found if hit else missed)[code].append(name)
            fix = os.path.abspath(os.path.join(folder, "fixed.py"))
            on_fixed[code].extend(f"{name}:{line}" for line, reported in found_by_path.get(fix, ()) if reported == code)
        print(f"## {mode}")
        for code in sorted({code for code, _, _ in chosen}):
            total = len(found[code]) + len(missed[code])
            print(f"{code}: found {len(found[code])} of {total} ({len(found[code]) / total:.0%}); "
                  f"reports on the fixed files: {len(on_fixed[code])}")
            if missed[code]:
                print("  missed: " + ", ".join(missed[code]))
            if args.verbose and found[code]:
                print("  found: " + ", ".join(found[code]))
            if on_fixed[code]:
                print("  on fixed: " + ", ".join(on_fixed[code]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
