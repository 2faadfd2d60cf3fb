"""Issue 19's speed table in one run: devlint against `ast.parse`, its start-up, a big file, flake8, the cache.

    python benchmarks/speed.py [--checkout DIR] [--reps 3] [--only cold,big,onefile,flake8,warm]
        [--corpus DIR] [--small DIR] [--onefile-runs 20]

Times the devlint of `--checkout` (default: this one; PYTHONPATH set to it) with the Python running
this script. Every figure is measured `--reps` times; a ratio is taken within one repetition (its
two sides run back to back, their order alternating), and the table gives the median and the
range (min-max) of the repetitions. Parts (`--only` picks some):

- cold: one process `ast.parse` of every `.py` file of `--corpus` (the floor: wall and CPU,
  benchmarks/run.py's PARSE_FLOOR), then `devlint --isolated --no-cache -q --exit-zero CORPUS`
  with the default jobs and with `--jobs 1`, each as a ratio to the floor's wall (and CPU).
- big: one file of >= 50,000 lines made from the corpus (transformers' `modeling_*.py` files in
  path order, concatenated while the result still parses, until 50,000 lines; written to a temp
  dir): devlint's peak RSS and its wall over the floor's wall on that file alone.
- onefile: `devlint FILE` (cold, `--no-cache`), the median of `--onefile-runs` runs, for two
  51-line files written here: REACHES_LIBCST (a training loop with a DEV002 report and its fix:
  the file is parsed and traversed by LibCST) and TEXT_ONLY (no `torch` in its text: the text
  prefilter drops every rule and nothing is parsed); `python -c pass` for scale.
- flake8: `flake8 --select DEV` with devlint over flake8 without it (TorchFix left out of both;
  benchmarks/flake8_with_plugins.py), on `--small`.
- warm: a run with a cache filled by an untimed run first (`--cache-dir` in a temp dir) over the
  cold default-jobs run of the same repetition.
- generated: files a new user meets in a real repository, written here: a 10 MB and a 1 MB generated
  table module (`TABLE = [...]` of float rows, then a function with one DEV002 report at its end) and a
  200,000-line module of real code (as `big`, to 200,000 lines; over the default `max-file-size`, so
  DEV997); devlint's wall and peak RSS on each alone, and each over its own `ast.parse`.

Peak RSS is `/usr/bin/time`'s %M (largest single process); without it, the largest child's
`ru_maxrss` as seen by a wrapper process. Run by hand under `nice`, one corpus run at a time on
the machine; progress goes to stderr, the markdown to stdout.
"""

from __future__ import annotations

import argparse
import ast
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_diff import commit_of  # noqa: E402  (benchmarks/ is not a package)
from run import PARSE_FLOOR, python_files, timed  # noqa: E402

PY = sys.executable
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.expanduser("~/.cache/devlint-dev-corpus")
PARTS = ("cold", "big", "onefile", "flake8", "warm", "generated")
BIG_LINES = 50_000
HUGE_LINES = 200_000
AST_FLOOR = [PY, "-c", PARSE_FLOOR.format(module="ast", call="ast.parse(data)")]
FLAKE8_SHIM = os.path.join(HERE, "benchmarks", "flake8_with_plugins.py")

# 51 lines with one DEV002 report and a safe fix: the file reaches LibCST.
REACHES_LIBCST = '''\
"""Train a small classifier on random data."""

import argparse

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, features: int, classes: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(features, 64),
            nn.ReLU(),
            nn.Linear(64, classes),
        )

    def forward(self, inputs):
        return self.layers(inputs)


def train(steps: int, batch: int) -> float:
    model = Classifier(16, 4).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_function = nn.CrossEntropyLoss()
    loss = None
    for step in range(steps):
        inputs = torch.randn(batch, 16).cuda()
        targets = torch.randint(0, 4, (batch,), device="cuda")
        optimizer.zero_grad()
        loss = loss_function(model(inputs), targets)
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            print(f"step {step}: loss {loss.item():.3f}")
    return float(loss.item()) if loss is not None else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    final = train(args.steps, args.batch)
    print(f"final loss {final:.3f}")


if __name__ == "__main__":
    # Run from the command line: python train.py --steps 200
    torch.manual_seed(0)
    main()
'''

