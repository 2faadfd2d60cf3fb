"""The confirm report: a table for people, JSON with every piece of evidence for machines."""

from __future__ import annotations

import os
from typing import Any

from devlint.frontends.runtime.records import BUG, CONFIRMED, RuleVerdict, SnippetResult

CELL = 88  # characters of evidence per table cell; the details below the table have the rest


def _cell(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= CELL else text[: CELL - 1] + "…"


def _evidence(items: list[SnippetResult], prefer_bug: bool) -> str:
    """The one line a cell shows: the snippet the verdict rests on (bad: the one showing the bug)."""
    if not items:
        return ""
    chosen = items[0]
    if prefer_bug:
        chosen = next((i for i in items if i.outcome == BUG), items[-1])
    return chosen.summary


def table(verdicts: list[RuleVerdict]) -> str:
    header = ("rule", "device", "bad evidence", "fixed evidence", "verdict")
    rows = [header] + [
        (v.code, v.device, _cell(_evidence(v.bad, True) or v.reason), _cell(_evidence(v.fixed, False)) or "-",
         v.verdict)
        for v in verdicts
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def details(verdicts: list[RuleVerdict]) -> str:
    """Every snippet's line, the verdict's reason and what the evidence does not show."""
    out: list[str] = []
    for v in verdicts:
        reason = v.reason if v.reason.startswith(v.verdict) else f"{v.verdict} ({v.reason})"
        out.append(f"{v.code} on {v.device}: {reason}")
        for item in v.bad + v.fixed:
            label = f", {item.snippet.label}" if item.snippet.label else ""
            out.append(f"  {item.snippet.variant}{label}: {item.summary} [{item.result.seconds:.1f} s]")
            for call in item.result.evidence.get("calls", []):
                out.append(f"    {call['call']}: {call['result']}: {call['detail']}")
            for fact in item.result.evidence.get("facts", []):
                out.append(f"    {fact}")
        for note in v.notes:
            out.append(f"  note: {note}")
    return "\n".join(out) + "\n"


def summary(verdicts: list[RuleVerdict]) -> str:
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    order = sorted(counts, key=lambda k: (k != CONFIRMED, k))
    pairs = f"{len(verdicts)} rule/device pair{'s' if len(verdicts) != 1 else ''}"
    return ", ".join(f"{counts[k]} {k}" for k in order) + f" ({pairs})."


def _shown_path(path: str) -> str:
    """Relative to the current directory when under it (a report committed to a repository)."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def to_json(verdicts: list[RuleVerdict], machine: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    return {
        **meta,
        "machine": machine,
        "results": [
            {
                "rule": v.code, "device": v.device, "verdict": v.verdict, "reason": v.reason, "notes": v.notes,
                "snippets": [
                    {"variant": i.snippet.variant, "label": i.snippet.label, "hide_cuda": i.snippet.hide_cuda,
                     "path": _shown_path(i.snippet.path), **i.result.to_json()}
                    for i in v.bad + v.fixed
                ],
            }
            for v in verdicts
        ],
    }
