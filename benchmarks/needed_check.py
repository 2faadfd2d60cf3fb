"""Zero-difference check of LibCST's parse of only the statements the rules need (devlint/analysis/needed.py).

    python benchmarks/needed_check.py ROOT [ROOT ...] [--preview] [--forced]

For every `.py` file under the roots, checked as the CLI checks it by default (`--preview`: with preview on):
the reports (positions, codes, messages, fixes offered) of `analyze` as it parses, against those of the whole
file (`analyze(whole=True)`). Counts the files where statements were left out or parsed for their header, and any
where LibCST did not take what was left (the whole text is then parsed: never seen, but it would cost time).

`--forced` checks the stand-ins themselves on every file, whatever its rules: the candidates are the first node of
every third top-level definition, so definitions are left out, parsed whole and parsed for their header in every
shape the corpus has; LibCST must take the text, and each statement parsed whole must have the code, and the
positions, it has in the whole file's tree. Exit 1 on any difference. Run by hand, like benchmarks/report_diff.py.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import libcst as cst  # noqa: E402

from devlint.analysis.needed import WHOLE, needed_statements  # noqa: E402
from devlint.analysis.screen import SyntaxFacts  # noqa: E402
from devlint.engine import cst_stage, narrowed_parse, positions  # noqa: E402
from devlint.engine.engine import analyze  # noqa: E402
from devlint.engine.parsing import parse_module  # noqa: E402
from devlint.engine.settings import Settings  # noqa: E402
from devlint.rules import all_rules  # noqa: E402


def reports(source: str, path: str, settings: Settings, whole: bool) -> list[tuple]:
    analysis = analyze(source, path, settings, whole=whole)
    return [(d.line, d.col, d.end_line, d.end_col, d.code, d.message, d.fix.applicability if d.fix else None)
            for d in analysis.diagnostics]


def check_reports(path: str, source: str, settings: Settings, counts: dict[str, int]) -> list[str]:
    taken: list[str] = []
    parse = cst_stage.parse_in_pieces

    def counting(text: str, tree: ast.Module) -> object:
        taken.append(text)
        return parse(text, tree)

    cst_stage.parse_in_pieces = narrowed_parse.parse_in_pieces = counting  # type: ignore[assignment]
    try:
        narrowed = reports(source, path, settings, whole=False)
    finally:
        cst_stage.parse_in_pieces = narrowed_parse.parse_in_pieces = parse  # type: ignore[assignment]
    if taken and taken[0] != source:
        counts["narrowed"] += 1
        if len(taken) > 1:
            counts["not taken"] += 1
            return [f"{path}: LibCST did not take the statements left (the whole text was parsed)"]
    if not taken:
        return []
    counts["parsed"] += 1
    whole = reports(source, path, settings, whole=True)
    return [] if narrowed == whole else [f"{path}: reports differ\n  whole:    {whole}\n  narrowed: {narrowed}"]


def check_forced(path: str, source: str, counts: dict[str, int]) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    definitions = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    facts = SyntaxFacts(tree, False, source)
    needed = needed_statements(facts, source, definitions[::3])
    if needed is None or narrowed_parse._LONE_CARRIAGE_RETURN.search(source):
        return []
    counts["narrowed"] += 1
    counts["headers"] += sum(what != WHOLE for _, what in needed)
    parsed = narrowed_parse.parse_only(source, tree.body, needed)
    if parsed is None:
        counts["not taken"] += 1
        return [f"{path}: LibCST did not take the statements left"]
    module, narrowed_tree, _ = parsed
    full = parse_module(source)
    # LibCST's statements by their first `ast` statement (a line of small statements joined by `;` is one)
    firsts = positions.first_lines(module.body, narrowed_tree.body)
    full_firsts = positions.first_lines(full.body, tree.body)
    if firsts is None or full_firsts is None:
        return [f"{path}: the statements do not pair with `ast`'s"]
    in_full = {id(node): statement for statement, (node, _) in zip(full.body, full_firsts)}
    whole = {id(original) for original, what in needed if what == WHOLE}
    placed = positions.positions_up_to(module, list(module.body))
    full_placed = positions.positions_up_to(full, list(full.body))
    found: list[str] = []
    for statement, (node, line) in zip(module.body, firsts):
        if id(node) not in whole:
            continue
        counts["statements"] += 1
        original = in_full[id(node)]
        if _code(module, statement) != _code(full, original):
            found.append(f"{path}:{line}: the statement differs")
        elif placed[statement].start != full_placed[original].start:
            found.append(f"{path}:{line}: the statement is at {placed[statement].start}, "
                         f"{full_placed[original].start} in the whole file")
    return found


def _code(module: cst.Module, statement: cst.BaseStatement) -> str:
    """The statement's code without the empty and comment lines around it: with the statements after it left out,
    LibCST gives the comments before the next one kept to the last block that ends before them."""
    lines = module.code_for_node(statement.with_changes(leading_lines=())).splitlines()
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--preview", action="store_true")
    parser.add_argument("--forced", action="store_true")
    args = parser.parse_args()
    settings = Settings(preview=args.preview)
    assert all_rules()
    counts = {"files": 0, "parsed": 0, "narrowed": 0, "not taken": 0, "headers": 0, "statements": 0}
    problems: list[str] = []
    for path in sorted(p for root in args.roots for p in Path(root).rglob("*.py") if p.is_file()):
        try:
            source = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        counts["files"] += 1
        found = check_forced(str(path), source, counts) if args.forced else check_reports(
            str(path), source, settings, counts)
        for line in found:
            print(line, flush=True)
        problems += found
    print(", ".join(f"{name} {count}" for name, count in counts.items()) + f"; {len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
