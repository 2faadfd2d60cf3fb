"""Crash hunt: devlint over real files and over mutated copies that define values by themselves.

    python benchmarks/crash_hunt.py ROOT [ROOT ...] [--jobs N] [--limit FILES] [--show N] [--preview]
                                    [--progress FILES] [--slow SECONDS] [--fixes]

For each `.py` file under the roots (`~/.cache/devlint-dev-corpus/src` and `.../wide`), devlint checks
the file as it is and a few mutated copies of it. A mutation takes an assignment `a = f(...)` in a
function and adds, right after it, a statement that rebinds the target from itself followed by a bare
use a rule would ask about:

    a = a.<method>(...)        for every method a rule knows (moves, conversions, host reads, ...)
    a[k] = g(a[k])             a subscript defined by itself
    self.a = f(self.a)         an attribute defined by itself (for `self.a = ...` targets)
    a += a.<method>(...)       augmented
    (a := a.<method>(...))     walrus
    a = b; b = a               two names defined by each other
    for _ in x: a = a.<m>()    a loop that rebinds

Each copy gets every site of one file mutated, one shape and method per site, rotating, so that each
shape meets each method across the copies. A copy that Python rejects is not counted (the mutation
broke it). The hunt counts files (originals and copies) that get an internal error (DEV998), a DEV999
although Python parses the text, an exception out of the engine, or whose check took longer than `--slow`
CPU seconds (a file that takes minutes is lost too: the run is stopped, or its CI job times out); it must
report 0. With `--fixes`, each text is checked with its fix edits (as the JSON, SARIF and editor outputs show
them) and fixed with every fix, unsafe ones included: a fixed text that Python rejects is a problem too. It
prints the first few of each with the shape that did it (`--show`). Not a timed test: it takes
minutes (over `full` with `--preview`, about half an hour on one core), so it prints its running totals
every `--progress` files: a hunt cut off by a timeout still says how far it got.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import os
import sys
import time
import warnings
from collections import Counter
from typing import Iterator, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Every method some rule asks about: moves, conversions, host reads, and views.
METHODS = ("to", "cuda", "cpu", "pin_memory", "float", "half", "long", "int", "double", "bfloat16", "contiguous",
           "detach", "clone", "type", "numpy", "tolist", "item", "view", "reshape", "squeeze", "type_as",
           "to_dense", "requires_grad_", "share_memory_")
ARGUMENTS = {"to": '"cpu", non_blocking=True', "cuda": "", "type": "torch.float32", "view": "-1",
             "reshape": "-1", "type_as": "x"}
USES = ("{t}.to('cuda')", "{t}.detach()", "{t}.numpy()", "{t}.tolist()", "torch.cat([{t}, {t}])",
        "{t}.float()", "print({t}[0])", "{t}.cpu()")
SHAPES = ("method", "subscript", "attribute", "augmented", "walrus", "pair", "loop")


def python_files(roots: list[str]) -> Iterator[str]:
    for root in roots:
        for folder, subfolders, files in os.walk(root):
            subfolders.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(folder, name)


def _sites(tree: ast.Module, lines: list[str]) -> list[tuple[int, str, str]]:
    """(line after which to insert, indentation, target text) of each `a = f(...)` in a function whose
    statement stands alone on its lines."""
    sites = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
                continue
            target = node.targets[0]
            if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)) or node.end_lineno is None:
                continue
            first = lines[node.lineno - 1]
            indent = first[:node.col_offset]
            if indent.strip() or first[node.col_offset:].lstrip() != first[node.col_offset:]:
                continue
            last = lines[node.end_lineno - 1]
            rest = last[node.end_col_offset or 0:].strip()
            if rest and not rest.startswith("#"):
                continue  # `a = f(); b = 2`: not alone on its line
            sites.append((node.end_lineno, indent, ast.unparse(target)))
    return sorted(set(sites))


def _call(method: str, target: str) -> str:
    return f"{target}.{method}({ARGUMENTS.get(method, '')})"


def _mutation(shape: str, method: str, use: str, target: str, indent: str) -> list[str]:
    bare = use.format(t=target)
    if shape == "method":
        body = [f"{target} = {_call(method, target)}", bare]
    elif shape == "subscript":
        body = [f"{target}[k] = {_call(method, f'{target}[k]')}", f"{use.format(t=f'{target}[k]')}"]
    elif shape == "attribute":
        attribute = target if target.startswith("self.") else f"self.{target.split('.')[-1].split('[')[0]}"
        body = [f"{attribute} = f({attribute})", f"{attribute} = (1 - w) * {attribute} + w * s",
                use.format(t=attribute)]
    elif shape == "augmented":
        body = [f"{target} += {_call(method, target)}", bare]
    elif shape == "walrus":
        name = target if target.isidentifier() else "tmp"
        body = [f"({name} := {_call(method, name)})", use.format(t=name)]
    elif shape == "pair":
        name = target if target.isidentifier() else "tmp"
        body = [f"other = {name}", f"{name} = other", f"other = {name}", use.format(t=name)]
    else:  # loop
        body = ["for _ in range(2):", f"    {target} = {_call(method, target)}", bare]
    return [f"{indent}{line}\n" for line in body]


def mutate(text: str, copy: int) -> Optional[str]:
    """The `copy`-th mutated version of `text` (None when it has no site)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = text.splitlines(keepends=True)
    sites = _sites(tree, lines)
    if not sites:
        return None
    for number, (after, indent, target) in sorted(enumerate(sites), key=lambda item: -item[1][0]):
        turn = copy * 7 + number
        shape = SHAPES[turn % len(SHAPES)]
        method = METHODS[(turn // len(SHAPES) + copy) % len(METHODS)]
        use = USES[(turn + copy) % len(USES)]
        if not lines[after - 1].endswith("\n"):
            lines[after - 1] += "\n"
        lines[after:after] = _mutation(shape, method, use, target, indent)
    return "".join(lines)


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def hunt(job: tuple[str, int, bool, float, bool]) -> tuple[str, int, int, list[tuple[str, str]]]:
    """(path, mutated copies checked, copies Python rejected, [(which, what went wrong)]); the job is
    (path, copies, preview: the preview rules and shapes too, seconds a check may take, fixes: the fix edits
    computed, and every fix applied)."""
    from devlint.engine.engine import analyze, fix_text
    from devlint.engine.settings import Settings

    path, copies, preview, slow, fixes = job
    settings = Settings(preview=preview)
    try:
        with open(path, encoding="utf-8") as handle:
            original = handle.read()
    except (OSError, UnicodeDecodeError):
        return path, 0, 0, []
    problems: list[tuple[str, str]] = []
    checked = rejected = 0
    for copy in range(-1, copies):
        text = original if copy < 0 else mutate(original, copy)
        if text is None:
            continue
        if copy >= 0 and not _parses(text):
            rejected += 1
            continue
        checked += copy >= 0
        which = "original" if copy < 0 else f"copy {copy}"
        started = time.process_time()
        try:
            diagnostics = analyze(text, path, settings, with_fixes=fixes).diagnostics
            fixed = fix_text(text, path, settings, unsafe=True) if fixes else None
        except Exception as error:  # the engine must never raise
            problems.append((which, f"exception {type(error).__name__}: {error}"))
            continue
        if fixed is not None and fixed.fixed and not _parses(fixed.source):
            problems.append((which, f"fixes {dict(fixed.fixed)} give a text Python rejects"))
        spent = time.process_time() - started
        if spent > slow:
            problems.append((which, f"slow: {spent:.1f} s of CPU for {len(text):,} characters"))
        for d in diagnostics:
            if d.code == "DEV998" or (d.code == "DEV999" and _parses(text)):
                line = text.splitlines()[d.line - 1].strip() if 0 < d.line <= text.count("\n") + 1 else ""
                problems.append((which, f"{d.line}:{d.col} {d.code} {d.message[:160]} | {line[:100]}"))
    return path, checked, rejected, problems


TOTALS = ("files", "mutated copies", "copies Python rejected", "texts with a problem")


def _totals(totals: Counter) -> str:
    return ", ".join(f"{key} {totals[key]}" for key in TOTALS)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--copies", type=int, default=3, help="mutated copies per file (default 3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--limit", type=int, default=0, help="only the first N files")
    parser.add_argument("--show", type=int, default=20, help="problems to print")
    parser.add_argument("--preview", action="store_true", help="run the preview rules and shapes too")
    parser.add_argument("--slow", type=float, default=20.0, help="CPU seconds a check may take (default 20)")
    parser.add_argument("--fixes", action="store_true",
                        help="compute the fix edits too, and apply every fix (unsafe ones included)")
    parser.add_argument("--progress", type=int, default=100, help="print the running totals every N files (0: never)")
    args = parser.parse_args(argv)
    files = list(python_files(args.roots))
    if args.limit:
        files = files[:args.limit]
    totals: Counter = Counter()
    shown = 0
    with multiprocessing.Pool(args.jobs) as pool:
        jobs = [(f, args.copies, args.preview, args.slow, args.fixes) for f in files]
        for path, checked, rejected, problems in pool.imap_unordered(hunt, jobs, 8):
            totals["files"] += 1
            totals["copies Python rejected"] += rejected
            totals["mutated copies"] += checked
            if problems:
                totals["texts with a problem"] += len({which for which, _ in problems})
            for which, what in problems:
                if shown < args.show:
                    print(f"{path} [{which}]: {what}", flush=True)  # (seen even if the hunt is cut off)
                    shown += 1
            if args.progress and totals["files"] % args.progress == 0:
                print(f"progress: {_totals(totals)} of {len(files)} files", flush=True)
    for key in TOTALS:
        print(f"{key}: {totals[key]}")
    return 1 if totals["texts with a problem"] else 0


if __name__ == "__main__":
    sys.exit(main())
