"""Where devlint's time goes: CPU seconds per stage of the engine, one process, over a corpus.

    python benchmarks/stages.py ~/.cache/devlint-dev-corpus/src

Runs `engine.analyze` on every `.py` file with each stage wrapped in a timer: the text
prefilter, the `# noqa` scan, data stand-ins, Python's `ast.parse` and the screen's facts
(devlint/analysis/screen.py), the file context, the statements LibCST needs, LibCST's parse, the batched traversal (context and every
rule's visitor), positions, the reports (noqa, statements, fix edits), the rules' `finish`, freeing the trees
the two parsers made (kept until the file is done, then freed apart: reference counting's share), and the rest
(the engine's per-file glue). The files are read before the clock starts. Run by hand, like benchmarks/run.py; the figures go in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable

from devlint.analysis import screen
from devlint.engine import cst_stage, engine, narrowed_parse, parsing
from devlint.engine.collector import collector_paused
from devlint.engine.settings import Settings
from devlint.rules import all_rules

spent: Counter[str] = Counter()
calls: Counter[str] = Counter()


def timer(stage: str, function: Callable[..., object]) -> Callable[..., object]:
    def timed(*args: object, **kwargs: object) -> object:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[stage] += time.process_time() - start
            calls[stage] += 1
    return timed


born: list[object] = []  # the trees the parsers made for the file being analysed


def keeping(function: Callable[..., object]) -> Callable[..., object]:
    """`function`, whose result (a parser's tree) is also kept in `born`, to be freed apart after the file."""
    def kept(*args: object, **kwargs: object) -> object:
        tree = function(*args, **kwargs)
        born.append(tree)
        return tree
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--preview", action="store_true", help="every rule, preview ones included")
    args = parser.parse_args()
    engine.prefilter = timer("text prefilter", engine.prefilter)  # type: ignore[assignment]
    engine.data_stand_ins = timer("data stand-ins (files over 256 KB)", engine.data_stand_ins)  # type: ignore
    engine.parse_python = timer("ast.parse (Python's parser)", keeping(engine.parse_python))  # type: ignore[assignment]
    engine.Suppressions = timer("noqa comments (every file)", engine.Suppressions)  # type: ignore[assignment]
    screen.parse = timer("ast.parse (screen)", screen.parse)  # type: ignore[assignment]
    engine.screen_with_facts = timer("screen (ast.parse + facts)", engine.screen_with_facts)  # type: ignore[assignment]
    parsing._parse = timer("LibCST parse", keeping(parsing._parse))  # type: ignore[assignment]
    narrowed_parse.needed_statements = timer("statements LibCST needs (ast)", narrowed_parse.needed_statements)  # type: ignore
    cst_stage.visit_batched = timer("traversal (context + rule visitors)", cst_stage.visit_batched)  # type: ignore
    cst_stage.node_positions = timer("positions (files with reports)", cst_stage.node_positions)  # type: ignore[assignment]
    cst_stage._resolve = timer("reports (noqa, statements, fixes)", cst_stage._resolve)  # type: ignore[assignment]
    cst_stage.FileContext = timer("file context (torch names, project index)", cst_stage.FileContext)  # type: ignore
    for entry in all_rules():  # each rule's `finish` (what it decides after the traversal)
        entry.visitor.finish = timer("rules' finish", entry.visitor.finish)  # type: ignore[method-assign]
    settings = Settings(select=("DEV",), preview=args.preview)
    files = sorted(p for root in args.roots for p in Path(root).rglob("*.py") if p.is_file())
    sources = [(str(path), path.read_text(encoding="utf-8", errors="replace")) for path in files]  # (not timed)
    reports = 0
    start = time.process_time()
    for path, source in sources:
        with collector_paused():  # (as in `analyze`: the trees are freed before the collector is on again)
            reports += len(engine.analyze(source, path, settings).diagnostics)
            freeing = time.process_time()
            born.clear()
            spent["freeing the trees (reference counting)"] += time.process_time() - freeing
    total = time.process_time() - start
    spent["screen facts"] = spent.pop("screen (ast.parse + facts)") - spent["ast.parse (screen)"]
    calls["screen facts"] = calls.pop("screen (ast.parse + facts)")
    spent["the rest of the engine (per-file glue)"] = total - sum(spent.values())
    print(f"{len(files)} files, {reports} reports, {total:.1f} s CPU in one process\n")
    print("| stage | files | CPU s | share |\n|---|---:|---:|---:|")
    for stage in ("text prefilter", "noqa comments (every file)", "data stand-ins (files over 256 KB)",
                  "ast.parse (Python's parser)", "ast.parse (screen)", "screen facts",
                  "file context (torch names, project index)", "statements LibCST needs (ast)", "LibCST parse",
                  "traversal (context + rule visitors)", "positions (files with reports)",
                  "reports (noqa, statements, fixes)", "rules' finish", "freeing the trees (reference counting)",
                  "the rest of the engine (per-file glue)"):
        count = calls[stage] if stage in calls else "-"
        print(f"| {stage} | {count} | {spent[stage]:.1f} | {spent[stage] / total:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
