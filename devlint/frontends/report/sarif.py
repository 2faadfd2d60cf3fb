"""`--output-format sarif`: SARIF 2.1.0 as GitHub code scanning reads it.

The driver lists every rule (so `ruleIndex` is stable); locations are relative to the
repository root (whichever folder devlint runs from) under `uriBaseId` `%SRCROOT%`;
`partialFingerprints` hash the path, code and reported statement, never line numbers,
so an alert keeps its identity when unrelated lines move."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Optional, Sequence
from urllib.parse import quote

from devlint.contract.diagnostics import Diagnostic
from devlint.contract.project import PROJECT_URL, __version__
from devlint.engine.codes import ENGINE_CODE_NAMES, ENGINE_CODE_PAGES
from devlint.engine.settings import INTERNAL_ERROR_CODE, NOTICE_CODES, SYNTAX_ERROR_CODE, TOO_LARGE_CODE
from devlint.frontends.report.fingerprint import statement_fingerprints
from devlint.frontends.report.meta import file_message
from devlint.frontends.report.page import rule_page
from devlint.frontends.report.paths import relative_path
from devlint.rules import all_rules

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = "error"
NOTICE_LEVEL = "note"  # a notice (DEV997): what devlint did not check
FINGERPRINT_KEY = "devlintStatement/v1"


def rule_descriptors() -> list[dict[str, Any]]:
    descriptors = []
    for entry in all_rules():
        rule = entry.rule
        page = rule_page(rule)
        descriptors.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": _plain(rule.summary)},
            "fullDescription": {"text": _plain(rule.why)},
            "help": {"text": plain_text(page), "markdown": page},
            "helpUri": rule.url,
            "defaultConfiguration": {"level": LEVEL},
            "properties": {"fixSafety": rule.fix_safety.value},
        })
    summaries = {
        TOO_LARGE_CODE: "The file's code is over max-file-size: the rules were not run on it",
        SYNTAX_ERROR_CODE: "Python cannot parse the file, so no rule can check it",
        INTERNAL_ERROR_CODE: "devlint failed on this file: a defect of devlint, to be reported",
    }
    for code, page in ENGINE_CODE_PAGES.items():
        descriptors.append({
            "id": code,
            "name": ENGINE_CODE_NAMES[code],
            "shortDescription": {"text": summaries[code]},
            "fullDescription": {"text": summaries[code]},
            "help": {"text": plain_text(page), "markdown": page},
            "defaultConfiguration": {"level": NOTICE_LEVEL if code in NOTICE_CODES else LEVEL},
        })
    return descriptors


def _plain(text: str) -> str:
    return " ".join(text.split())


def plain_text(markdown: str) -> str:
    """A rule page as plain text for `help.text` (viewers that show it do not render Markdown):
    no heading marks, no code fences (code indented instead), no backticks."""
    lines, in_code = [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            lines.append(f"    {line}" if line else "")
        else:
            lines.append(_INLINE_CODE.sub(r"\1", line.lstrip("#").strip()))
    return "\n".join(lines).strip() + "\n"


_INLINE_CODE = re.compile(r"`([^`]*)`")


def artifact_uri(path: str, root: str = ".") -> str:
    """Relative to the repository root, `/`-separated, percent-encoded (a SARIF `uri` is a URI reference):
    the name's bytes are, so a name that is not UTF-8 (`caf\\xe9.py`) is `caf%E9.py`, the file itself."""
    return quote(relative_path(path, root), errors="surrogateescape")


def _region(d: Diagnostic) -> Optional[dict[str, int]]:
    if d.cell is not None:
        # A cell's line is no line of the .ipynb file: point at the JSON line holding the source
        # line (its column differs, JSON indentation and escapes), and say the cell in the message.
        return {"startLine": d.notebook_line} if d.notebook_line else None
    region = {"startLine": d.line, "startColumn": d.col}
    if d.end_line:
        region.update(endLine=d.end_line, endColumn=max(d.end_col, 1))
    return region


def result_object(d: Diagnostic, rule_index: int, uri: str, fingerprint: str) -> dict[str, Any]:
    message = file_message(d)
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
    region = _region(d)
    if region is not None:
        physical["region"] = region
    return {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": NOTICE_LEVEL if d.code in NOTICE_CODES else LEVEL,
        "message": {"text": message},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }


def sarif_log(diagnostics: Sequence[Diagnostic], root: str = ".") -> dict[str, Any]:
    rules = rule_descriptors()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    uris = [artifact_uri(d.path, root) for d in diagnostics]
    fingerprints = statement_fingerprints(diagnostics, uris)
    results = [result_object(d, index[d.code], uri, fingerprint)
               for d, uri, fingerprint in zip(diagnostics, uris, fingerprints)]
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


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    return json.dumps(sarif_log(diagnostics, context.root), indent=2, ensure_ascii=False) + "\n"
