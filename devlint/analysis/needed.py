"""Which top-level statements of a module LibCST must parse, for rules that name their candidates (issue 31).

A rule whose `Rule.candidates` lists, from the screen's `ast`, every node it may report at reads, besides the
function or class that holds such a node, only what the module says at its top level and what a name leads it
to; of a definition it reaches by its name (`Encoder(...)`, `class Net(Base)`, `x: "Stack"`), only the header:
whether it is a class and its bases. No such rule reads a function's callers. So the LibCST stage keeps:
- every top-level statement that is not a definition (imports, torch aliases, module-level bindings, guards,
  `if __name__ == "__main__":`): they are the module-wide facts;
- every definition (`def`, `async def`, `class`) that holds a candidate, whole;
- the header of every definition whose name a kept statement mentions (a name, an attribute's name, a word of an
  annotation written as a string), transitively through what the headers mention; whole where the name is one
  it binds inside (a class defined in it: the class table holds every class of the file; a name it declares
  `global`); every other definition of a name a kept definition binds, likewise;
- the definition of a base of a class kept whole that calls `super()`, whole (DEV006 reads the overridden method);
- a function a statement kept whole calls by its name (`kernel = make_kernel(...)`), whole: the type oracle reads
  what its returns give (a rule that reads a class's methods, what calling its objects gives, lists the class);
- every definition that says something of the whole file wherever it is, whole: an import of torch (the torch
  names are the file's), of numpy or scikit-learn (DEV006 reads their names as the file's), `set_default_device`
  (DEV002 reports nothing after one), a class with its own `to()` (the type oracle then doubts any object of
  unknown type).
Where a candidate lies in a top-level statement that is not a definition, every statement is parsed: a rule may
read the module's statements in order there (DEV002 looks for the move a few statements after the factory).

What is left out is parsed as a string across its lines, and a header's body likewise (`stand_in`;
devlint/engine/narrowed_parse.py), so every line and column stays where it was. A rule that fails on a node left out
would have lost its reports for the file; it keeps them.
"""

from __future__ import annotations

import ast
import bisect
import copy
import re
from typing import Callable, Iterable, Optional

from devlint.analysis.screen import SyntaxFacts, call_name, contains, walk

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_WORD = re.compile(r"[A-Za-z_]\w*")
LEFT_OUT, HEADER, WHOLE = 0, 1, 2  # what of a statement is parsed


def needed_statements(facts: SyntaxFacts, text: str,
                      candidates: Iterable[ast.AST]) -> Optional[list[tuple[ast.stmt, int]]]:
    """The top-level statements of `facts.tree` (the `ast` of `text`) to parse, in order, each with what of it
    (`WHOLE`, or its `HEADER` only); None when that is every statement whole."""
    body = facts.tree.body
    definitions = [i for i, statement in enumerate(body) if isinstance(statement, _DEFINITIONS)]
    if not definitions:
        return None
    starts = [first_line(statement) for statement in body]

    def holding(node: ast.AST) -> int:
        """The index of the top-level statement that holds `node` (-1: none)."""
        line = getattr(node, "lineno", None)
        return bisect.bisect_right(starts, line) - 1 if line is not None else -1

    parsed = [LEFT_OUT if isinstance(statement, _DEFINITIONS) else WHOLE for statement in body]
    for node in candidates:
        index = holding(node)
        if index < 0 or not isinstance(body[index], _DEFINITIONS):
            return None  # a candidate at the module's top level (or one no statement holds): parse everything
        parsed[index] = WHOLE
    inside: dict[int, set[str]] = {i: set() for i in definitions}
    for i in _says_of_the_whole_file(facts, holding):
        parsed[i] = WHOLE
    for cls in facts.classes:
        i = holding(cls)
        if i in inside and cls is not body[i]:
            inside[i].add(cls.name)  # (the class table holds every class of the file)
    for declared in facts.globals:
        inside.get(holding(declared), set()).update(declared.names)
    binders: dict[str, list[int]] = {}  # name -> the definitions that bind it
    for i in definitions:
        for name in {body[i].name, *inside[i]}:  # type: ignore[attr-defined]
            binders.setdefault(name, []).append(i)
    lines = text.split("\n")
    through_super = _reached_through_super(facts, holding)
    read: set[str] = set()  # every name a kept statement mentions, or a kept definition binds
    work = [i for i, what in enumerate(parsed) if what]
    while work:
        i = work.pop()
        reached: set[str] = set()  # (a statement is taken whole once: these are read once)
        called: set[str] = set()
        if parsed[i] == WHOLE:
            names = _mentioned_in(body[i]) | inside.get(i, set())
            reached = through_super.get(i, set())
            called = _called_in(body[i])
        else:
            names = _mentioned_in_header(body[i])
        names.add(getattr(body[i], "name", ""))
        for name in (names - read) | reached | called:
            read.add(name)
            for j in binders.get(name, ()):
                wanted = WHOLE if name in inside[j] or name in reached or not _header_apart(body[j], lines) or (
                    name in called and type(body[j]) is ast.FunctionDef) else HEADER
                if parsed[j] < wanted:
                    parsed[j] = wanted
                    work.append(j)  # (again, where a header becomes whole: what its body mentions is read)
    if all(what == WHOLE for what in parsed):
        return None
    return [(statement, what) for statement, what in zip(body, parsed) if what]


