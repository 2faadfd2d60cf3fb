"""A whole file parsed in pieces against LibCST's parse of it, over real code.

    python benchmarks/pieces_check.py ROOT [ROOT ...] [--piece N] [--jobs N]

For every `.py` file under the roots that Python parses, `parse_in_pieces` (devlint/engine/reparse.py) with
pieces of `--piece` characters (default 1: a piece at every boundary the text has, the most splicing there
can be) and `cst.parse_module` must both fail with the same error, or give trees that are `deep_equals`, print
the same code and have the same default indent, newline and trailing newline. Prints each difference, then
the totals: files, files parsed in more than one piece, pieces, differences. Exit 1 on any difference.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Optional

import libcst as cst

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devlint.engine import reparse  # noqa: E402
from devlint.sources.files import read_source  # noqa: E402

ATTRIBUTES = ("default_indent", "default_newline", "has_trailing_newline", "encoding")


def check(path: str, piece: int) -> tuple[int, Optional[str]]:
    """(pieces the file was parsed in, what differs or None)."""
    try:
        text = read_source(path).text
        tree = ast.parse(text)
    except (SyntaxError, ValueError, UnicodeError, OSError, MemoryError, RecursionError):
        return 0, None
    counted: list[int] = []
    real = reparse.parse_module
    reparse.parse_module = lambda piece_text: counted.append(1) or real(piece_text)  # type: ignore[assignment]
    try:
        try:
            expected = cst.parse_module(text)
        except Exception as error:  # noqa: BLE001 - the pieces must fail the same way
            try:
                reparse.parse_in_pieces(text, tree, piece)
            except Exception as other:  # noqa: BLE001
                return 0, None if type(other) is type(error) else f"{type(other).__name__} for {type(error).__name__}"
            return 0, f"parsed in pieces, where LibCST raises {type(error).__name__}"
        counted.clear()
        got = reparse.parse_in_pieces(text, tree, piece)
    finally:
        reparse.parse_module = real  # type: ignore[assignment]
    if not got.deep_equals(expected):
        return len(counted), "not deep_equals"
    if got.code != expected.code:
        return len(counted), "prints other code"
    for attribute in ATTRIBUTES:
        if getattr(got, attribute) != getattr(expected, attribute):
            return len(counted), f"another {attribute}"
    return len(counted), None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("roots", nargs="+")
    parser.add_argument("--piece", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    paths = sorted(str(p) for root in args.roots for p in Path(root).rglob("*.py") if p.is_file())
    files = split = pieces = differences = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, (count, difference) in zip(paths, pool.map(check, paths, [args.piece] * len(paths), chunksize=16)):
            files += 1
            split += count > 1
            pieces += count
            if difference is not None:
                differences += 1
                print(f"{path}: {difference}")
    print(f"{files} files, {split} parsed in more than one piece, {pieces} pieces, {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
