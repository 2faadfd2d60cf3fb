"""What each rule's reports were worth on real code, as measured: the figures its page and the README's
rules table print (DESIGN.md section 6). Data only; benchmarks/README.md says how each was measured.

`wide`: the reports on the `wide` set (monai, fastai, trl, speechbrain, pytorch-ignite) and `full`
together, labelled in context by the developers who tune the rules (benchmarks/labels.csv). `fresh`: the
reports on seven libraries nobody tuned to (botorch, lightly, mmengine, nnunetv2, pytorch-forecasting,
pytorch-metric-learning, segmentation-models-pytorch), labelled blind by readers given only the rule's
page, PyTorch's device semantics and the file (benchmarks/fresh_labels.csv), before any rule was changed
for what they found. `unseen`: the same, after the rules were changed for what `fresh` found, on eight
more libraries (benchmarks/fetch_unseen.sh: kornia, gpytorch, stable-baselines3, sentence-transformers,
peft, torchio, skorch, open-clip-torch; benchmarks/unseen_labels.csv). `unseen2`: the same again, after
the changes `unseen` led to, on eight more (`fetch_unseen.sh unseen2`: ultralytics, pyannote.audio,
asteroid, neuralforecast, pytorch-tabnet, tianshou, torchgeo, flair; benchmarks/unseen2_labels.csv).
`unseen3`: the same again, on eight more with training and evaluation loops (`fetch_unseen.sh unseen3`:
captum, avalanche-lib, pyod, darts, pytorch-tabular, torch-geometric, tsai, pytorch-widedeep;
benchmarks/unseen3_labels.csv), read with the rules of stop 36. `unseen4`: the same again, read with the rules
of stop 37, on eight more (`fetch_unseen.sh unseen4`: torchtune, torchrl, tensordict, pyro-ppl, mmdet,
lightning-bolts, torchvision, x-transformers; benchmarks/unseen4_labels.csv).
Each is (reports, true, defensible, false) with the settings of the day: a default rule's default
shapes; a preview rule (DEV011; DEV003, DEV004, DEV005 on `unseen2`, `unseen3` and `unseen4`) with preview on.
"""

from __future__ import annotations

MEASURED_ON = "2026-11-26, devlint 0.1.0"

MEASURED: dict[str, dict[str, tuple[int, int, int, int]]] = {
    "DEV001": {"wide": (12, 10, 2, 0), "fresh": (2, 0, 0, 2), "unseen": (1, 0, 1, 0), "unseen3": (2, 1, 1, 0)},
    "DEV002": {"wide": (154, 149, 5, 0), "fresh": (11, 6, 5, 0), "unseen": (30, 24, 4, 2), "unseen2": (16, 8, 8, 0),
               "unseen3": (65, 43, 22, 0), "unseen4": (48, 42, 6, 0)},
    "DEV003": {"wide": (17, 11, 5, 1), "fresh": (50, 0, 30, 20), "unseen": (2, 0, 0, 2), "unseen2": (4, 0, 4, 0),
               "unseen3": (14, 4, 9, 1), "unseen4": (45, 1, 42, 2)},
    "DEV004": {"wide": (41, 14, 27, 0), "fresh": (2, 2, 0, 0), "unseen": (2, 0, 0, 2), "unseen2": (2, 1, 1, 0),
               "unseen3": (34, 2, 8, 24), "unseen4": (17, 9, 1, 7)},
    "DEV005": {"wide": (17, 13, 4, 0), "fresh": (4, 3, 0, 1), "unseen": (6, 0, 2, 4), "unseen2": (5, 2, 2, 1),
               "unseen3": (17, 8, 2, 7), "unseen4": (38, 13, 20, 5)},
    "DEV008": {"wide": (4, 3, 1, 0), "unseen": (2, 0, 2, 0), "unseen2": (2, 2, 0, 0), "unseen3": (3, 3, 0, 0),
               "unseen4": (3, 3, 0, 0)},
    "DEV009": {"unseen4": (1, 0, 0, 1)},
    "DEV011": {"wide": (133, 0, 133, 0), "fresh": (7, 0, 7, 0), "unseen": (19, 0, 19, 0), "unseen2": (18, 0, 18, 0),
               "unseen3": (15, 0, 15, 0), "unseen4": (18, 0, 18, 0)},
}

