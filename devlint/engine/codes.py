"""The pages of the codes no rule owns: DEV997 (over `max-file-size`), DEV998 (devlint failed) and DEV999
(Python rejects the text).

`devlint rule DEV999` prints them as it prints a rule's page; docs/rules/ holds them beside the rules'."""

from __future__ import annotations

from devlint.engine.settings import INTERNAL_ERROR_CODE, SYNTAX_ERROR_CODE, TOO_LARGE_CODE

ENGINE_CODE_NAMES = {TOO_LARGE_CODE: "file-too-large", INTERNAL_ERROR_CODE: "internal-error",
                     SYNTAX_ERROR_CODE: "syntax-error"}

ENGINE_CODE_PAGES = {
    TOO_LARGE_CODE: """\
# DEV997 (file-too-large)

## What it is

The file's code is larger than `max-file-size` (3 MiB of text by default), so devlint checked it only
with its text prefilter and did not run the rules that prefilter left: parsing a module into the trees
the rules read takes about 300 MB of memory per MB of code, and one such file should not take down a
CI runner or an editor. Large tables of constants (a generated module, a vendored weight dump:
`TABLE = [...]` of numbers and strings over many lines, or one table a line, `W_3 = [...]` or
`W_3 = torch.tensor([...])`) do not count: devlint reads them in bounded memory and checks the code
around them as usual. A file whose text holds none of the rules' keywords is fully checked by the
prefilter and gets no DEV997. DEV997 is reported once, at line 1, and names the size and the limit.

DEV997 is a notice, not a finding: it is shown (a note in the editor and in SARIF, `::notice` in GitHub's
format, `info` in GitLab's), and the run still exits 0 when it is the only report, so a generated module
with no bug does not fail CI. To make such a file fail the run, select DEV997 by its code
(`extend-select = ["DEV997"]`, `--extend-select DEV997`). flake8 has no notices: there DEV997 is a report
like any other (`extend-ignore = DEV997` in flake8's configuration leaves it out).

## What to do

Raise the limit where the machine has the memory (`max-file-size = 8000000` in `[tool.devlint]`, or
`--max-file-size 8MB`), or leave generated code out (`extend-exclude`), or accept it for that file
(`per-file-ignores`, `ignore = ["DEV997"]`). DEV997 is reported unless it is ignored by name.
""",
    SYNTAX_ERROR_CODE: """\
# DEV999 (syntax-error)

## What it is

Python itself cannot parse the file: devlint reports it at the line and column Python names, with
Python's own message (`ast.parse`, as `python file.py` would fail). Text that Python cannot parse
includes an expression too long or too deeply nested for CPython's parser (a sum of about 3,000
terms): `python` cannot run such a file either, and DEV999 then points at the longest logical line.

No rule can check a file Python rejects, so DEV999 is the only report for it; the run goes on with the
other files. Every file devlint checks is read by Python's parser, also one whose text cannot hold any
rule's report (no `torch`, or none of the rules' keywords): devlint may be the only Python hook of a
repository, and "All checks passed" on a file `python` cannot run would be false. (A file with more code
than `max-file-size` that holds none of the rules' keywords is not parsed.)

In flake8, syntax errors are flake8's own `E999`: the plugin never reports DEV999 there.

## What to do

Fix the syntax error, or exclude the file (`extend-exclude`). DEV999 is reported unless it is ignored
by name (`ignore = ["DEV999"]`); selecting `DEV` codes does not turn it off.
""",
    INTERNAL_ERROR_CODE: """\
# DEV998 (internal-error)

## What it is

devlint failed on a file that Python parses: a rule raised an exception or recursed without end, or
the code is nested deeper than devlint's parser can take even on its large stack. Each rule runs
isolated, so a rule that fails loses only its own reports for that file, and the report names the rule
and where it was; the other rules' reports stand. A file that cannot be analysed at all gets one DEV998
at its first line.

It is a defect of devlint, never of your code: the command exits 2 (as for any internal error), and
flake8 shows the line with its code.

## What to do

Please report it to the devlint developers with the file (or the smallest part of it that still
shows the report) and `devlint --version`. Until it is fixed, `# noqa: DEV998` on the reported line or
`per-file-ignores` keep the run green.
""",
}
