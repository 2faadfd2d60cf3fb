"""The pages of the two codes no rule owns: DEV998 (devlint failed) and DEV999 (Python rejects the text).

`devlint rule DEV999` prints them as it prints a rule's page; docs/rules/ holds them beside the rules'."""

from __future__ import annotations

from devlint.engine.settings import INTERNAL_ERROR_CODE, SYNTAX_ERROR_CODE

ENGINE_CODE_NAMES = {INTERNAL_ERROR_CODE: "internal-error", SYNTAX_ERROR_CODE: "syntax-error"}

ENGINE_CODE_PAGES = {
    SYNTAX_ERROR_CODE: """\
# DEV999 (syntax-error)

## What it is

Python itself cannot parse the file: devlint reports it at the line and column Python names, with
Python's own message (`ast.parse`, as `python file.py` would fail). Text that Python cannot parse
includes an expression too long or too deeply nested for CPython's parser (a sum of about 3,000
terms): `python` cannot run such a file either, and DEV999 then points at the longest logical line.

No rule can check a file Python rejects, so DEV999 is the only report for it; the run goes on with the
other files. Files whose text cannot hold any report (no `torch`, or none of the rules' keywords) are not
parsed at all and get no DEV999.

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
