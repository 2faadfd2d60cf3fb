"""LibCST's node classes built from kept code are the classes a plain import builds
(devlint/engine/compiled_dataclasses.py).

Each case runs in a fresh interpreter (LibCST is imported once per process), with its own cache folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Every dataclass method of every LibCST node class (and of devlint's LibCST stage): where its globals come from
# and what its code is, as far as code objects can be compared across processes.
FINGERPRINT = r"""
import dataclasses, json, sys
from devlint.engine import engine
{import_stage}
import libcst as cst
from devlint.analysis.libcst_internals import NODE_MODULES
from devlint.engine import compiled_dataclasses as kept

def code_print(code):
    consts = [code_print(c) if hasattr(c, "co_code") else repr(c) for c in code.co_consts]
    return [code.co_code.hex(), code.co_names, code.co_varnames, code.co_freevars, code.co_filename,
            code.co_firstlineno, code.co_flags, consts]

found = {{}}
for name in NODE_MODULES:
    for value in vars(sys.modules[name]).values():
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
            for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
                function = value.__dict__.get(method)
                if function is not None and hasattr(function, "__code__"):
                    found[f"{{name}}.{{value.__qualname__}}.{{method}}"] = [
                        function.__globals__.get("__name__"), code_print(function.__code__)]
module = cst.parse_module("x = f(a, *b)\n")
assert module.code == "x = f(a, *b)\n" and module.deep_equals(cst.parse_module("x = f(a, *b)\n"))
try:
    module.body[0].leading_lines = ()
except dataclasses.FrozenInstanceError:
    pass
else:
    raise AssertionError("a node is frozen")
assert "exec" not in vars(dataclasses)
print(json.dumps({{"methods": found, "compiled": kept._compiled, "used": len(kept._used),
                  "equal": all(compile(t, "<string>", "exec", dont_inherit=True) == c
                               for t, c in kept._kept.items())}}))
"""


def _run(cache: Path, *, plain: bool = False, no_bytecode: bool = False) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(cache)
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    stage = "import libcst, devlint.engine.cst_stage" if plain else "engine._cst_stage()"
    done = subprocess.run([sys.executable, "-c", FINGERPRINT.format(import_stage=stage)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _kept_files(cache: Path) -> list[Path]:
    return sorted((cache / "devlint").glob("*.marshal")) if (cache / "devlint").is_dir() else []


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A plain import: nothing kept, nothing served."""
    cache = tmp_path_factory.mktemp("plain")
    found = _run(cache, plain=True)
    assert _kept_files(cache) == []
    return found


def test_a_first_run_compiles_and_keeps_and_a_second_compiles_nothing(plain: dict, tmp_path: Path) -> None:
    first = _run(tmp_path)
    assert first["compiled"] > 500 and first["equal"]
    assert len(_kept_files(tmp_path)) == 1
    second = _run(tmp_path)
    assert second["compiled"] == 0 and second["used"] == first["used"] and second["equal"]
    assert first["methods"] == plain["methods"] == second["methods"]
    assert len(plain["methods"]) > 500


def test_a_damaged_file_is_ignored_and_written_again(plain: dict, tmp_path: Path) -> None:
    _run(tmp_path)
    (kept,) = _kept_files(tmp_path)
    kept.write_bytes(b"\xe3not marshal at all")
    again = _run(tmp_path)
    assert again["compiled"] > 500 and again["methods"] == plain["methods"]
    assert _run(tmp_path)["compiled"] == 0
    kept.write_bytes(__import__("marshal").dumps({"a text": "not code"}))
    assert _run(tmp_path)["compiled"] > 500


def test_nothing_is_written_where_python_writes_no_bytecode_or_the_folder_cannot_be_made(
        plain: dict, tmp_path: Path) -> None:
    assert _run(tmp_path, no_bytecode=True)["methods"] == plain["methods"]
    assert _kept_files(tmp_path) == []
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    assert _run(blocked)["methods"] == plain["methods"]


def test_writing_a_file_removes_all_but_the_newest_files_of_other_environments(tmp_path: Path) -> None:
    from devlint.engine.compiled_dataclasses import KEPT_FILES

    folder = tmp_path / "devlint"
    folder.mkdir()
    others = [folder / f"dataclasses-cpython-311-a70d0d0a-O0-{n:016x}.marshal" for n in range(KEPT_FILES + 3)]
    for age, other in enumerate(others):  # others[0] the newest
        other.write_bytes(b"")
        os.utime(other, ns=(10**18 - age * 10**9,) * 2)
    unrelated = folder / "not-devlint.txt"
    unrelated.write_text("")
    _run(tmp_path)
    kept = set(_kept_files(tmp_path))
    assert kept - set(others) and len(kept - set(others)) == 1  # the file this run wrote
    assert kept & set(others) == set(others[:KEPT_FILES]) and unrelated.exists()
    _run(tmp_path)  # nothing written: nothing removed
    assert set(_kept_files(tmp_path)) == kept
