"""What each rule's reports were worth on real code, as measured: the figures its page and the README's
rules table print (DESIGN.md section 6). Data only; benchmarks/README.md says how each was measured.

`wide`: the reports on the `wide` set (monai, fastai, trl, speechbrain, pytorch-ignite) and `full`
together, labelled in context by the developers who tune the rules (benchmarks/labels.csv). `fresh`: the
reports on seven libraries nobody tuned to (botorch, lightly, mmengine, nnunetv2, pytorch-forecasting,
pytorch-metric-learning, segmentation-models-pytorch), labelled blind by readers given only the rule's
page, PyTorch's device semantics and the file (benchmarks/fresh_labels.csv), before any rule was changed
for what they found. Each is (reports, true, defensible, false) with the default settings.
"""

from __future__ import annotations

MEASURED_ON = "2026-11-26, devlint 0.1.0 (issues 27-30)"

MEASURED: dict[str, dict[str, tuple[int, int, int, int]]] = {
    "DEV001": {"wide": (12, 10, 2, 0), "fresh": (2, 0, 0, 2)},
    "DEV002": {"wide": (163, 147, 16, 0), "fresh": (11, 6, 5, 0)},
    "DEV003": {"wide": (17, 11, 5, 1), "fresh": (50, 0, 30, 20)},
    "DEV004": {"wide": (41, 14, 27, 0), "fresh": (2, 2, 0, 0)},
    "DEV005": {"wide": (16, 13, 3, 0), "fresh": (4, 3, 0, 1)},
    "DEV008": {"wide": (4, 3, 1, 0)},
    "DEV011": {"wide": (91, 0, 91, 0), "fresh": (7, 0, 7, 0)},  # a preview rule: measured with preview on
}

# What changed after the blind labels came in (the next fresh measurement is of the changed rule).
AFTER_FRESH = {
    "DEV001": "both false reports came from one premise, fixed since: a tensor method read as a value "
              "(`f.dim`) was taken for evidence of a tensor",
    "DEV003": "46 of the 50 were a parameter's `device=\"cuda\"` default, none a bug: that shape is in "
              "preview since (the `wide` figures are without it; with it, 14 more reports there were "
              "labelled true by the developers); the other 4 were 3 defensible and 1 false",
    "DEV005": "the false report, `torch.eye(n).type(other.type())`, is fixed since: the type string of a "
              "tensor names its device",
}


def measured_text(code: str) -> str:
    """The page's section on the rule's measured precision ("" when it was not measured)."""
    figures = MEASURED.get(code)
    if not figures:
        return ""
    lines = [f"Measured {MEASURED_ON} (benchmarks/README.md):", ""]
    names = {"wide": "`full` + `wide`, labelled in context", "fresh": "`fresh`, code nobody tuned to, labelled blind"}
    for where, (reports, true, defensible, false) in figures.items():
        if reports:
            lines.append(f"- {names[where]}: {reports} reports, {true / reports:.0%} true, "
                         f"{defensible / reports:.0%} defensible, {false / reports:.0%} false")
    if code in AFTER_FRESH:
        lines += ["", f"Since then: {AFTER_FRESH[code]}."]
    return "\n".join(lines) + "\n"


def table_cell(code: str) -> str:
    """`T/D/F` on `fresh` for the README's rules table ("-" when there was no report)."""
    figures = MEASURED.get(code, {}).get("fresh")
    if not figures or not figures[0]:
        return "-"
    reports, true, defensible, false = figures
    return f"{reports}: {true}/{defensible}/{false}"
