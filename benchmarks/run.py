"""Benchmark devlint against its floors and its peers; run by hand, never by the tests.

    python benchmarks/run.py [--reps 3] [--slow-reps 1] CORPUS [CORPUS ...]

For each corpus directory, every command runs `--reps` times (the slow peers `--slow-reps`
times) in a fresh process under `/usr/bin/time`; the table gives the median wall time, the
median CPU time (user + system, all processes) and the peak resident memory of the largest
single process. Output: a markdown table per corpus, with the ratios the targets are about.

What each row runs (all with the Python running this script, devlint from this checkout):
- devlint cold: `devlint CORPUS --no-cache` with `--jobs 1`, and with the default jobs;
- devlint warm: with a cache filled by an untimed run first; "1% changed": the same, after
  the cache entries of 1% of the files (every 100th) are deleted before each run — exactly
  what a content change of those files does to the cache, without writing to the corpus;
- LibCST parse / ast.parse: every file parsed in one process (the floors);
- torchfix: `torchfix CORPUS` with its defaults (all CPUs); with `--torchfix-limit S` it is
  stopped after S seconds and S stands as a lower bound of its time (ratios against it are
  then upper bounds, marked `<`);
- flake8 --select DEV with and without devlint: flake8 with the installed plugins, minus
  TorchFix in both and minus devlint in the second (benchmarks/flake8_with_plugins.py).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
ENV = {**os.environ, "PYTHONPATH": ROOT}

PARSE_FLOOR = """
import sys, os
import {module}
for directory in sys.argv[1:]:
    for base, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(base, name), "rb") as handle:
                    data = handle.read()
                try:
                    {call}
                except Exception:
                    pass
