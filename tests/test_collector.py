"""Python's cyclic garbage collector while a file is analysed (devlint/engine/collector.py).

Parsing builds a tree of every node of the file at once, and the collector's passes over it cost a third of
devlint's CPU on the corpus (benchmarks/README.md). So it is off while `analyze` runs, on again after where it
was on, and a file's trees must be freed by reference counting when the file is done: a cycle that holds a tree
would keep it until a collection that, paused, never comes during the next file.
"""

from __future__ import annotations

import ast
import gc
import threading

import libcst as cst

import pytest

from conftest import ROOT
from devlint.engine import engine
from devlint.engine.collector import collector_paused
from devlint.engine.settings import Settings

EVERY_RULE = Settings(select=("DEV",), preview=True)


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_off_inside_and_on_again_after(collector_on):
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(collector_on):
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_pauses_turn_it_on_only_at_the_outermost_end(collector_on):
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_inside_still_turns_it_on_again(collector_on):
    with pytest.raises(ValueError):
        with collector_paused():
            raise ValueError("a file that fails")
    assert gc.isenabled()


def test_a_pause_is_the_threads_that_began_it(collector_on):
    # Another thread's analysis meanwhile neither pauses the collector nor keeps it off: with threads analysing
    # one after the other without a gap, it would otherwise never be on.
    inside, release = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other_file() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)
            seen.append(gc.isenabled())

    with collector_paused():
        thread = threading.Thread(target=other_file)
        thread.start()
        inside.wait(10)
        assert not gc.isenabled()
    assert gc.isenabled()  # this thread's file is done, though the other's is not
    release.set()
    thread.join()
    assert seen == [True] and gc.isenabled()


def test_analyze_runs_with_the_collector_off(collector_on, monkeypatch):
    seen: list[bool] = []
    parse = engine.parse_python

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return parse(*args, **kwargs)

    monkeypatch.setattr(engine, "parse_python", watched)
    engine.analyze("import torch\nx = torch.zeros(3).cuda()\n", "m.py")
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize("fixture", sorted(p.parent.name for p in (ROOT / "fixtures").glob("*/bad.py")))
def test_a_files_trees_are_freed_without_the_collector(collector_on, fixture):
    bad = ROOT / "fixtures" / fixture / "bad.py"
    source = bad.read_text(encoding="utf-8")
    for with_fixes in (False, True):
        engine.analyze(source, str(bad), EVERY_RULE, with_fixes=with_fixes)  # (imports and caches first)
        gc.collect()
        gc.disable()  # (else the pass that follows `analyze` would collect a cycle before it is looked at)
        gc.set_debug(gc.DEBUG_SAVEALL)  # (what the collector finds is kept in `gc.garbage`, to be looked at)
        try:
            result = engine.analyze(source, str(bad), EVERY_RULE, with_fixes=with_fixes)
            assert result.diagnostics
            del result
            gc.collect()
            # Small cycles are allowed (LibCST's `evaluated_value` calls `ast.literal_eval`, whose helpers refer to
            # each other); a node of either tree is not.
            held = [type(found).__name__ for found in gc.garbage if isinstance(found, (ast.AST, cst.CSTNode))]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert held == []


def _garbage_of(source: str) -> int:
    """How many objects `analyze` of `source` (every rule) leaves to the cyclic collector."""
    engine.analyze(source, "m.py", EVERY_RULE)  # (imports and caches first)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = engine.analyze(source, "m.py", EVERY_RULE)
        assert result.diagnostics
        del result
        gc.collect()
        return len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_what_a_file_leaves_to_the_collector_does_not_grow_with_its_literals(collector_on):
    # Strings read as devices and numbers as device counts, hundreds of them: `ast.literal_eval` (LibCST's
    # `evaluated_value`) would leave a cycle of about a kilobyte for each, held until the file is done.
    function = ('def f{i}(x):\n    if torch.cuda.device_count() > {i}:\n        y = torch.zeros({i}, device="cuda")\n'
                '        return x.to("cuda:{i}") + y\n    return x.to(\'cuda\')\n\n\n')
    source = "import torch\n\n\n" + "".join(function.format(i=i) for i in range(400))
    assert _garbage_of(source) < 200
