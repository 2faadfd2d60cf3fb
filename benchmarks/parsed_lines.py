"""How much of the files that reach LibCST it parses: the lines of the statements the rules need (devlint/analysis/
needed.py), a header counted as one line, against every line of those files. A file a rule without candidates
reaches is counted whole, as the LibCST stage parses it.

    python benchmarks/parsed_lines.py ~/.cache/devlint-dev-corpus/src [--preview]
    PYTHONPATH=/path/to/checkout python benchmarks/parsed_lines.py CORPUS    # another checkout's answer
"""

from __future__ import annotations

import ast
import os
import sys

from devlint.analysis.needed import WHOLE, first_line, needed_statements
from devlint.engine.selection import enabled_rules, prefilter, screen_with_facts
from devlint.engine.settings import Settings


def parsed_lines(root: str, preview: bool) -> tuple[int, int, int]:
    """(files that reach LibCST, their lines, the lines LibCST parses of them)."""
    settings = Settings(preview=preview)
    files = reached = parsed = 0
    for folder, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, encoding="utf-8") as handle:
                    source = handle.read()
                tree = ast.parse(source)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
                continue
            rules, facts = screen_with_facts(source, prefilter(source, enabled_rules(settings, path)), tree,
                                             preview=preview)
            if not rules or facts is None:
                continue
            lines = source.count("\n") + 1
            files += 1
            reached += lines
            needed = None
            if all(entry.rule.candidates is not None for entry in rules):
                needed = needed_statements(facts, source, [node for entry in rules
                                                           for node in entry.rule.candidates(facts)])
            if needed is None:
                parsed += lines
                continue
            parsed += sum(statement.end_lineno - first_line(statement) + 1 if what == WHOLE else 1  # type: ignore
                          for statement, what in needed)
    return files, reached, parsed


def main(argv: list[str]) -> int:
    preview = "--preview" in argv
    roots = [arg for arg in argv if arg != "--preview"]
    if not roots:
        print(__doc__, file=sys.stderr)
        return 2
    for root in roots:
        files, reached, parsed = parsed_lines(root, preview)
        share = parsed / reached if reached else 0.0
        print(f"{root}: {files} files reach LibCST, {reached} lines; LibCST parses {parsed} ({share:.0%})"
              f"{' with --preview' if preview else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