def _says_of_the_whole_file(facts: SyntaxFacts, holding: Callable[[ast.AST], int]) -> set[int]:
    """The top-level statements that hold an import of torch, numpy or scikit-learn (their names are the file's,
    wherever it imports them), a call that may be `torch.set_default_device` (DEV002 reports nothing after one),
    or a class with its own `to()`."""
    default_device = {"set_default_device", *(local for local, names in facts.aliases.items()
                                              if any(name.endswith(".set_default_device") for name in names))}
    found = {holding(node) for node in (*facts.torch_imports, *facts.numpy_imports)}
    found.update(holding(call) for call in facts.calls if call_name(call) in default_device)
    found.update(holding(cls) for cls in facts.classes if any(
        isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and member.name == "to" for member in cls.body))
    return found


def _reached_through_super(facts: SyntaxFacts, holding: Callable[[ast.AST], int]) -> dict[int, set[str]]:
    """By top-level statement, the bases (by name) of its classes that call `super()`: the method called there is
    read in the base's body (DEV006 asks whether the overridden method copies to the host)."""
    supers = [call for call in facts.calls if type(call.func) is ast.Name and call.func.id == "super"]  # type: ignore
    reached: dict[int, set[str]] = {}
    for cls in facts.classes:
        if cls.bases and any(contains(cls, call) for call in supers):  # type: ignore[arg-type]
            reached.setdefault(holding(cls), set()).update(base.id for base in cls.bases if type(base) is ast.Name)
    return reached


def first_line(statement: ast.stmt) -> int:
    """The line of the statement's first token: a decorator's `@` for a decorated definition."""
    return min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])


def stand_in(statement: ast.stmt, what: int) -> Optional[ast.stmt]:
    """What LibCST parses for a top-level statement and its `ast`: the statement (`WHOLE`); its header with one
    statement for its body, at the first line and indent of the body's first statement (`HEADER`: the line of its
    first decorator, for a decorated method: `ast` puts a definition at its `def`); else (left out) one statement
    for all its lines, none for a statement of one line. A statement that stands for lines is `...` on one line,
    and a string across several: LibCST reads it as one token, where an empty line costs it a node."""
    if what == WHOLE:
        return statement
    if what == HEADER:
        first = statement.body[0]  # type: ignore[attr-defined]
        stub = _standing_for(first_line(first), _indent_of(first), statement.end_lineno or first.lineno)
        header = copy.copy(statement)
        header.body = [stub]  # type: ignore[attr-defined]
        header.end_lineno, header.end_col_offset = stub.end_lineno, stub.end_col_offset
        return header
    start, last = first_line(statement), statement.end_lineno or statement.lineno
    return _standing_for(start, 0, last) if last > start else None


def _standing_for(line: int, column: int, last: int) -> ast.Expr:
    """`...` at `line` and `column`, or a string from there to the start of line `last`."""
    value = ast.Constant(...) if last == line else ast.Constant("")
    stub = ast.Expr(value)
    stub.lineno = value.lineno = line  # type: ignore[attr-defined]
    stub.col_offset = value.col_offset = column  # type: ignore[attr-defined]
    stub.end_lineno = value.end_lineno = last  # type: ignore[attr-defined]
    stub.end_col_offset = value.end_col_offset = column + 3 if last == line else 3  # type: ignore[attr-defined]
    return stub


def _indent_of(statement: ast.stmt) -> int:
    """The column of the statement's first token (a decorator's `@`)."""
    decorators = getattr(statement, "decorator_list", ())
    return min(decorator.col_offset for decorator in decorators) - 1 if decorators else statement.col_offset


def _header_apart(definition: ast.stmt, lines: list[str]) -> bool:
    """Does the definition's body start on a line of its own, after its header, with only its indentation
    before it (where `...` can stand for it)?"""
    first = definition.body[0]  # type: ignore[attr-defined]
    line = first_line(first)
    if line <= definition.lineno:
        return False
    text, column = lines[line - 1], _indent_of(first)
    return column > 0 and text[:column].strip(" \t") == "" and text[column:column + 1] not in ("", " ", "\t")


def _mentioned_in(statement: ast.AST) -> set[str]:
    """Every name the statement writes: names, attributes' names (`module.helper`), the words of an annotation
    written as a string (`"Stack"`: the type oracle reads the class it names)."""
    found: set[str] = set()
    for node in walk(statement):
        kind = type(node)
        if kind is ast.Name:
            found.add(node.id)  # type: ignore[attr-defined]
        elif kind is ast.Attribute:
            found.add(node.attr)  # type: ignore[attr-defined]
        elif kind is ast.arg or kind is ast.AnnAssign:
            _words_of_strings(node.annotation, found)  # type: ignore[attr-defined]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            _words_of_strings(node.returns, found)  # type: ignore[attr-defined]
    return found


def _called_in(statement: ast.AST) -> set[str]:
    """The names the statement calls plainly (`make_kernel(...)`)."""
    return {node.func.id for node in walk(statement)  # type: ignore[attr-defined]
            if type(node) is ast.Call and type(node.func) is ast.Name}  # type: ignore[attr-defined]


def _mentioned_in_header(definition: ast.stmt) -> set[str]:
    """`_mentioned_in` of the definition's header: decorators, and bases and keywords or parameters and returns."""
    if type(definition) is ast.ClassDef:
        parts: list[ast.AST] = [*definition.decorator_list, *definition.bases, *definition.keywords]
        return set().union(*(_mentioned_in(part) for part in parts))
    returns = definition.returns  # type: ignore[attr-defined]
    parts = [*definition.decorator_list, definition.args, *([returns] if returns is not None else [])]  # type: ignore
    found = set().union(*(_mentioned_in(part) for part in parts))
    _words_of_strings(returns, found)
    return found


def _words_of_strings(annotation: Optional[ast.expr], found: set[str]) -> None:
    for node in walk(annotation) if annotation is not None else ():
        if type(node) is ast.Constant and type(node.value) is str:  # type: ignore[attr-defined]
            found.update(_WORD.findall(node.value))  # type: ignore[attr-defined]
