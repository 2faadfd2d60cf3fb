"""Properties on generated programs (hypothesmith), alone and with torch device bugs spliced in so
that the rules fire: linting never raises, fixed code parses, fixing is idempotent, only the
reported lines change, and the flake8 plugin agrees with `lint_source`.

The default run is short. For a long run:  DEVLINT_LONG_FUZZ=1 pytest tests/test_properties.py
(or DEVLINT_FUZZ_EXAMPLES=N for an exact count). docs/reliability.md records a long run."""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import os

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devlint import fix_source, lint_source
from devlint.engine.settings import Settings
from devlint.frontends.flake8 import Plugin
from generated_programs import PROGRAMS
from tests.conftest import RULE_DIRS

# DEV003, DEV004, DEV005 and DEV009 are rules in preview: named, they run (as `--extend-select DEV003,...`),
# so that the snippets' bugs of theirs are reported and fixed too.
NAMED = ("DEV003", "DEV004", "DEV005", "DEV009")
SETTINGS = Settings(preview=True)

EXAMPLES = int(os.environ.get("DEVLINT_FUZZ_EXAMPLES") or (2000 if os.environ.get("DEVLINT_LONG_FUZZ") else 25))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("DEVLINT_LONG_FUZZ"),
                suppress_health_check=list(HealthCheck))

SNIPPETS = [
    "import torch\nx = torch.zeros(3)\nx.to('cuda')\n",
    "import torch\nstate = torch.load('model.pt')\n",
    "import torch\nt = torch.zeros(4).cuda()\nu = torch.ones(2).to(device)\n",
    "import torch as th\ndevice = th.device('cuda:0')\nmodel.load_state_dict(th.load(path))\n",
    "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
    "        mask = torch.ones(x.shape[0])\n        return x * mask\n",
    *[(d / "bad.py").read_text() for d in RULE_DIRS],
]



@st.composite
def programs_with_bugs(draw) -> str:
    """A generated program with a torch snippet before it, after it, or both."""
    program = draw(PROGRAMS)
    if program and not program.endswith("\n"):
        program += "\n"
    before = draw(st.sampled_from(["", *SNIPPETS]))
    after = draw(st.sampled_from(SNIPPETS))
    return before + program + after


def check_properties(source: str) -> None:
    reports = lint_source(source, "generated.py", SETTINGS)  # never raises
    result = fix_source(source, "generated.py", SETTINGS, unsafe=True)
    if result.source != source:  # what LibCST cannot parse (CPython may: "\\\r\n" at EOF) is left as it is
        cst.parse_module(result.source)  # fixed code always parses
    assert fix_source(result.source, "generated.py", SETTINGS, unsafe=True).source == result.source  # idempotent
    _each_pass_changes_only_reported_lines(source)
    _flake8_agrees(source)


def _each_pass_changes_only_reported_lines(source: str) -> None:
    """A fix can enable another (DEV001's `x = x.to(d)` makes DEV002's pair), so the check is per pass."""
    from devlint.engine import engine

    saved, engine.MAX_FIX_PASSES = engine.MAX_FIX_PASSES, 1
    try:
        current = source
        for _ in range(saved):
            new = engine.fix_text(current, "generated.py", SETTINGS, unsafe=True).source
            if new == current:
                return
            reports = engine.analyze(current, "generated.py", SETTINGS, with_fixes=True).diagnostics
            _only_reported_lines_changed(current, new, reports)
            current = new
    finally:
        engine.MAX_FIX_PASSES = saved


def _only_reported_lines_changed(old: str, new: str, reports) -> None:
    """Every line the fix changed or removed is inside a report's span; lines it adds are
    replacements of those, or the `import torch` a fix may need."""
    spans = [(d.line, d.end_line) for d in reports if d.fix is not None]
    spans += [(e.start_line, e.end_line) for d in reports if d.fix is not None for e in d.fix.edits]
    old_lines, new_lines = old.split("\n"), new.split("\n")  # not splitlines(): "\f" ends no line
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":  # inside or right after a reported span (a new argument line), or the import
            assert any(start <= i1 + 1 <= end + 1 for start, end in spans) or all(
                line.strip() in ("import torch", "") for line in new_lines[j1:j2]), new_lines[j1:j2]
            continue
        for number in range(i1 + 1, i2 + 1):
            assert any(start <= number <= end for start, end in spans), f"line {number} changed without a report"


@contextlib.contextmanager
def _flake8_naming_the_rules():
    """The plugin as `flake8 --extend-select DEV003,DEV004,DEV005,DEV009` sets it up; as it was, after."""
    from devlint.frontends import flake8

    saved = flake8._PREVIEW, flake8._NAMED_PREVIEW_RULES
    Plugin.parse_options(argparse.Namespace(extend_select=list(NAMED)))
    flake8._PREVIEW = True  # as `--devlint-preview`: SETTINGS has preview on (named rules report their default shapes)
    try:
        yield
    finally:
        flake8._PREVIEW, flake8._NAMED_PREVIEW_RULES = saved


def _flake8_agrees(source: str) -> None:
    from devlint.engine.engine import analyze

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return  # flake8 reports E999 and never runs plugins
    lines = source.splitlines(keepends=True)
    with _flake8_naming_the_rules():
        reports = list(Plugin(tree, lines, "g.py").run())
    plugin = sorted((line, col + 1, text.split(" ", 1)[0]) for line, col, text, _ in reports)
    engine = sorted((d.line, d.col, d.code) for d in analyze(source, "g.py", SETTINGS, ignore_noqa=True).diagnostics
                    if d.code != "DEV999")
    assert plugin == engine


@FUZZ
@given(PROGRAMS)
def test_generated_programs(source: str) -> None:
    check_properties(source)


@FUZZ
@given(programs_with_bugs())
def test_generated_programs_with_torch_bugs(source: str) -> None:
    check_properties(source)


def test_spliced_snippets_make_the_rules_fire() -> None:
    """Guards the generator above: without reports the properties would hold vacuously."""
    codes = {d.code for snippet in SNIPPETS for d in lint_source(snippet, "s.py", SETTINGS)}
    assert codes >= {"DEV001", "DEV002", "DEV003", "DEV004", "DEV005"}


# Regressions found by the properties (each once failed)
REGRESSIONS: list[str] = [
    "\n\\\r\n",  # CPython parses it, LibCST does not: reported or skipped, never rewritten
    "\n#\n  \n\t \t \t  \t\t\t\t \n\t\t\n\n  #0\x1c\nimport torch\nx = torch.zeros(3)\nx.to('cuda')\n",
]


def test_noqa_after_a_form_feed_or_file_separator_is_on_the_right_line() -> None:
    """Found by the properties: str.splitlines() broke lines at "\\x0c"/"\\x1c", so `# noqa` was
    looked for on the wrong line."""
    for separator in ("\x0c", "\x1c"):
        source = f"import torch\n# {separator}\nstate = torch.load('m.pt')  # noqa: DEV004\n"
        assert lint_source(source, "s.py", SETTINGS) == []


def test_regressions() -> None:
    for source in REGRESSIONS:
        check_properties(source)
