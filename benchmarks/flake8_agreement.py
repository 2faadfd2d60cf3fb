"""`devlint` and `flake8 --select DEV` on the same corpora with the same `[tool.devlint]` table: the
reports must be the same (issue 30).

    python benchmarks/flake8_agreement.py ~/.cache/devlint-dev-corpus/src ~/.cache/devlint-dev-corpus/wide

The corpora are read-only, so the project is made in a temporary folder: a `pyproject.toml` with
TABLE (per-file-ignores, the target torch, the line length) beside a symbolic link to each library.
Both tools run from that folder on the links. What only one of them sees is left out of the
comparison, and counted: notebooks and stubs (flake8 reads `*.py` only) and syntax errors (devlint's
DEV999 is flake8's own E999). Exit 1 when any report differs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import Counter

TABLE = """\
[tool.devlint]
per-file-ignores = { "*/pipelines/*" = ["DEV002"], "*/apps/*" = ["DEV003", "DEV004"], "*/test_utils/*" = ["DEV0"] }
target-torch = "2.6"
line-length = 100
"""

Report = tuple[str, int, int, str, str]  # path, line, col, code, message


def parse(output: str) -> list[Report]:
    reports = []
    for line in output.splitlines():
        if ":cell " in line:
            reports.append((line.split(":", 1)[0], 0, 0, "notebook", ""))
            continue
        path, row, col, rest = line.split(":", 3)
        code, _, message = rest.strip().partition(" ")
        reports.append((path.removeprefix("./"), int(row), int(col), code, message.removeprefix("[*] ")))
    return reports


def run(command: list[str], cwd: str) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return result.stdout


def main(corpora: list[str]) -> int:
    with tempfile.TemporaryDirectory() as project:
        with open(os.path.join(project, "pyproject.toml"), "w", encoding="utf-8") as handle:
            handle.write(TABLE)
        names = []
        for corpus in corpora:
            for library in sorted(os.listdir(corpus)):
                name = f"{os.path.basename(os.path.normpath(corpus))}-{library}"
                os.symlink(os.path.join(os.path.abspath(corpus), library), os.path.join(project, name))
                names.append(name)
        cli = parse(run([sys.executable, "-m", "devlint", "--no-cache", "-q", "--exit-zero",
                         "--output-format", "concise", *names], project))
        flake8 = parse(run([sys.executable, "-m", "flake8", "--select", "DEV", "--exit-zero", *names], project))
    only_cli_kinds = Counter("notebook" if r[3] == "notebook" else "stub" if r[0].endswith(".pyi") else "DEV999"
                             for r in cli if r[3] in ("notebook", "DEV999") or r[0].endswith(".pyi"))
    compared = [r for r in cli if r[3] not in ("notebook", "DEV999") and r[0].endswith(".py")]
    cli_set, flake8_set = set(compared), set(flake8)
    print("```text")
    print(TABLE.rstrip())
    print("```\n")
    print("| code | devlint | flake8 --select DEV |")
    print("|---|---:|---:|")
    cli_codes, flake8_codes = Counter(r[3] for r in compared), Counter(r[3] for r in flake8)
    for code in sorted(set(cli_codes) | set(flake8_codes)):
        print(f"| {code} | {cli_codes[code]} | {flake8_codes[code]} |")
    print(f"| all | {len(compared)} | {len(flake8)} |\n")
    print(f"Left out of the comparison (devlint only): {dict(only_cli_kinds) or 'nothing'}.")
    only_cli, only_flake8 = sorted(cli_set - flake8_set), sorted(flake8_set - cli_set)
    print(f"Only devlint: {len(only_cli)}; only flake8: {len(only_flake8)}.")
    for side, reports in (("devlint", only_cli), ("flake8", only_flake8)):
        for report in reports[:20]:
            print(f"  only {side}: {report[0]}:{report[1]}:{report[2]}: {report[3]} {report[4]}")
    return 1 if only_cli or only_flake8 else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
