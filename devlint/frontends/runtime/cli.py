"""`devlint confirm`: the runtime companion's command line.

Exit codes: 0 every rule that could run was confirmed; 1 evidence contradicts a rule, or a snippet
failed (crash, timeout, unexpected error: never counted as confirmation); 2 usage error or no torch.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.resources
import importlib.util
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from devlint.contract.project import __version__
from devlint.runner.errors import UsageError
from devlint.frontends.runtime.records import CONFIRMED, NOT_RUN, no_device

if TYPE_CHECKING:
    from devlint.frontends.runtime.launch import Machine

INSTALL_HINT = "pip install 'devlint[runtime]'"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"confirm: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="devlint confirm",
        description="Run each rule's fixtures (bad.py, fixed.py and the --fix output of bad.py) on the devices"
        " this machine has, and show the evidence that the bug is real and the fix removes it.",
    )
    parser.add_argument("--device", choices=("cpu", "cuda", "mps", "all"), default="all",
                        help="device to confirm on: one this machine lacks is an error (default: all, the devices"
                        " this machine has)")
    parser.add_argument("--rule", action="extend", nargs="+", metavar="CODE", default=[],
                        help="rule codes to confirm (default: all)")
    parser.add_argument("--json", metavar="PATH", help="write the full evidence as JSON to PATH ('-': stdout)")
    parser.add_argument("--markdown", metavar="PATH",
                        help="write the report as a Markdown page to PATH: the command, the machine, the table,"
                        " the measurements and every call's evidence")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="seconds per snippet (default: 3x the measured torch import time + 10 s, at least 60)")
    parser.add_argument("--fixtures", metavar="DIR",
                        help="the fixtures directory (default: the checkout's fixtures/, else the copy installed"
                        " with devlint)")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1), metavar="N",
                        help="snippets run at once on CPU and mps (CUDA snippets always run one at a time)")
    parser.add_argument("--spawn", action="store_true",
                        help="spawn a fresh interpreter per snippet instead of forking from a server that imported"
                        " torch once (forking is only ever used on Linux without CUDA)")
    parser.add_argument("--details", action="store_true", help="print every call's evidence under the table")
    return parser


def main(args: Sequence[str]) -> int:
    from devlint.frontends.runtime import confirm as engine
    from devlint.frontends.runtime import launch
    from devlint.frontends.runtime import report
    from devlint.frontends.runtime.runner import kill_all

    options = build_parser().parse_args(list(args))
    codes = _codes(options.rule)
    fixtures = _fixtures(options.fixtures, codes)
    if options.timeout is not None and options.timeout <= 0:
        raise UsageError("confirm: --timeout must be a positive number of seconds")
    if options.jobs < 1:
        raise UsageError("confirm: --jobs must be at least 1")
    if importlib.util.find_spec("torch") is None:
        raise UsageError(f"`devlint confirm` needs torch, which is not installed: {INSTALL_HINT}")
    requested = list(engine.DEVICES) if options.device == "all" else [options.device]

    shown: list[str] = []

    def progress(line: str) -> None:
        shown.append(line)
        print(line, file=sys.stderr, flush=True)

    started = time.monotonic()
    forking = None
    try:
        progress("devlint confirm: importing torch in a child to see the devices...")
        try:
            machine, forking = launch.start(options.timeout, options.spawn)
        except launch.TorchUnavailable as error:
            raise UsageError(f"`devlint confirm` cannot import torch ({error}): {INSTALL_HINT}") from None
        devices, absent = _devices(requested, machine, named=options.device != "all")
        timeout = options.timeout or machine.default_timeout()
        how = "forked from a process that imported torch once" if forking else "each in a fresh interpreter"
        progress(f"torch {machine.info.get('torch')}, devices: {', '.join(machine.devices)};"
                 f" snippets run {how}, {timeout:g} s each at most")
        verdicts = engine.confirm(codes, devices, fixtures, machine, timeout, options.jobs, progress, forking)
    except KeyboardInterrupt:
        kill_all()
        raise
    finally:
        if forking is not None:
            forking.close()
    human = sys.stderr if options.json == "-" else sys.stdout  # keep stdout pure JSON with `--json -`
    human.write(report.table_and_absent(verdicts, absent))
    if options.details:
        human.write("\n" + report.details(verdicts))
    print(report.summary(verdicts), file=sys.stderr)
    status = 0 if all(v.verdict in (CONFIRMED, NOT_RUN) for v in verdicts) else 1
    meta = {"devlint_confirm": 1, "devlint": __version__, "date": _now(), "platform": platform.platform(),
            "processor": platform.machine(), "cpu_count": os.cpu_count(), "devices_requested": requested,
            "devices_absent": absent,
            "rules": codes, "timeout_s": timeout, "seconds": round(time.monotonic() - started, 1),
            "exit_code": status}
    data = report.to_json(verdicts, machine.info, meta)
    if options.json:
        _write_json(options.json, data)
    if options.markdown:
        command = "devlint confirm " + shlex.join(args)
        link = _relative_link(options.json, options.markdown) if options.json and options.json != "-" else ""
        _write_text(options.markdown, report.markdown(verdicts, data, command, shown, link))
    return status


def _relative_link(target: str, page: str) -> str:
    return os.path.relpath(os.path.abspath(target), os.path.dirname(os.path.abspath(page))).replace(os.sep, "/")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _codes(requested: list[str]) -> list[str]:
    from devlint.rules import rule_codes

    known = list(rule_codes())
    codes: list[str] = []
    for item in requested:
        for code in (c.strip().upper() for c in item.split(",") if c.strip()):
            if code not in known:
                raise UsageError(f"confirm: unknown rule '{code}'; valid codes: {', '.join(known)}")
            if code not in codes:
                codes.append(code)
    return codes or known


def _devices(requested: list[str], machine: "Machine", *, named: bool) -> tuple[list[str], list[str]]:
    """The requested devices this machine has, and those it lacks. A device asked for by name must be
    here: a GPU job whose GPU went missing fails rather than passing with every rule skipped."""
    absent = [device for device in requested if device not in machine.devices]
    if named and absent:
        raise UsageError(f"confirm: --device {absent[0]}, but this machine has {no_device(absent[0])}"
                         f" (torch {machine.info.get('torch')} sees only {', '.join(machine.devices)})")
    return [device for device in requested if device in machine.devices], absent


def _fixtures(given: Optional[str], codes: list[str]) -> Path:
    from devlint.frontends.runtime.confirm import fixture_dir

    directory = Path(given) if given else _installed_fixtures()
    if directory is None:
        raise UsageError("confirm: no fixtures: this devlint is neither a source checkout with fixtures/ nor"
                         " an installed wheel with its packaged copy; pass --fixtures DIR")
    if not directory.is_dir():
        raise UsageError(f"confirm: no fixtures directory at {directory}; pass --fixtures DIR")
    for code in codes:
        if fixture_dir(directory, code) is None:
            raise UsageError(f"confirm: {directory} has no {code}-*/bad.py and fixed.py")
    return directory


def _installed_fixtures() -> Optional[Path]:
    """The checkout's fixtures/ beside the package (the source of truth: an editable install reads it),
    else the copy a wheel carries as package data (setup.py's build step puts it there)."""
    checkout = Path(__file__).resolve().parents[3]  # site-packages for a wheel: it may hold another `fixtures`
    if (checkout / "pyproject.toml").is_file() and (checkout / "fixtures").is_dir():
        return checkout / "fixtures"
    packaged = importlib.resources.files("devlint.frontends.runtime") / "fixtures"
    return packaged if isinstance(packaged, Path) and packaged.is_dir() else None  # not from a zip: children run paths


def _write_json(path: str, data: dict) -> None:
    text = json.dumps(data, indent=2, default=str) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return
    _write_text(path, text)


def _write_text(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"confirm: cannot write {path}: {error.strerror or error}") from None