"""


def timed(command: list[str], limit: Optional[float] = None, env: Optional[dict[str, str]] = None,
          cwd: str = ROOT) -> Optional[tuple[float, float, int]]:
    """(wall s, cpu s, peak RSS MB) of one run of `command` (in `cwd`, with `env`, by default this
    checkout's); None when it ran past `limit` s (it is then stopped, with every process it started)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.perf_counter()
        process = subprocess.Popen(["/usr/bin/time", "-o", report.name, "-f", "%U %S %M", *command], env=env or ENV,
                                   cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        try:
            process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return None
        wall = time.perf_counter() - start
        user, system, rss = report.read().split()[-3:]
    return wall, float(user) + float(system), int(rss) // 1024


def measure(command: list[str], reps: int, before: Optional[Callable[[], None]] = None,
            limit: Optional[float] = None) -> dict:
    runs = []
    for _ in range(reps):
        if before is not None:
            before()
        run = timed(command, limit)
        if run is None:  # stopped: the limit is a lower bound of its wall time, and no more runs
            return {"wall": limit, "cpu": None, "rss": None, "runs": len(runs) + 1, "stopped": True}
        runs.append(run)
    return {
        "wall": statistics.median(r[0] for r in runs),
        "cpu": statistics.median(r[1] for r in runs),
        "rss": max(r[2] for r in runs),
        "runs": len(runs),
        "stopped": False,
    }


def python_files(corpus: str) -> list[str]:
    found = []
    for base, dirs, files in os.walk(corpus):
        dirs.sort()
        found.extend(os.path.join(base, name) for name in sorted(files) if name.endswith(".py"))
    return found


def forget_one_percent(corpus: str, cache_dir: str) -> Callable[[], None]:
    """Delete the cache entries of every 100th file, as a change of their content would."""
    sys.path.insert(0, ROOT)
    from devlint.engine.settings import Settings
    from devlint.runner.cache import Cache

    cache = Cache(cache_dir)
    settings = Settings(root=ROOT)
    paths = python_files(corpus)[::100]

    def forget() -> None:
        for path in paths:
            with open(path, "rb") as handle:
                key = cache.key(path, handle.read(), settings, False)
            try:
                os.unlink(os.path.join(cache_dir, key[:2], key + ".json"))
            except FileNotFoundError:
                pass

    return forget


def bench(corpus: str, reps: int, slow_reps: int, skip: set[str], limit: Optional[float]) -> list[tuple[str, dict]]:
    devlint = [PY, "-m", "devlint", corpus, "--isolated", "--quiet", "--exit-zero"]
    rows: list[tuple[str, dict]] = []

    def row(name: str, command: list[str], n: int, before: Optional[Callable[[], None]] = None) -> None:
        if any(word in name for word in skip):
            return
        print(f"  {name} ...", file=sys.stderr, flush=True)
        rows.append((name, measure(command, n, before)))

    row("LibCST parse, 1 process (floor)", [PY, "-c", PARSE_FLOOR.format(
        module="libcst", call="libcst.parse_module(data)"), corpus], slow_reps)
    ast_floor = PARSE_FLOOR.format(module="ast", call="ast.parse(data)")
    row("ast.parse, 1 process (floor)", [PY, "-c", ast_floor, corpus], reps)
    row("devlint cold --jobs 1", [*devlint, "--no-cache", "--jobs", "1"], reps)
    row("devlint cold (default jobs)", [*devlint, "--no-cache"], reps)
    cache_dir = tempfile.mkdtemp(prefix="devlint-bench-cache-")
    try:
        # Settings.root is where devlint runs (ROOT) with --isolated: the keys use paths as given.
        subprocess.run([*devlint, "--cache-dir", cache_dir], env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL)
        row("devlint warm (cache full)", [*devlint, "--cache-dir", cache_dir], reps)
        row("devlint warm, 1% changed", [*devlint, "--cache-dir", cache_dir], reps,
            forget_one_percent(corpus, cache_dir))
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    torchfix = shutil.which("torchfix", path=os.path.dirname(PY))
    if torchfix:
        if not any(word in "torchfix (default jobs)" for word in skip):
            print("  torchfix (default jobs) ...", file=sys.stderr, flush=True)
            rows.append(("torchfix (default jobs)", measure([torchfix, corpus], slow_reps, limit=limit)))
    shim = os.path.join(ROOT, "benchmarks", "flake8_with_plugins.py")
    row("flake8 --select DEV, without devlint", [PY, shim, "--drop", "torchfix,devlint", "--", "--select", "DEV",
                                                 "--exit-zero", corpus], reps)
    row("flake8 --select DEV, with devlint", [PY, shim, "--drop", "torchfix", "--", "--select", "DEV",
                                              "--exit-zero", corpus], reps)
    return rows


def table(corpus: str, rows: list[tuple[str, dict]]) -> str:
    files = len(python_files(corpus))
    lines = [f"### {os.path.basename(os.path.normpath(corpus))} ({files} files)", "",
             "| command | runs | wall (median s) | CPU (median s) | peak RSS (MB) |", "|---|---|---|---|---|"]
    for name, result in rows:
        if result["stopped"]:
            lines.append(f"| {name} | {result['runs']} | > {result['wall']:.0f} (stopped) | - | - |")
        else:
            lines.append(f"| {name} | {result['runs']} | {result['wall']:.1f} | {result['cpu']:.1f}"
                         f" | {result['rss']} |")
    got = dict(rows)

    def ratio(a: str, b: str, target: str) -> None:
        if a in got and b in got:
            bound = "< " if got[b]["stopped"] else ""  # the denominator is a lower bound
            lines.append(f"- {a} / {b}: **{bound}{got[a]['wall'] / got[b]['wall']:.3f}** (target {target})")

    lines.append("")
    ratio("devlint cold (default jobs)", "LibCST parse, 1 process (floor)", "≤ 0.35")
    ratio("devlint cold --jobs 1", "LibCST parse, 1 process (floor)", "none; for scale")
    ratio("devlint cold (default jobs)", "torchfix (default jobs)", "≤ 0.1")
    ratio("devlint warm (cache full)", "devlint cold (default jobs)", "≤ 0.05")
    ratio("devlint warm, 1% changed", "devlint cold (default jobs)", "none; for scale")
    ratio("flake8 --select DEV, with devlint", "flake8 --select DEV, without devlint", "≤ 1.5")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", metavar="CORPUS")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--slow-reps", type=int, default=3, help="runs of the LibCST floor and torchfix")
    parser.add_argument("--skip", default="", help="comma-separated words: rows whose name has one are skipped")
    parser.add_argument("--torchfix-limit", type=float, default=None, metavar="SECONDS",
                        help="stop torchfix after this long and report the time as a lower bound")
    args = parser.parse_args()
    skip = {word for word in args.skip.split(",") if word}
    load = os.getloadavg()
    print(f"## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {os.cpu_count()} CPUs, "
          f"load average before {load[0]:.1f}; Python {platform.python_version()}")
    versions = subprocess.run([PY, "-c", "import devlint, libcst, flake8; from importlib.metadata import version;"
                               "print(f'devlint {devlint.__version__}, libcst {version(\"libcst\")}, flake8 "
                               "{flake8.__version__}, torchfix', end=' ');"
                               "print(version('torchfix'))"], env=ENV, capture_output=True, text=True).stdout
    print(versions.strip() or "(versions unavailable)")
    print()
    for corpus in args.corpora:
        print(f"{corpus}:", file=sys.stderr)
        rows = bench(os.path.abspath(corpus), args.reps, args.slow_reps, skip, args.torchfix_limit)
        print(table(corpus, rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
