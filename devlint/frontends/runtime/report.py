"""The confirm report: a table for people, JSON with every piece of evidence for machines."""

from __future__ import annotations

import os
from typing import Any

from devlint.frontends.runtime.records import BUG, CONFIRMED, RuleVerdict, SnippetResult, no_device

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


def table_and_absent(verdicts: list[RuleVerdict], absent: list[str]) -> str:
    """The table, then one line for the requested devices this machine lacks (not a skipped row per rule)."""
    if not absent:
        return table(verdicts)
    return (table(verdicts) + f"{', '.join(no_device(device) for device in absent)} on this machine: no rule was"
            " run there (name a device with --device to make its absence an error)\n")


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
        for fact in v.comparison.get("facts", []):
            out.append(f"  bad against fixed: {fact}")
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
                "comparison": v.comparison,
                "snippets": [
                    {"variant": i.snippet.variant, "label": i.snippet.label, "hide_cuda": i.snippet.hide_cuda,
                     "path": _shown_path(i.snippet.path), **i.result.to_json()}
                    for i in v.bad + v.fixed
                ],
            }
            for v in verdicts
        ],
    }


def tables(verdicts: list[RuleVerdict]) -> list[dict[str, Any]]:
    """The measurement tables the probes left in their evidence and comparisons, titled with rule and device."""
    found = []
    for v in verdicts:
        sources = [i.result.evidence for i in v.bad + v.fixed] + [v.comparison]
        for source in sources:
            for table_ in source.get("tables", []):
                found.append({**table_, "title": f"{v.code} on {v.device}: {table_['title']}"})
    return found


def _markdown_table(table_: dict[str, Any]) -> list[str]:
    def row(cells: list[Any]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
    lines = [f"### {table_['title']}", "", row(table_["columns"]), row(["---"] * len(table_["columns"]))]
    return lines + [row(r) for r in table_["rows"]] + [""]


def markdown(verdicts: list[RuleVerdict], data: dict[str, Any], command: str, progress: list[str],
             json_link: str = "") -> str:
    """The whole report as a page, from the run: how it was made, the table, the measurements, every call."""
    machine = data["machine"]
    gpus = ", ".join(f"{d['name']} ({d['memory_gib']} GiB)" for d in machine.get("cuda", []))
    where = gpus or ("mps" if machine.get("mps") else "a machine without an accelerator")
    lines = [
        f"# `devlint confirm` on {where}", "",
        "Written by `devlint confirm --markdown` from one run; nothing on this page was written by hand."
        " The command:", "", f"    {command}", "",
        f"- date: {data['date']} (UTC)",
        f"- devices: {gpus or 'none besides the CPU'}; mps: {'yes' if machine.get('mps') else 'no'}",
        f"- torch {machine.get('torch')} (CUDA build {machine.get('cuda_build')}, cuDNN {machine.get('cudnn', '-')}),"
        f" Python {machine.get('python')}",
        f"- {data['platform']}, {data['processor']}, {data['cpu_count']} CPUs",
        f"- devlint {data['devlint']}; devices requested: {', '.join(data['devices_requested'])};"
        f" {data['timeout_s']:g} s per snippet at most",
        f"- exit status {data['exit_code']}; {data['seconds']} s in all; {summary(verdicts)}",
    ]
    if json_link:
        lines.append(f"- every call's evidence: [{json_link}]({json_link})")
    lines += ["", "## Table", "", "```", table_and_absent(verdicts, data["devices_absent"]).rstrip("\n"), "```", ""]
    measured = tables(verdicts)
    if measured:
        lines += ["## Measurements", ""]
        for table_ in measured:
            lines += _markdown_table(table_)
    lines += ["## Details", "", "```", details(verdicts).rstrip("\n"), "```", ""]
    if progress:
        lines += ["## Progress lines (stderr)", "", "```", *progress, "```", ""]
    return "\n".join(lines)
