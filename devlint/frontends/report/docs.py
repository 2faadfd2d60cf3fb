"""Documentation generated from the rule metadata: `docs/rules/CODE.md` and the README's rules table.

Regenerate after changing a rule's metadata: `python -m devlint.frontends.report.docs` (tests/test_docs.py
fails while the committed files differ from what this produces)."""

from __future__ import annotations

import os
import re
import sys
from typing import Optional, Sequence

from devlint.engine.codes import ENGINE_CODE_PAGES
from devlint.rules import all_rules
from devlint.frontends.report.measured import TRAINING_SETS, table_cell
from devlint.frontends.report.page import rule_page
from devlint.rules.rule import Rule

TABLE_START = "<!-- rules-table"
TABLE_END = "<!-- /rules-table -->"
_TABLE = re.compile(r"(<!-- rules-table[^>]*-->\n)(.*?)(<!-- /rules-table -->)", re.S)


def rule_pages() -> dict[str, str]:
    """File name (`DEV001.md`) -> page text."""
    pages = {f"{entry.rule.code}.md": rule_page(entry.rule) for entry in all_rules()}
    pages.update((f"{code}.md", page) for code, page in ENGINE_CODE_PAGES.items())
    return pages


def rules_table() -> str:
    rows = ["| code | name | what | fix | tier | blind, libraries (`fresh` + `unseen` ... `unseen8`) | blind, training"
            " repositories (`T1` ... `T26`) |",
            "|---|---|---|---|---|---|---|"]
    for entry in all_rules():
        rule = entry.rule
        rows.append(table_row(rule))
    return "\n".join(rows) + "\n"


def table_row(rule: Rule) -> str:
    """The rule's row of the README's table; `preview` marks a rule that runs only with `--preview` (or
    when selected by its code)."""
    link = f"[{rule.code}](docs/rules/{rule.code}.md)"
    tier = "preview" if rule.preview else "default"
    return (f"| {link} | {rule.name} | {rule.summary} | {rule.fix_safety.value} | {tier} | {table_cell(rule.code)} |"
            f" {table_cell(rule.code, TRAINING_SETS)} |")


def readme_with_table(readme: str) -> str:
    """`readme` with the text between the rules-table markers replaced by `rules_table()`."""
    if not _TABLE.search(readme):
        raise ValueError("README has no <!-- rules-table --> ... <!-- /rules-table --> markers")
    return _TABLE.sub(lambda m: m.group(1) + rules_table() + m.group(3), readme, count=1)


def write_docs(root: str) -> list[str]:
    """Regenerate the pages and the README table under `root`; returns the files that changed."""
    changed = []
    pages_dir = os.path.join(root, "docs", "rules")
    os.makedirs(pages_dir, exist_ok=True)
    targets = {os.path.join(pages_dir, name): text for name, text in rule_pages().items()}
    readme = os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as handle:
        targets[readme] = readme_with_table(handle.read())
    for path, text in targets.items():
        old: Optional[str] = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                old = handle.read()
        if old != text:
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            changed.append(path)
    return changed


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    root = args[0] if args else "."
    for path in write_docs(root):
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
