"""`--output-format sarif`: SARIF 2.1.0 as GitHub code scanning reads it.

The driver lists every rule (so `ruleIndex` is stable); locations are relative to the
directory devlint runs in (the repository root in CI) under `uriBaseId` `%SRCROOT%`;
`partialFingerprints` hash the path, code and reported statement, never line numbers,
so an alert keeps its identity when unrelated lines move."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Optional, Sequence
from urllib.parse import quote

from devlint import PROJECT_URL, __version__
from devlint.diagnostics import Diagnostic
from devlint.report.meta import SYNTAX_ERROR_NAME
from devlint.rules import all_rules
from devlint.settings import SYNTAX_ERROR_CODE

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = "error"
FINGERPRINT_KEY = "devlintStatement/v1"


def rule_descriptors() -> list[dict[str, Any]]:
    descriptors = []
    for entry in all_rules():
        rule = entry.rule
        page = rule.page()
        descriptors.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": _plain(rule.summary)},
            "fullDescription": {"text": _plain(rule.why)},
            "help": {"text": page, "markdown": page},
            "helpUri": rule.url,
            "defaultConfiguration": {"level": LEVEL},
            "properties": {"fixSafety": rule.fix_safety.value},
        })
    descriptors.append({
        "id": SYNTAX_ERROR_CODE,
        "name": SYNTAX_ERROR_NAME,
        "shortDescription": {"text": "The file is not valid Python, so it cannot be checked"},
        "fullDescription": {"text": "devlint reports the parser's error at its position and goes on."},
        "help": {"text": "Fix the syntax error.", "markdown": "Fix the syntax error."},
        "defaultConfiguration": {"level": LEVEL},
    })
    return descriptors


def _plain(text: str) -> str:
    return " ".join(text.split())


def artifact_uri(path: str) -> str:
    """Repository-relative, `/`-separated, percent-encoded (a SARIF `uri` is a URI reference)."""
    rel = os.path.relpath(os.path.abspath(path)) if os.path.isabs(path) else os.path.normpath(path)
    return quote(rel.replace(os.sep, "/"))


def _fingerprint(d: Diagnostic, occurrence: int) -> str:
    key = "\0".join((artifact_uri(d.path), d.code, d.statement, str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _region(d: Diagnostic) -> Optional[dict[str, int]]:
    if d.cell is not None:
        # A cell's line is no line of the .ipynb file: point at the JSON line holding the source
        # line (its column differs, JSON indentation and escapes), and say the cell in the message.
        return {"startLine": d.notebook_line} if d.notebook_line else None
    region = {"startLine": d.line, "startColumn": d.col}
    if d.end_line:
        region.update(endLine=d.end_line, endColumn=max(d.end_col, 1))
    return region


def result_object(d: Diagnostic, rule_index: int, occurrence: int) -> dict[str, Any]:
    message = d.message if d.cell is None else f"cell {d.cell}, line {d.line}: {d.message}"
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(d.path), "uriBaseId": "%SRCROOT%"}}
    region = _region(d)
    if region is not None:
        physical["region"] = region
    return {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": LEVEL,
        "message": {"text": message},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: _fingerprint(d, occurrence)},
    }


def sarif_log(diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
    rules = rule_descriptors()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    seen: dict[tuple[str, str, str], int] = {}
    results = []
    for d in diagnostics:
        # The same statement reported twice in one file: number the copies to keep fingerprints distinct.
        key = (d.path, d.code, d.statement)
        seen[key] = seen.get(key, 0) + 1
        results.append(result_object(d, index[d.code], seen[key]))
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "devlint", "version": __version__, "semanticVersion": __version__,
                "informationUri": PROJECT_URL, "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> str:
    return json.dumps(sarif_log(diagnostics), indent=2, ensure_ascii=False) + "\n"