# 51 lines without the word the prefilter needs for every rule: nothing is parsed.
TEXT_ONLY = '''\
"""Count words in text files and print the most common ones."""

import argparse
import collections
import pathlib
import re
from typing import Iterable

WORD = re.compile(r"[A-Za-z']+")


def words(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        for match in WORD.finditer(line):
            yield match.group(0).lower()


def count(paths: Iterable[pathlib.Path]) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as handle:
            counts.update(words(handle))
    return counts


def table(counts: collections.Counter, top: int) -> str:
    return "\\n".join(f"{word:<20} {number:>8}" for word, number in counts.most_common(top))


def files_under(roots: Iterable[str], suffix: str) -> list:
    found = []
    for root in roots:
        base = pathlib.Path(root)
        if base.is_file():
            found.append(base)
        else:
            found.extend(sorted(base.rglob("*" + suffix)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--suffix", default=".txt")
    args = parser.parse_args()
    print(table(count(files_under(args.roots, args.suffix)), args.top))


if __name__ == "__main__":
    main()
'''


def run_timed(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, int]:
    """(wall s, CPU s of it and its children, peak RSS MiB of its largest process)."""
    if os.path.exists("/usr/bin/time"):
        result = timed(command, env=env, cwd=cwd)
        assert result is not None  # no limit: never stopped
        return result
    # A fresh wrapper per run, so that ru_maxrss (the largest child waited for) is this run's.
    wrapper = ("import resource, subprocess, sys\n"
               "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss)\n")
    start = time.perf_counter()
    done = subprocess.run([PY, "-c", wrapper, *command], env=env, cwd=cwd, capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - start
    cpu, rss = done.stdout.split()
    return wall, float(cpu), int(rss) // 1024


class Figures:
    """Named measurements, one value per repetition."""

    def __init__(self) -> None:
        self.values: dict[str, list[float]] = {}

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)

    def row(self, name: str, unit: str, target: str) -> str:
        values = self.values.get(name)
        if not values:
            return f"| {name} | - | - | {target} |"
        digits = 0 if unit == "MiB" else 3 if max(values) < 1 else 2
        number = f"{{:.{digits}f}}"
        median = number.format(statistics.median(values))
        spread = f"{number.format(min(values))}–{number.format(max(values))}"
        gap = "" if unit == "×" else " "
        return f"| {name} | {median}{gap}{unit} | {spread} | {target} |"


def in_order(repetition: int, steps: list[Callable[[], None]]) -> None:
    """Run the steps of one repetition, rotated by the repetition so that no side is always first."""
    shift = repetition % len(steps)
    for step in steps[shift:] + steps[:shift]:
        step()


def big_file(corpus: str, directory: str, wanted: int = BIG_LINES, name: str = "big_module.py") -> tuple[str, int, int]:
    """(path, lines, files used) of a deterministic module of at least `wanted` lines: transformers' modeling
    files in path order (python_files' walk order), each one that parses on its own. Modules that
    parse concatenate into one that parses, but `from __future__` must come first (the compiler
    checks it, `ast.parse` does not): a file with one is left out unless it is the first. The
    whole is compiled before it is written."""
    sources = [path for path in python_files(os.path.join(corpus, "transformers"))
               if os.path.basename(path).startswith("modeling_")]
    kept: list[str] = []
    lines = 0
    for path in sources:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        if kept and any(isinstance(node, ast.ImportFrom) and node.module == "__future__" for node in module.body):
            continue
        kept.append(text if text.endswith("\n") else text + "\n")
        lines += kept[-1].count("\n")
        if lines >= wanted:
            break
    if lines < wanted:
        raise SystemExit(f"only {lines} lines of transformers modeling files under {corpus}")
    whole = "".join(kept)
    compile(whole, name, "exec")
    target = os.path.join(directory, name)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(whole)
    return target, lines, len(kept)


