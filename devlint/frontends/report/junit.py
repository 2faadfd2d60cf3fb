"""`--output-format junit`: JUnit XML, as the test report viewers of GitLab, Jenkins and GitHub
(through test-reporter actions) read it, in ruff's layout: one `<testsuite>` per file with reports,
one failed `<testcase name="devlint.DEVnnn">` per report (classname: the path without its suffix,
`line`/`column` attributes, the message in `<failure>`); a clean run is one passing test case,
so a viewer shows a green check rather than an empty report. Paths are relative to the repository root."""

from __future__ import annotations

import itertools
import os
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.frontends.report.meta import file_message
from devlint.frontends.report.paths import shown_relative_path

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context

PACKAGE = "devlint"


def junit_tree(diagnostics: Sequence[Diagnostic], root: str) -> ET.Element:
    report = ET.Element("testsuites", name=PACKAGE, tests=str(len(diagnostics)),
                        failures=str(len(diagnostics)), errors="0")
    if not diagnostics:
        suite = ET.SubElement(report, "testsuite", name=PACKAGE, tests="1", disabled="0", errors="0", failures="0")
        ET.SubElement(suite, "testcase", name="No reports found", classname=PACKAGE)
        report.set("tests", "1")
        return report
    for path, group in itertools.groupby(diagnostics, key=lambda d: d.path):
        reports = list(group)
        name = shown_relative_path(path, root)
        suite = ET.SubElement(report, "testsuite", name=name, tests=str(len(reports)), disabled="0", errors="0",
                              failures=str(len(reports)), package=PACKAGE)
        for d in reports:
            case = ET.SubElement(suite, "testcase", name=f"{PACKAGE}.{d.code}", classname=os.path.splitext(name)[0],
                                 line=str(d.line), column=str(d.col))
            message = file_message(d)
            failure = ET.SubElement(case, "failure", message=message)
            failure.text = f"line {d.line}, col {d.col}, {message}"
    return report


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    tree = junit_tree(diagnostics, context.root)
    ET.indent(tree, "  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(tree, encoding="unicode") + "\n"
