"""benchmarks/report_diff.py: what counts as a difference between two runs' reports."""

from __future__ import annotations

import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import report_diff  # noqa: E402  (benchmarks/ is not a package)

ROOT = "/corpus/src"


def json_report(line: int, code: str = "DEV002", edit: str = ', device="cuda"') -> dict:
    """One report as `devlint --output-format json` writes it."""
    return {
        "code": code, "name": "cpu-tensor-then-move", "message": "create it on the device",
        "path": f"{ROOT}/lib/train.py", "line": line, "column": 5, "end_line": line, "end_column": 19,
        "cell": None, "notebook_line": None, "noqa_row": line, "url": "https://example.invalid",
        "fix": {"applicability": "safe", "description": "Create the tensor on the device", "message": "m",
                "edits": [{"content": edit, "location": {"row": line, "column": 18},
                           "end_location": {"row": line, "column": 25}}]},
    }


def test_a_report_keeps_what_a_user_sees_with_the_path_relative_to_its_root() -> None:
    kept = report_diff.normalised(json_report(3), ROOT)

    assert kept["path"] == "lib/train.py"
    assert (kept["line"], kept["column"], kept["end_line"], kept["end_column"]) == (3, 5, 3, 19)
    assert kept["fix"] == {"applicability": "safe", "description": "Create the tensor on the device",
                           "message": "m", "edits": [[', device="cuda"', 3, 18, 3, 25]]}
    assert "url" not in kept and "name" not in kept


def test_the_same_reports_in_another_order_are_no_difference() -> None:
    reports = [report_diff.normalised(json_report(line), ROOT) for line in (3, 9, 40)]

    assert report_diff.differences(reports, list(reversed(reports))) == []


def test_a_changed_fix_edit_is_one_change_at_its_place() -> None:
    old = [report_diff.normalised(json_report(3), ROOT)]
    new = [report_diff.normalised(json_report(3, edit=', device="cpu"'), ROOT)]

    found = report_diff.differences(old, new)

    assert len(found) == 1
    assert found[0].startswith("~ lib/train.py:3:5: DEV002")
    assert "fix:" in found[0] and 'device=\\"cpu\\"' in found[0]


def test_gone_and_new_reports_are_listed_by_file_and_line() -> None:
    kept = report_diff.normalised(json_report(9), ROOT)
    old = [report_diff.normalised(json_report(3), ROOT), kept]
    new = [copy.deepcopy(kept), report_diff.normalised(json_report(40, code="DEV003"), ROOT)]

    found = report_diff.differences(old, new)

    assert [line[:24] for line in found] == ["- lib/train.py:3:5: DEV0", "+ lib/train.py:40:5: DEV"]


def test_a_report_given_twice_differs_from_it_given_once() -> None:
    once = [report_diff.normalised(json_report(3), ROOT)]

    assert report_diff.differences(once, once * 2) == ["+ " + report_diff.describe(once[0])]