# What changed after the blind labels came in (the next fresh measurement is of the changed rule).
AFTER_FRESH = {
    "DEV001": "both false reports on `fresh` are fixed since: a tensor method read as a value (`f.dim`) was "
              "taken for evidence of a tensor; and a move to where the file shows the tensor already is "
              "(`attn_bias.to(query.dtype)` of a tensor made with `dtype=query.dtype`, PyTorch's reference "
              "attention) is no longer reported",
    "DEV002": "the 2 false reports on `unseen` were `torch.LongTensor(ids).to(d)` of token ids: a legacy "
              "constructor of a name may hold data that must cross anyway, or sizes; the file does not say "
              "which, and it is no longer reported",
    "DEV003": "46 of the 50 on `fresh` were a parameter's `device=\"cuda\"` default, none a bug: that shape is "
              "in preview since; both on `unseen` were `torch.device(\"cuda\").type`, a name to compare, no "
              "longer reported. With 0 true of 6 blind reports outside that shape (3 false), the rule is in "
              "preview until a blind measurement shows it meets the bar",
    "DEV004": "blind, 2 true and 2 false of 4 (a test reloading what it saved through a mock; a file of NumPy "
              "arrays): in preview until a blind measurement shows it meets the bar. On `unseen3`, 24 of 34 "
              "false: 14 reloaded in the same function what a `save...` call wrote into that path or "
              "directory (a test's `trainer.save(path=...)`, `torch.jit.save`), no longer reported; the other "
              "10 hold no device tensors (strings, NumPy arrays, CPU data the project writes), which the file "
              "does not show",
    "DEV009": "the one blind report, on `unseen4`, was false: torchtune's recipe sets its device up through its "
              "own `utils.get_device(...)`, which calls `set_device`; another module's function that sets the "
              "device up by its name is now taken to pin",
    "DEV005": "the false report on `fresh` (`torch.eye(n).type(other.type())`) is fixed since; on `unseen` 4 "
              "of 6 were false (a dict of tensors padded before the caller moved it; a host path of a "
              "function whose callers move its result): in preview until a blind measurement shows it "
              "meets the bar. On `unseen2` (in preview) 2 of 5 true, 1 false, fixed since: "
              "`torch.randint_like(idx, ..., device=d)` is where `device=` says, not where `idx` is. On `unseen4`, "
              "one report more since stop 38 (a host `torch.eye` a method of pyro's Sylvester flow returns to "
              "its caller), labelled true blind",
}


def measured_text(code: str) -> str:
    """The page's section on the rule's measured precision ("" when it was not measured)."""
    figures = MEASURED.get(code)
    if not figures:
        return ""
    lines = [f"Measured {MEASURED_ON} (benchmarks/README.md):", ""]
    names = {"wide": "`full` + `wide`, labelled in context", "fresh": "`fresh`, code nobody tuned to, labelled blind",
             "unseen": "`unseen`, more code nobody tuned to, labelled blind after the changes `fresh` led to",
             "unseen2": "`unseen2`, more again, labelled blind after the changes `unseen` led to",
             "unseen3": "`unseen3`, eight more libraries with training loops, labelled blind",
             "unseen4": "`unseen4`, eight more (distributed recipes, tensor containers), labelled blind",
             "T1+T2": "`T1` + `T2`, 23 training and research repositories, labelled blind (the rule before the changes"
                      " they led to)",
             "T3": "`T3`, 17 more training repositories, labelled blind after those changes",
             "T4": "`T4`, 14 more, labelled blind after the changes `T3` led to"}
    for where, (reports, true, defensible, false) in figures.items():
        if reports:
            lines.append(f"- {names[where]}: {reports} reports, {true / reports:.0%} true, "
                         f"{defensible / reports:.0%} defensible, {false / reports:.0%} false")
    if code in AFTER_FRESH:
        lines += ["", f"Since then: {AFTER_FRESH[code]}."]
    return "\n".join(lines) + "\n"


LIBRARY_SETS = ("fresh", "unseen", "unseen2", "unseen3", "unseen4")
TRAINING_SETS = ("T1+T2", "T3", "T4")


def table_cell(code: str, sets: tuple[str, ...] = LIBRARY_SETS) -> str:
    """`reports: T/D/F` labelled blind (the `sets` together: by default `fresh` and the four `unseen` rounds) for the
    README's rules table ("-" when there was no report)."""
    figures = [MEASURED.get(code, {}).get(where) for where in sets]
    reports, true, defensible, false = (sum(column) for column in zip((0, 0, 0, 0), *(f for f in figures if f)))
    if not reports:
        return "-"
    return f"{reports}: {true}/{defensible}/{false}"
