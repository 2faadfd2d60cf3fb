"""The parts of LibCST devlint uses that LibCST does not promise to keep (devlint/analysis/libcst_internals.py)
are still there, and still behave as devlint reads them. A LibCST release that changes one fails here, by name."""

from __future__ import annotations

import importlib
import inspect

import libcst as cst

from devlint.analysis import libcst_internals as internals
from devlint.engine.placing import Placing

SOURCE = "def f(x):\n    return g(x,  1)\n"


def test_the_codegen_state_has_what_the_position_recording_state_overrides():
    for name in ("add_token", "add_indent_tokens", "before_codegen", "after_codegen", "record_syntactic_position"):
        assert callable(getattr(internals.CodegenState, name, None)), name
    state = internals.CodegenState(default_indent="    ", default_newline="\n")
    assert state.tokens == [] and state.indent_tokens == []
    assert list(inspect.signature(internals.CodegenState.record_syntactic_position).parameters) == [
        "self", "node", "start_node", "end_node"]


def test_codegen_writes_a_node_as_its_code_and_a_placing_state_records_libcsts_positions():
    module = cst.parse_module(SOURCE)
    state = internals.CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    internals.codegen(module, state)
    assert "".join(state.tokens) == SOURCE
    placing = Placing(module)
    internals.codegen(module, placing)
    call = module.body[0].body.body[0].body[0].value  # type: ignore[attr-defined]
    assert placing.positions[call] == internals.CodeRange(internals.CodePosition(2, 11), internals.CodePosition(2, 19))


def test_a_removed_node_is_removable_and_a_kept_one_is_not():
    assert internals.is_removable(cst.SimpleStatementLine(body=[])) is True
    assert internals.is_removable(cst.SimpleStatementLine(body=[cst.Pass()])) is False


def test_the_node_modules_define_every_node_class_libcst_exports():
    defined = {value for module in internals.NODE_MODULES for value in vars(importlib.import_module(module)).values()
               if isinstance(value, type) and issubclass(value, cst.CSTNode)}
    exported = {value for value in vars(cst).values() if isinstance(value, type) and issubclass(value, cst.CSTNode)}
    assert exported <= defined


def test_the_native_parser_gives_the_tree_parse_module_gives():
    assert internals.native_parse_module is not None
    assert internals.native_parse_module(SOURCE, "utf-8").deep_equals(cst.parse_module(SOURCE))


def test_every_node_is_validated_by_the_hook_devlint_skips_while_parsing():
    assert internals.VALIDATION_HOOK in vars(cst.CSTNode)
    try:
        cst.Name("not a name")
    except cst.CSTValidationError:
        pass
    else:
        raise AssertionError("LibCST no longer validates a node where it is built")
