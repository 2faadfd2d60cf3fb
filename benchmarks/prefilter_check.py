"""Do the prefilter's two stages lose a report on real code? Run by hand after changing a rule.

For every `.py` file under the given directories, runs all rules twice in worker processes:
as devlint does (text prefilter, then the `ast` screen) and with both stages off (every file
parsed by LibCST, every rule run). Prints each file whose reports differ and the counts of
files parsed by LibCST each way. Exit 1 when a report differs.

    python benchmarks/prefilter_check.py ~/.cache/devlint-dev-corpus/src [--jobs 2] [--default-shapes]

Preview on by default (every shape); `--default-shapes` checks again with preview off, where some screens
(DEV006's) keep a rule for fewer shapes.

Syntax errors (DEV999) are left out of the comparison: devlint reports them only for files it
parses (README, "Known limits").
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from devlint.engine import engine
from devlint.engine.settings import Settings

ALL = Settings(select=("DEV",), preview=True)  # every rule and shape, preview ones included


def _reports(source: str, path: str) -> tuple[list[tuple[int, int, str, str]], bool]:
    analysis = engine.analyze(source, path, ALL)
    reports = [(d.line, d.col, d.code, d.message) for d in analysis.diagnostics if d.code != "DEV999"]
    return reports, analysis.module is not None


def check(path: str) -> tuple[str, bool, bool, list, list]:
    source = Path(path).read_text(encoding="utf-8", errors="replace")
    filtered, parsed = _reports(source, path)
    prefilter, screen = engine.prefilter, engine.screen_with_facts
    engine.prefilter = lambda text, rules: list(rules)  # type: ignore[assignment]
    engine.screen_with_facts = lambda text, rules, tree=None, **_: (list(rules), None)  # type: ignore[assignment]
    try:
        unfiltered, parsed_unfiltered = _reports(source, path)
    finally:
        engine.prefilter, engine.screen_with_facts = prefilter, screen  # type: ignore[assignment]
    return path, parsed, parsed_unfiltered, filtered, unfiltered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--default-shapes", action="store_true",
                        help="every rule, preview off: the screens that keep a rule for fewer shapes without preview")
    args = parser.parse_args()
    global ALL
    if args.default_shapes:
        ALL = Settings(select=("DEV",))  # (the workers are forked after this)
    files = sorted(str(p) for root in args.roots for p in Path(root).rglob("*.py") if p.is_file())
    differing = parsed = parsed_unfiltered = reports = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, was_parsed, was_parsed_unfiltered, filtered, unfiltered in pool.map(check, files, chunksize=8):
            parsed += was_parsed
            parsed_unfiltered += was_parsed_unfiltered
            reports += len(unfiltered)
            if filtered != unfiltered:
                differing += 1
                print(f"DIFFERS {path}\n  with the prefilter:    {filtered}\n  without the prefilter: {unfiltered}")
    print(f"{len(files)} files, {reports} reports without the prefilter; parsed by LibCST: {parsed} with the"
          f" prefilter, {parsed_unfiltered} without; {differing} files report differently")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