def generated_table(path: str, size: int) -> None:
    """A generated table module of about `size` characters with one DEV002 report at its end."""
    import random

    rows = random.Random(size)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write('"""Generated: do not edit."""\nimport torch\n\nTABLE = [\n')
        written = 0
        while written < size:
            row = "    (" + ", ".join(f"{rows.random():.6f}" for _ in range(8)) + "),\n"
            handle.write(row)
            written += len(row)
        handle.write("]\n\n\ndef lookup(device):\n    t = torch.zeros(len(TABLE)).to(device)\n    return t\n")


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            model = next(line.split(":", 1)[1].strip() for line in handle if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or model
    load = os.getloadavg()[0]
    return f"{os.cpu_count()} CPUs ({model}), load average {load:.1f} before; Python {platform.python_version()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", default=HERE, help="the devlint checkout to time (default: this one)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of every figure (default 3)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts: {', '.join(PARTS)}")
    parser.add_argument("--corpus", default=os.path.join(CORPUS, "src"), help="the cold/warm corpus (full set)")
    parser.add_argument("--small", default=os.path.join(CORPUS, "small"), help="the flake8 corpus")
    parser.add_argument("--onefile-runs", type=int, default=20, help="runs per one-file figure and repetition")
    parser.add_argument("--devlint-args", default="", metavar="ARGS",
                        help="more options for every devlint run, as one string (`--devlint-args=--preview`)")
    args = parser.parse_args()
    parts = [part for part in args.only.split(",") if part]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    checkout = os.path.abspath(args.checkout)
    corpus, small = os.path.abspath(args.corpus), os.path.abspath(args.small)
    # Bytecode as an installed devlint has it: with PYTHONDONTWRITEBYTECODE every start compiles
    # devlint's modules again (~0.15 s of a one-file run). The untimed runs below write the .pyc.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = checkout
    devlint = [PY, "-m", "devlint", "--isolated", "-q", "--exit-zero", *args.devlint_args.split()]
    figures = Figures()
    notes: list[str] = []
    spent: dict[str, float] = {}
    header = [f"## devlint speed, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
              f"- machine: {machine()}",
              f"- checkout: {checkout} at {commit_of(checkout)}",
              f"- command: `{' '.join(['python', *sys.argv])}`",
              f"- corpus: {corpus} ({len(python_files(corpus))} files); flake8 on {small}"
              f" ({len(python_files(small))} files); {args.reps} repetitions"]

    def measure(name: str, command: list[str], cwd: str = checkout) -> tuple[float, float, int]:
        wall, cpu, rss = run_timed(command, env, cwd)
        print(f"    {name}: {wall:.3f} s wall, {cpu:.2f} s CPU, {rss} MiB", file=sys.stderr, flush=True)
        return wall, cpu, rss

    with tempfile.TemporaryDirectory(prefix="devlint-speed-") as scratch:
        warm_cache = os.path.join(scratch, "cache")
        big_dir = os.path.join(scratch, "big")
        one_dir = os.path.join(scratch, "onefile")
        if "big" in parts:
            os.mkdir(big_dir)
            big_path, big_lines, big_files = big_file(corpus, big_dir)
            notes.append(f"big file: {big_lines:,} lines, {big_files} transformers `modeling_*.py` files"
                         f" concatenated ({os.path.getsize(big_path) // 1024:,} KiB)")
        if "onefile" in parts:
            os.mkdir(one_dir)
            for name, text in (("reaches_libcst.py", REACHES_LIBCST), ("text_only.py", TEXT_ONLY)):
                assert text.count("\n") == 51, (name, text.count("\n"))
                with open(os.path.join(one_dir, name), "w") as handle:
                    handle.write(text)
                found = subprocess.run([*devlint, "--no-cache", "--output-format", "concise", name], env=env,
                                       cwd=one_dir, capture_output=True, text=True).stdout.splitlines()
                notes.append(f"one file `{name}` (51 lines; an untimed run first, which writes the .pyc):"
                             f" {len(found)} report(s)"
                             + (f", the first: {found[0]}" if found else ""))
        generated_dir = os.path.join(scratch, "generated")
        generated: dict[str, str] = {}
        if "generated" in parts:
            os.mkdir(generated_dir)
            for label, size in (("10 MB table module", 10_000_000), ("1 MB table module", 1_000_000)):
                generated[label] = os.path.join(generated_dir, f"table_{size // 1_000_000}mb.py")
                generated_table(generated[label], size)
            huge, huge_lines, huge_files = big_file(corpus, generated_dir, HUGE_LINES, "huge_module.py")
            generated["200k-line module"] = huge
            for label, path in generated.items():
                found = subprocess.run([*devlint, "--no-cache", "--output-format", "concise", path], env=env,
                                       cwd=generated_dir, capture_output=True, text=True).stdout.splitlines()
                notes.append(f"{label}: {os.path.getsize(path) / 1e6:.1f} MB; {len(found)} report(s)"
                             + (f", the first: `{found[0].split(': ', 1)[1][:90]}`" if found else ""))
        if "warm" in parts:
            print("filling the cache (untimed) ...", file=sys.stderr, flush=True)
            start = time.perf_counter()
            subprocess.run([*devlint, "--cache-dir", warm_cache, corpus], env=env, cwd=checkout,
                           stdout=subprocess.DEVNULL, check=True)
            spent["warm (filling the cache)"] = time.perf_counter() - start

        for repetition in range(args.reps):
            print(f"repetition {repetition + 1} of {args.reps}", file=sys.stderr, flush=True)
            cold_wall: list[float] = []

            def part(name: str, body: Callable[[], None]) -> None:
                if name in parts:
                    print(f"  {name}", file=sys.stderr, flush=True)
                    start = time.perf_counter()
                    body()
                    spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

            def cold() -> None:
                got: dict[str, tuple[float, float, int]] = {}
                in_order(repetition, [
                    lambda: got.__setitem__("ast", measure("ast.parse floor", [*AST_FLOOR, corpus])),
                    lambda: got.__setitem__("default", measure("devlint cold", [*devlint, "--no-cache", corpus])),
                    lambda: got.__setitem__("one", measure("devlint cold --jobs 1",
                                                           [*devlint, "--no-cache", "--jobs", "1", corpus])),
                ])
                floor = got["ast"]
                figures.add("`ast.parse` of the corpus, one process: wall", floor[0])
                figures.add("`ast.parse` of the corpus, one process: CPU", floor[1])
                figures.add("devlint cold, default jobs: wall", got["default"][0])
                figures.add("cold, default jobs, wall / `ast.parse` wall", got["default"][0] / floor[0])
                figures.add("cold, default jobs, CPU / `ast.parse` CPU", got["default"][1] / floor[1])
                figures.add("cold, `--jobs 1`, wall / `ast.parse` wall", got["one"][0] / floor[0])
                figures.add("cold, `--jobs 1`, CPU / `ast.parse` CPU", got["one"][1] / floor[1])
                cold_wall.append(got["default"][0])

            def big() -> None:
                got: dict[str, tuple[float, float, int]] = {}
                in_order(repetition, [
                    lambda: got.__setitem__("ast", measure("big file ast.parse", [*AST_FLOOR, big_dir])),
                    lambda: got.__setitem__("devlint", measure("big file devlint",
                                                               [*devlint, "--no-cache", big_path])),
                ])
                figures.add("50k-line file: devlint peak RSS", got["devlint"][2])
                figures.add("50k-line file: `ast.parse` peak RSS", got["ast"][2])
                figures.add("50k-line file: devlint wall", got["devlint"][0])
                figures.add("50k-line file: wall / its `ast.parse` wall", got["devlint"][0] / got["ast"][0])

            def onefile() -> None:
                walls: dict[str, list[float]] = {"pass": [], "reaches_libcst.py": [], "text_only.py": []}
                for _ in range(args.onefile_runs):
                    for name in walls:
                        command = [PY, "-c", "pass"] if name == "pass" else [*devlint, "--no-cache", name]
                        walls[name].append(run_timed(command, env, one_dir)[0])
                for name, label in (("reaches_libcst.py", "`devlint one_file.py`, 51 lines reaching LibCST"),
                                    ("text_only.py", "`devlint one_file.py`, 51 lines not parsed"),
                                    ("pass", "`python -c pass` (for scale)")):
                    figures.add(label, statistics.median(walls[name]))
                    print(f"    {label}: median {statistics.median(walls[name]):.3f} s", file=sys.stderr)

            def flake8() -> None:
                got: dict[str, tuple[float, float, int]] = {}
                common = ["--", "--select", "DEV", "--exit-zero", small]
                in_order(repetition, [
                    lambda: got.__setitem__("without", measure("flake8 without devlint", [
                        PY, FLAKE8_SHIM, "--drop", "torchfix,devlint", *common])),
                    lambda: got.__setitem__("with", measure("flake8 with devlint", [
                        PY, FLAKE8_SHIM, "--drop", "torchfix", *common])),
                ])
                figures.add("flake8 `--select DEV` alone: wall", got["without"][0])
                figures.add("flake8 with the plugin / flake8 alone", got["with"][0] / got["without"][0])

            def warm() -> None:
                if not cold_wall:  # the cold part did not run: a cold run of its own
                    cold_wall.append(measure("devlint cold", [*devlint, "--no-cache", corpus])[0])
                warm_wall = measure("devlint warm", [*devlint, "--cache-dir", warm_cache, corpus])[0]
                figures.add("devlint warm: wall", warm_wall)
                figures.add("warm run / cold run", warm_wall / cold_wall[0])

            def generated_files() -> None:
                for label, path in generated.items():
                    single = os.path.join(generated_dir, "alone-" + os.path.basename(path))
                    os.makedirs(single, exist_ok=True)
                    alone = os.path.join(single, os.path.basename(path))
                    if not os.path.exists(alone):
                        os.link(path, alone)
                    got: dict[str, tuple[float, float, int]] = {}
                    in_order(repetition, [
                        lambda: got.__setitem__("ast", measure(f"{label} ast.parse", [*AST_FLOOR, single])),
                        lambda: got.__setitem__("devlint", measure(f"{label} devlint", [*devlint, "--no-cache", path])),
                    ])
                    figures.add(f"{label}: devlint wall", got["devlint"][0])
                    figures.add(f"{label}: devlint peak RSS", got["devlint"][2])
                    figures.add(f"{label}: wall / its `ast.parse` wall", got["devlint"][0] / got["ast"][0])
                    figures.add(f"{label}: `ast.parse` peak RSS", got["ast"][2])

            part("cold", cold)
            part("big", big)
            part("onefile", onefile)
            part("flake8", flake8)
            part("warm", warm)
            part("generated", generated_files)

    rows = [
        ("`ast.parse` of the corpus, one process: wall", "s", "floor"),
        ("`ast.parse` of the corpus, one process: CPU", "s", "floor"),
        ("devlint cold, default jobs: wall", "s", "-"),
        ("cold, default jobs, wall / `ast.parse` wall", "×", "**≤ 2.0×**"),
        ("cold, default jobs, CPU / `ast.parse` CPU", "×", "-"),
        ("cold, `--jobs 1`, wall / `ast.parse` wall", "×", "≤ 3.5×"),
        ("cold, `--jobs 1`, CPU / `ast.parse` CPU", "×", "-"),
        ("50k-line file: devlint peak RSS", "MiB", "≤ 250 MiB"),
        ("50k-line file: `ast.parse` peak RSS", "MiB", "-"),
        ("50k-line file: devlint wall", "s", "-"),
        ("50k-line file: wall / its `ast.parse` wall", "×", "≤ 5×"),
        ("`devlint one_file.py`, 51 lines reaching LibCST", "s", "≤ 0.07 s"),
        ("`devlint one_file.py`, 51 lines not parsed", "s", "≤ 0.07 s"),
        ("`python -c pass` (for scale)", "s", "-"),
        ("flake8 `--select DEV` alone: wall", "s", "-"),
        ("flake8 with the plugin / flake8 alone", "×", "≤ 1.25×"),
        ("devlint warm: wall", "s", "-"),
        ("warm run / cold run", "×", "≤ 0.03"),
        ("10 MB table module: devlint wall", "s", "≤ 20 s"),
        ("10 MB table module: devlint peak RSS", "MiB", "≤ 1,024 MiB"),
        ("10 MB table module: wall / its `ast.parse` wall", "×", "-"),
        ("10 MB table module: `ast.parse` peak RSS", "MiB", "-"),
        ("1 MB table module: devlint wall", "s", "-"),
        ("1 MB table module: devlint peak RSS", "MiB", "≤ 200 MiB"),
        ("1 MB table module: wall / its `ast.parse` wall", "×", "≤ 10×"),
        ("1 MB table module: `ast.parse` peak RSS", "MiB", "-"),
        ("200k-line module: devlint wall", "s", "-"),
        ("200k-line module: devlint peak RSS", "MiB", "-"),
        ("200k-line module: wall / its `ast.parse` wall", "×", "-"),
        ("200k-line module: `ast.parse` peak RSS", "MiB", "-"),
    ]
    lines = [*header, "", "| figure | median | range | target |", "|---|---:|---:|---|"]
    lines.extend(figures.row(name, unit, target) for name, unit, target in rows if name in figures.values)
    lines.append("")
    lines.extend(f"- {note}" for note in notes)
    lines.append("- time spent per part: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in spent.items()))
    print("\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
