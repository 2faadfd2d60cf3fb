"""`devlint lsp` as an editor feels it: diagnostics latency after a change, code actions, and memory.

    python benchmarks/lsp_latency.py [--corpus DIR] [--runs 20] [--checkout DIR] [--only-analysed]

- Latency: a warm server (the file opened and checked once), then `--runs` edits, each a
  `textDocument/didChange`: once appending a comment line at the end each time, once typing at
  the file's middle line (inside whatever function or class is there: the server re-parses what
  the edit touched, devlint/engine/reparse.py); the time from sending it to receiving
  `publishDiagnostics` for that version. Median and spread, for a file of about 2,000 lines and
  one of about 200 (targets: under 100 ms and under 20 ms), and again for the files of about those
  sizes that the prefilter and the screen send on to LibCST (files with candidates: the slow path).
- Code actions: after each change's diagnostics arrived, a `textDocument/codeAction` request for the whole file
  (every quick fix, every "disable", fix-all), timed from sending it to its answer (target: 50 ms).
- Memory: the server's resident memory (VmRSS) after 200 files were opened and checked.

`--checkout DIR` starts the server of another checkout of devlint (to compare two side by side in one session);
`--only-analysed` times only the files LibCST analyses.

Files come from `--corpus` (default: the development corpus, `~/.cache/devlint-dev-corpus/src`):
the torch-importing `.py` files whose line counts are nearest 2,000 and 200, and the first 200 in
sorted order for memory. Without a corpus they are built from the fixtures' `bad.py` files. Each
latency line also gives the whole check (parsing the whole text) run in-process without the server,
for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Optional

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path.home() / ".cache" / "devlint-dev-corpus" / "src"


class Client:
    def __init__(self, checkout: Path = ROOT) -> None:
        self.checkout = checkout
        self.client = LanguageClient("devlint-benchmark", "1")
        self.received: dict[tuple[str, Optional[int]], float] = {}
        self.arrived = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self.received[(params.uri, params.version)] = time.perf_counter()
            self.arrived.set()

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(self.checkout)}
        await self.client.start_io(sys.executable, "-m", "devlint", "lsp", env=env)
        await self.client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
        self.client.initialized(lsp.InitializedParams())

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    @property
    def pid(self) -> int:
        return self.client._server.pid  # type: ignore[union-attr]

    async def wait_for(self, uri: str, version: int) -> float:
        while (uri, version) not in self.received:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 600)
        return self.received[(uri, version)]

    def open(self, path: Path, text: str) -> str:
        uri = path.resolve().as_uri()
        for key in [key for key in self.received if key[0] == uri]:  # versions start again at 1
            del self.received[key]
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text)))
        return uri


async def latency(client: Client, path: Path, runs: int, where: str) -> tuple[list[float], list[float]]:
    """`runs` edits of a warm document, each timed from `didChange` to its diagnostics, then a code action request
    for the whole file timed to its answer: (the diagnostics' times, the code actions'). `where`:
    "end" appends a comment line at the end each time; "middle" types at the file's middle line
    (a comment at that line's indent, then one more character per change), inside whatever
    function or class is there."""
    text = path.read_text()
    uri = client.open(path, text)
    await client.wait_for(uri, 1)
    lines = text.split("\n")
    end = lsp.Position(len(lines) - 1, len(lines[-1]))
    middle = len(lines) // 2
    indent = lines[middle][:len(lines[middle]) - len(lines[middle].lstrip())]
    typed = f"{indent}# edit"
    timings, actions = [], []
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) + runs + 1, 0))
    for version in range(2, runs + 2):
        if where == "end":
            change = lsp.TextDocumentContentChangePartial(lsp.Range(end, end), f"\n# edit {version}")
            end = lsp.Position(end.line + 1, len(f"# edit {version}"))
        elif version == 2:
            start = lsp.Position(middle, 0)
            change = lsp.TextDocumentContentChangePartial(lsp.Range(start, start), typed + "\n")
        else:
            at = lsp.Position(middle, len(typed))
            change = lsp.TextDocumentContentChangePartial(lsp.Range(at, at), "x")
            typed += "x"
        sent = time.perf_counter()
        client.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version, uri), [change]))
        timings.append((await client.wait_for(uri, version) - sent) * 1000)
        asked = time.perf_counter()
        await client.client.text_document_code_action_async(lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), whole, lsp.CodeActionContext(diagnostics=[])))
        actions.append((time.perf_counter() - asked) * 1000)
    client.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    return timings, actions


def engine_alone(path: Path, runs: int) -> list[float]:
    """The whole check in this process, without the server (and without the reparser): what every
    change cost before the server parsed only what an edit touched."""
    from devlint.engine.settings import Settings
    from devlint.sources import document

    source = document.PythonSource(str(path), path.read_text())
    document.check(source, Settings())
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        document.check(source, Settings())
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS (not Linux?)")


def corpus_files(corpus: Path) -> list[tuple[Path, int]]:
    found = []
    for path in sorted(corpus.rglob("*.py")):
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        if "import torch" in text:
            found.append((path, text.count("\n") + 1))
    return found


def nearest(files: list[tuple[Path, int]], lines: int, *, analysed: bool = False) -> Path:
    """The file whose line count is nearest `lines`; with `analysed`, the nearest one that the
    prefilter and the screen send on to LibCST (what a file with candidates costs)."""
    from devlint.engine.engine import analyze
    from devlint.engine.settings import Settings

    for path, _ in sorted(files, key=lambda item: abs(item[1] - lines)):
        if not analysed or not analyze(path.read_text(), str(path), Settings()).skipped:
            return path
    raise RuntimeError(f"no file near {lines} lines")


def synthetic(directory: Path, lines: int, name: str) -> Path:
    """The fixtures' bad files, repeated to `lines` lines (dense with reports: a worst case)."""
    parts = [p.read_text() for p in sorted((ROOT / "fixtures").glob("DEV*/bad.py"))]
    text, i = "", 0
    while text.count("\n") < lines:
        text += parts[i % len(parts)]
        i += 1
    path = directory / name
    path.write_text("\n".join(text.split("\n")[:lines]) + "\n")
    return path


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--files", type=int, default=200, help="files opened for the memory figure")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the devlint checkout whose server is run")
    parser.add_argument("--only-analysed", action="store_true", help="only the files LibCST analyses")
    args = parser.parse_args()
    if args.corpus.is_dir():
        files = corpus_files(args.corpus)
        chosen = [("2,000-line", nearest(files, 2000)), ("200-line", nearest(files, 200)),
                  ("2,000-line, analysed by LibCST", nearest(files, 2000, analysed=True)),
                  ("200-line, analysed by LibCST", nearest(files, 200, analysed=True))]
        many = [path for path, _ in files[:args.files]]
        if args.only_analysed:
            chosen = [entry for entry in chosen if "analysed" in entry[0]]
    else:
        scratch = Path(os.environ.get("TMPDIR", "/tmp")) / "devlint-lsp-benchmark"
        scratch.mkdir(exist_ok=True)
        chosen = [("2,000-line", synthetic(scratch, 2000, "large.py")), ("200-line", synthetic(scratch, 200, "small.py"))]
        many = [synthetic(scratch, 200, f"file{i}.py") for i in range(args.files)]
    client = Client(args.checkout.resolve())
    await client.start()
    try:
        timed: set[Path] = set()
        for label, path in chosen:
            if path in timed:
                continue  # the file with candidates is the nearest file itself
            timed.add(path)
            alone = statistics.median(engine_alone(path, args.runs))
            for where in ("end", "middle"):
                timings, actions = await latency(client, path, args.runs, where)
                print(f"{label} file ({path.read_text().count(chr(10)) + 1} lines, {path}), edits at the {where}: "
                      f"diagnostics {_spread(timings)}; code actions {_spread(actions)} ({args.runs} changes); "
                      f"the whole check alone, in-process: median {alone:.1f} ms")
        uris = [client.open(path, path.read_text()) for path in many]
        for uri in uris:
            await client.wait_for(uri, 1)
        print(f"memory after {len(uris)} files opened and checked: {resident_mib(client.pid):.0f} MiB resident")
    finally:
        await client.stop()


def _spread(timings: list[float]) -> str:
    quartiles = statistics.quantiles(timings, n=4)
    return (f"median {statistics.median(timings):.1f} ms, quartiles {quartiles[0]:.1f}-{quartiles[2]:.1f} ms, "
            f"min {min(timings):.1f}, max {max(timings):.1f}")


if __name__ == "__main__":
    asyncio.run(main())
