"""The reports a blind round labels: devlint with DEV003 and DEV004 named (their default shapes), run in each
repository of each set as its own project, written as CSV for the labelling helpers (set, path, line, column, code,
message, cell, notebook_json_line; engine notices DEV990 and above left out).

    python benchmarks/blind_measure.py OUT.csv T11 T12 unseen7    # sets under ~/.cache/devlint-dev-corpus
    python benchmarks/blind_measure.py --rules DEV012,DEV013 OUT.csv T13 T14   # only these rules, preview on
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

CORPUS = os.path.expanduser("~/.cache/devlint-dev-corpus")
COMMAND = ["devlint", ".", "--extend-select", "DEV003,DEV004", "--no-cache", "--exit-zero", "--output-format", "json"]
COLUMNS = ["set", "path", "line", "column", "code", "message", "cell", "notebook_json_line"]


def reports(root: str, command: list[str] = COMMAND) -> list[dict]:
    run = subprocess.run(command, cwd=root, capture_output=True, text=True)
    found = json.loads(run.stdout or "[]")
    return sorted((r for r in found if r["code"] < "DEV990"), key=lambda r: (r["path"], r["line"], r["column"]))


def main(argv: list[str]) -> int:
    command = COMMAND
    if argv[:1] == ["--rules"]:  # new rules, measured in preview where they start
        command = ["devlint", ".", "--preview", "--select", argv[1], "--no-cache", "--exit-zero", "--output-format",
                   "json"]
        argv = argv[2:]
    out_path, sets = argv[0], argv[1:]
    with open(out_path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(COLUMNS)
        for name in sets:
            for repository in sorted(os.listdir(os.path.join(CORPUS, name))):
                found = reports(os.path.join(CORPUS, name, repository), command)
                for r in found:
                    out.writerow([name, f"{repository}/{r['path']}", r["line"], r["column"], r["code"], r["message"],
                                  r["cell"] or "", r["notebook_line"] or ""])
                print(name, repository, len(found), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
