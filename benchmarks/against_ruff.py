"""devlint's cold CPU beside ruff's with every rule and beside one process of `ast.parse`, in alternating rounds.

    python benchmarks/against_ruff.py CORPUS [--rounds 3] [--checkout DIR] [--ruff ruff]

Each round runs, in an order that turns by one from round to round (so the noise of a shared machine falls on every
side alike): `ast.parse` of every `.py` file in one process (benchmarks/run.py's floor), `ruff check --select ALL
--isolated --no-cache --exit-zero` (its threads on every core), devlint's default tier and devlint `--preview`
(`--isolated --no-cache --exit-zero`, the default jobs). Each run's CPU (user + system of it and its workers or
threads) and wall are taken; the table gives, per side, the median and range over the rounds, and the ratios taken
within each round (devlint / ruff, devlint / `ast.parse`), median and range: issue 54's figures. Output goes to
/dev/null for every side. Run by hand, never by the tests.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "benchmarks"))
from run import PARSE_FLOOR  # noqa: E402


def timed(command: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s of the run and everything it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def spread(values: list[float], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--checkout", default=HERE, help="the devlint checkout to time (PYTHONPATH set to it)")
    parser.add_argument("--ruff", default=shutil.which("ruff") or "ruff")
    args = parser.parse_args()
    corpus, checkout = os.path.abspath(args.corpus), os.path.abspath(args.checkout)
    env = {**os.environ, "PYTHONPATH": checkout}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as an installed devlint has it
    devlint = [sys.executable, "-m", "devlint", "--isolated", "--no-cache", "-q", "--exit-zero", corpus]
    sides = {
        "ast.parse, one process": [sys.executable, "-c", PARSE_FLOOR.format(module="ast", call="ast.parse(data)"),
                                   corpus],
        "ruff --select ALL": [args.ruff, "check", "--select", "ALL", "--isolated", "--no-cache", "--exit-zero", "-q",
                              corpus],
        "devlint (default)": devlint,
        "devlint --preview": [*devlint, "--preview"],
    }
    version = subprocess.run([args.ruff, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", checkout, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"corpus {corpus}; devlint {checkout} at {commit}; {version}; {os.cpu_count()} CPUs; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    for command in sides.values():  # untimed: bytecode written, files in the page cache
        timed(command, checkout, env)
    names = list(sides)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for round_ in range(args.rounds):
        order = names[round_ % len(names):] + names[:round_ % len(names)]
        for name in order:
            runs[name].append(timed(sides[name], checkout, env))
        print(f"  round {round_ + 1}: " + ", ".join(f"{name} {runs[name][-1][1]:.1f} s CPU" for name in names),
              flush=True)
    print("\n| run | CPU s | wall s |\n|---|---:|---:|")
    for name in names:
        cpu, wall = [cpu for _, cpu in runs[name]], [wall for wall, _ in runs[name]]
        print(f"| {name} | {spread(cpu, 1)} | {spread(wall, 1)} |")
    print("\n| ratio, within each round | CPU | wall |\n|---|---:|---:|")
    for top in ("devlint (default)", "devlint --preview"):
        for bottom in ("ruff --select ALL", "ast.parse, one process"):
            cpu = [a[1] / b[1] for a, b in zip(runs[top], runs[bottom])]
            wall = [a[0] / b[0] for a, b in zip(runs[top], runs[bottom])]
            print(f"| {top} / {bottom} | {spread(cpu)} | {spread(wall)} |")
    cpu = [a[1] / b[1] for a, b in zip(runs["ruff --select ALL"], runs["ast.parse, one process"])]
    print(f"| ruff --select ALL / ast.parse, one process | {spread(cpu)} | - |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
