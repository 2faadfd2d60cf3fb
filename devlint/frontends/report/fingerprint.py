"""Identities of reports that survive unrelated edits: for SARIF's `partialFingerprints` and
GitLab's `fingerprint`, which CI services use to tell a new finding from a known one."""

from __future__ import annotations

import hashlib
from typing import Sequence

from devlint.contract.diagnostics import Diagnostic


def statement_fingerprints(diagnostics: Sequence[Diagnostic], paths: Sequence[str]) -> list[str]:
    """One hash per report, of its (repository-relative) path, code and reported statement, never of
    line numbers: the identity holds when lines above it move. The same statement reported twice
    in one file is numbered, so the copies stay distinct."""
    seen: dict[tuple[str, str, str], int] = {}
    fingerprints = []
    for d, path in zip(diagnostics, paths):
        key = (path, d.code, d.statement)
        seen[key] = seen.get(key, 0) + 1
        text = "\0".join((*key, str(seen[key])))
        fingerprints.append(hashlib.sha256(text.encode("utf-8")).hexdigest()[:32])
    return fingerprints
