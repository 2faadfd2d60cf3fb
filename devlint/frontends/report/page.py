"""A rule's documentation page, with ruff's headings, from its metadata (devlint/rules/rule.py) and its measured
precision (devlint/frontends/report/measured.py): `devlint rule CODE`, docs/rules/CODE.md, SARIF's help."""

from __future__ import annotations

import textwrap

from devlint.frontends.report.measured import measured_text
from devlint.rules.rule import FixSafety, Rule

_SAFETY = {
    FixSafety.NONE: "No automatic fix.",
    FixSafety.SAFE: "Fix is safe.",
    FixSafety.UNSAFE: "Fix is unsafe (applied with `--unsafe-fixes`).",
    FixSafety.SOMETIMES: "Fix is safe in some cases and unsafe in others (see below).",
}


def rule_page(rule: Rule) -> str:
    """The page: what it does, why it is bad, example, use instead, what counts, fix safety, preview, precision."""
    tier = (f"This rule is in **preview** (off by default): it runs with `--preview` (or `preview = true`"
            f" in the configuration) where it is selected (`DEV`, `ALL`), or when it is selected by its"
            f" code (`--select {rule.code}`, `extend-select = [\"{rule.code}\"]`). Its measured precision"
            f" is below.\n\n" if rule.preview else "")
    return (
        f"# {rule.code} ({rule.name})\n\n"
        f"{tier}"
        f"## What it does\n\n{_para(rule.summary)}\n\n"
        f"## Why is this bad?\n\n{_para(rule.why)}\n\n"
        f"## Example\n\n```python\n{textwrap.dedent(rule.example).strip()}\n```\n\n"
        f"## Use instead\n\n```python\n{textwrap.dedent(rule.instead).strip()}\n```\n\n"
        + (f"<details><summary>What counts, case by case</summary>\n\n{_para(rule.details)}\n\n</details>\n\n"
           if rule.details else "")
        + f"## Fix safety\n\n{_SAFETY[rule.fix_safety]} {_para(rule.fix)}\n"
        + (f"\n## In preview\n\nWith `--preview` the rule also reports: {_para(rule.preview_shapes)}\n"
           if rule.preview_shapes else "")
        + (f"\n## Measured precision\n\n{measured}" if (measured := measured_text(rule.code)) else "")
    )


def _para(text: str) -> str:
    return " ".join(textwrap.dedent(text).split())
