"""The editor's reparser against LibCST over real code: random line edits, both trees compared.

    python benchmarks/reparse_check.py [--root DIR] [--seed N] [--files N] [--edits N]

For `--files` files of `--root` (default: the `full` corpus set, shuffled with `--seed`), a
`Reparser` (devlint/engine/reparse.py) parses the file, then `--edits` random line edits one after
the other: a comment appended at the end, a `pass` or a call inserted at a line's indent, a line
removed or doubled, an empty line, a column-0 comment or an indented comment inserted, a character
of a line replaced (often a syntax error). Each version is parsed by the reparser and by
`cst.parse_module`: both must fail, or both give trees that are `deep_equals` and print the same
code (LibCST itself does not always print a text back as it was: the two must agree). Prints each
difference (and writes the two versions to `--out`), then the totals: edits, how many were
spliced, differences, and the seconds each parser took. Exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Callable, Optional

import libcst as cst

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devlint.engine.reparse import Reparser  # noqa: E402

DEFAULT_ROOT = Path.home() / ".cache" / "devlint-dev-corpus" / "src"


def edited(text: str) -> str:
    """`text` with one random line edit."""
    lines = text.split("\n")
    k = random.randrange(len(lines))
    indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
    kind = random.randrange(9)
    if kind == 0:
        return text + "\n# edit"
    if kind == 1:
        lines.insert(k, indent + "pass")
    elif kind == 2:
        del lines[k]
    elif kind == 3:
        lines.insert(k, lines[k])
    elif kind == 4:
        lines.insert(k, "")
    elif kind == 5:
        lines.insert(k, "# c")
    elif kind == 6:
        lines.insert(k, indent + "    # deep")
    elif kind == 7:
        line = lines[k]
        if line:
            i = random.randrange(len(line))
            lines[k] = line[:i] + random.choice("x(1 :") + line[i + 1:]
    else:
        lines.insert(k, indent + "y = foo(1)")
    return "\n".join(lines)


def timed_parse(parse: Callable[[str], cst.Module], text: str
                ) -> tuple[Optional[cst.Module], Optional[type], float]:
    """(the module, None) or (None, the error's type), and the seconds `parse(text)` took."""
    start = time.perf_counter()
    try:
        module, error_type = parse(text), None
    except Exception as error:  # noqa: BLE001 - both parsers must fail alike, whatever the failure
        module, error_type = None, type(error)
    return module, error_type, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--edits", type=int, default=6, help="edits per file, one after the other")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")) / "reparse-check")
    args = parser.parse_args()
    random.seed(args.seed)
    files = sorted(str(p) for p in args.root.rglob("*.py"))
    random.shuffle(files)
    checked = spliced = differences = 0
    full_seconds = reparser_seconds = 0.0
    for path in files[:args.files]:
        try:
            text = open(path).read()
        except (OSError, UnicodeDecodeError):
            continue
        if len(text) > 300_000:
            continue
        reparser = Reparser()
        try:
            reparser.parse(text)
        except Exception:  # noqa: BLE001 - a file LibCST cannot parse: nothing to edit
            continue
        for step in range(args.edits):
            new = edited(text)
            full, full_error, seconds = timed_parse(cst.parse_module, new)
            full_seconds += seconds
            before = reparser.spliced
            got, got_error, seconds = timed_parse(reparser.parse, new)
            reparser_seconds += seconds
            spliced += reparser.spliced - before
            checked += 1
            if full is None or got is None:
                same = full_error is got_error and full is got
            else:
                same = got.deep_equals(full) and got.code == full.code and all(
                    getattr(got, name) == getattr(full, name)
                    for name in ("default_indent", "default_newline", "has_trailing_newline"))
            if not same:
                differences += 1
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"{differences}_old.py").write_text(text)
                (args.out / f"{differences}_new.py").write_text(new)
                print(f"DIFFERENT {path} (edit {step}): the versions are in {args.out}/{differences}_*.py")
            if full is not None:
                text = new
            else:
                reparser.parse(text)  # go on from the last version that parses
    print(f"{checked} edits, {spliced} spliced, {differences} differences; "
          f"cst.parse_module {full_seconds:.1f} s, the reparser {reparser_seconds:.1f} s")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
