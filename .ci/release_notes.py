"""The release notes of a tag, or why the tag cannot be released: `python .ci/release_notes.py vX.Y.Z`.

The tag must be `v` + the package's version (devlint/contract/project.py) and CHANGELOG.md must have
a section `## X.Y.Z ...` that is not marked "(unreleased)". Prints the section's text (the GitHub
release's notes); exits 1 with the reason otherwise. Run by .github/workflows/release.yml before it
builds anything, and by tests/test_release.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_version() -> str:
    text = (ROOT / "devlint" / "contract" / "project.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if match is None:
        raise SystemExit("devlint/contract/project.py: no __version__ = \"...\" line")
    return match.group(1)


def section(changelog: str, version: str) -> tuple[str, str]:
    """(heading, body) of the version's section; SystemExit when there is none."""
    parts = re.split(r"^## ", changelog, flags=re.MULTILINE)
    for part in parts[1:]:
        heading, _, body = part.partition("\n")
        if heading.split()[0] == version:
            return heading, body.strip()
    raise SystemExit(f"CHANGELOG.md has no section '## {version}'")


def notes(tag: str, changelog: str, version: str) -> str:
    if tag != f"v{version}":
        raise SystemExit(f"tag {tag!r} is not the package's version: v{version} (devlint/contract/project.py)")
    heading, body = section(changelog, version)
    if "unreleased" in heading.lower():
        raise SystemExit(f"CHANGELOG.md: '## {heading}' is still marked unreleased; give it the date")
    return body


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(notes(sys.argv[1], (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), package_version()))
