"""Where a fix's rewritten line is too long, or joins lines that were split: break it as black would.

A fix is a text edit (`source[start:end]` -> `replacement`). `lay_out` looks at the physical line
that holds the edit afterwards and breaks a bracket there the way black and `ruff format` do: what it
holds on one line indented one level more, where that fits and it is the line's first bracket (black's
right-hand split); otherwise as they lay out a bracket with a magic trailing comma: one item per line, indented one level more than the line
that opens the bracket, the closing bracket on its own line at that line's indentation, a
trailing comma after the last item. Every bracket opened on that line that encloses the broken
one is broken too (black would: a magic trailing comma splits every bracket around it), so the
output of a black-formatted file stays black-formatted. Which bracket:
- the innermost one of the line that encloses the edit (the call a keyword was added to);
- else (the edit is outside any bracket of the line, e.g. `x = ` put before a call) the last one
  at the line's top level, as black's right-hand split picks it.
The bracket is broken when the line is over the limit, or when the edit put on one line what was
split over several (a fix never joins lines). A line still too long that holds a conditional
expression (`a if b else c`) is split before `if` and `else`, one part per line, as black does: in
parentheses it adds (`device=(`, `x = (`), or without them where the expression is all a bracket
opened on the line before holds; a comment that ends the line follows the closing parenthesis. Layouts black would write differently (an operator after the
bracket: black wraps the whole expression in parentheses), and lines still too long afterwards, are
refused: the caller then does not apply the fix.
"""

from __future__ import annotations

import io
import re
import tokenize
import unicodedata
from dataclasses import dataclass
from typing import Optional

DEFAULT_LINE_LENGTH = 88
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")", "]", "}"}
# Tokens that may follow the broken bracket on its line: black keeps them after the closing
# bracket (`).bool()`, `)[0]`, `),`, `):`, a comment, brackets closed that opened on earlier lines).
_TAIL_OPS = {")", "]", "}", ",", ":", "."}


def width(line: str) -> int:
    """The line's width as black counts it (wide East Asian characters count 2, a tab 4)."""
    total = 0
    for char in line:
        if char == "\t":
            total += 4
        elif ord(char) < 0x1100:
            total += 1
        else:
            total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


@dataclass(frozen=True)
class _Token:
    kind: int
    text: str
    start: int  # offsets into the whole text
    end: int


@dataclass
class _Pair:
    open: _Token
    close: Optional[_Token] = None
    depth: int = 0  # brackets around it (in the whole text)


class Refused(Exception):
    """The edit cannot be laid out within the limit (or not as black would)."""


def lay_out(source: str, start: int, end: int, replacement: str, limit: int) -> tuple[int, int, str]:
    """The edit `source[start:end] = replacement`, laid out: returns an edit (whole lines of
    `source`) to apply instead. Raises `Refused` when a line it adds would be longer than
    `limit` (and longer than the longest line it replaces) and no layout fixes that."""
    start, end, replacement = smallest(source, start, end, replacement)
    new = source[:start] + replacement + source[end:]
    new_end = start + len(replacement)
    line_start = source.rfind("\n", 0, start) + 1
    stop = _line_end(new, new_end)  # the edit's lines: new[line_start:stop], source[line_start:old_stop]
    old_stop = end + stop - new_end
    joined = "\n" in source[start:end] and _split_lines_inside_brackets(source, start, end) > \
        _split_lines_inside_brackets(new, start, new_end)
    # a line that was over the limit already may stay as long (black could not break it either)
    allowed = max(limit, max(width(line) for line in _lines(source[line_start:old_stop])))
    if not joined and all(width(line) <= allowed for line in _lines(new[line_start:stop])):
        return line_start, old_stop, new[line_start:stop]
    # the bracket the edit is in (the call a keyword went into), then lines still too long:
    # each at its last bracket or its commas, as black would
    broken = _break(new, start, new_end, force=joined, limit=limit)
    if broken is None and joined:
        raise Refused  # never join lines that were split
    if broken is None:
        broken = _split_conditional(new, start, limit)  # `device = a if b else c` at a statement's top level
    tail = len(new) - stop  # new[-tail:] is source[-tail:]: the lines after the edit's
    for _ in range(100):
        if broken is None:
            break
        first, last, _text = broken
        # a break may reach beyond the edit's lines (parentheses dropped around them)
        line_start = min(line_start, new.rfind("\n", 0, first) + 1)
        tail = min(tail, len(new) - _line_end(new, last))
        new = _replace(new, broken)
        stop = len(new) - tail
        offset = line_start
        for line in new[line_start:stop].split("\n"):
            if width(line.rstrip("\r")) > allowed:
                break
            offset += len(line) + 1
        else:
            break
        broken = _split_conditional(new, offset, limit) or _break(new, offset, offset, force=False, limit=limit)
    result = new[line_start:stop]
    if any(width(line) > allowed for line in _lines(result)):
        raise Refused
    return line_start, len(source) - tail, result


def _split_conditional(text: str, start: int, limit: int) -> Optional[tuple[int, int, str]]:
    """The line holding `start`, when it is `[name =] a if b else c[,]` (an item, a keyword argument,
    an assignment, a parameter's default): laid out as black does. In parentheses it adds, one level
    deeper, after a `name =` or before a trailing comma: on one line there when it fits in `limit`,
    else split before `if` and `else`; split without parentheses where the line is all that a bracket
    closing on the next line holds. None for any other line."""
    line_start = text.rfind("\n", 0, start) + 1
    line_stop = text.find("\n", line_start)
    line_stop = len(text) if line_stop < 0 else line_stop
    line = text[line_start:line_stop]
    newline = "\r\n" if line.endswith("\r") else "\n"
    tokens = _tokens(text)
    mine = [t for t in tokens if line_start <= t.start < line_stop and t.kind not in (tokenize.NL, tokenize.NEWLINE)]
    # a comment ends the line: black keeps it after what closes the expression (`)  # note`, `else c  # note`)
    end = mine[-1].end if mine else line_stop
    comment = "  " + mine.pop().text if mine and mine[-1].kind == tokenize.COMMENT else ""
    if not mine:
        return None
    level = 0
    cut_if = cut_else = assign = None
    for index, token in enumerate(mine):
        if token.kind == tokenize.OP and token.text in _OPENERS:
            level += 1
        elif token.kind == tokenize.OP and token.text in _CLOSERS:
            level -= 1
            if level < 0:
                return None  # the line closes a bracket of an earlier line
        elif level == 0 and token.kind == tokenize.NAME and token.text in ("for", "lambda", "yield"):
            return None
        elif level == 0 and token.kind == tokenize.NAME and token.text == "if" and cut_if is None and index > 0:
            cut_if = index
        elif level == 0 and token.kind == tokenize.NAME and token.text == "else" and cut_if is not None:
            if cut_else is not None:
                return None  # nested conditionals: not this simple layout
            cut_else = index
        elif level == 0 and token.kind == tokenize.OP and token.text == "=" and cut_if is None:
            assign = index
        elif level == 0 and token.kind == tokenize.OP and token.text == "," and index != len(mine) - 1:
            return None  # several items: black splits at the commas first
    if cut_if is None or cut_else is None:
        return None
    comma = mine[-1].text == ","
    last = len(mine) - 1 if comma else len(mine)
    first = assign + 1 if assign is not None else 0
    if first >= cut_if:
        return None
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    unit = "\t" if "\t" in indent else "    "
    parts = [text[mine[first].start:mine[cut_if - 1].end], text[mine[cut_if].start:mine[cut_else - 1].end],
             text[mine[cut_else].start:mine[last - 1].end]]
    head = text[mine[0].start:mine[first].start] if first else ""  # `name=`, `name = `, `name: T = `
    before = [t for t in tokens if t.end <= mine[0].start and t.kind not in (tokenize.NL, tokenize.NEWLINE)]
    after = [t for t in tokens if t.start >= line_stop and t.kind not in (tokenize.NL, tokenize.NEWLINE)]
    # all a bracket holds (a trailing comma the fix's own break added goes: black writes none there)
    alone = (not head and before and before[-1].text in _OPENERS and after
             and after[0].text == _OPENERS[before[-1].text])
    if alone:
        body = newline.join(indent + part for part in parts) + comment
    elif head or comma:
        if not _in_brackets(tokens, mine[0]) and (assign is None or not _statement_start(tokens, mine[0])):
            return None
        whole = text[mine[first].start:mine[last - 1].end]
        inner = (indent + unit + whole if width(indent + unit + whole) <= limit
                 else newline.join(indent + unit + part for part in parts))
        body = f"{indent}{head}({newline}{inner}{newline}{indent}){',' if comma else ''}{comment}"
    else:
        return None
    return line_start, end, body


def _statement_start(tokens: list[_Token], token: _Token) -> bool:
    """Does a statement start at `token` (the line before it ended one)?"""
    index = tokens.index(token)
    return index == 0 or tokens[index - 1].kind in (tokenize.NEWLINE, tokenize.NL)


def _in_brackets(tokens: list[_Token], token: _Token) -> bool:
    """Is `token` inside brackets opened before it?"""
    depth = 0
    for other in tokens:
        if other is token:
            return depth > 0
        if other.kind == tokenize.OP and other.text in _OPENERS:
            depth += 1
        elif other.kind == tokenize.OP and other.text in _CLOSERS:
            depth -= 1
    return False


def smallest(source: str, start: int, end: int, replacement: str) -> tuple[int, int, str]:
    """The same edit (`source[start:end] = replacement`) without the text it keeps at either end."""
    old = source[start:end]
    prefix = 0
    limit = min(len(old), len(replacement))
    while prefix < limit and old[prefix] == replacement[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == replacement[len(replacement) - 1 - suffix]:
        suffix += 1
    return start + prefix, end - suffix, replacement[prefix:len(replacement) - suffix]


def _lines(text: str) -> list[str]:
    return [line.rstrip("\r") for line in text.rstrip("\n").split("\n")]


def _replace(text: str, edit: tuple[int, int, str]) -> str:
    return text[:edit[0]] + edit[2] + text[edit[1]:]


def _line_end(text: str, offset: int) -> int:
    """The offset just past the end of the line holding `offset` (its newline included)."""
    if offset > 0 and text[offset - 1] == "\n":
        return offset
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def _tokens(text: str) -> list[_Token]:
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    result: list[_Token] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
                continue
            (sl, sc), (el, ec) = token.start, token.end
            result.append(_Token(token.type, token.string, starts[sl - 1] + sc, starts[el - 1] + ec))
    except (tokenize.TokenError, SyntaxError, IndexError):
        pass
    return result


def _split_lines_inside_brackets(text: str, start: int, end: int) -> int:
    """How many line breaks inside brackets lie in text[start:end] (a statement's own lines)."""
    depth = count = 0
    for token in _tokens(text):
        if token.kind == tokenize.OP and token.text in _OPENERS:
            depth += 1
        elif token.kind == tokenize.OP and token.text in _CLOSERS:
            depth -= 1
        elif token.kind == tokenize.NL and depth > 0 and start <= token.start < end:
            count += 1
    return count


def _break(text: str, start: int, end: int, *, force: bool, limit: int) -> Optional[tuple[int, int, str]]:
    """Break the line of `text` holding text[start:end]: (from, to, new text) or None. `force`:
    break the bracket around the edit even where the line has commas of its own."""
    tokens = _tokens(text)
    line_start = text.rfind("\n", 0, start) + 1
    line_stop = text.find("\n", line_start)
    line_stop = len(text) if line_stop < 0 else line_stop
    if text[line_start:line_stop].rstrip("\r").endswith("\\"):
        return None
    pairs = _pairs(tokens)
    line = text[line_start:line_stop]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    unit = "\t" if "\t" in indent else "    "
    newline = "\r\n" if line.endswith("\r") else "\n"
    line_tokens = [t for t in tokens
                   if line_start <= t.start < line_stop and t.kind not in (tokenize.NL, tokenize.NEWLINE)]
    if not force:
        items = _delimiter_split(text, tokens, pairs, line_tokens, line_start, line_stop, indent, newline)
        if items is not None:
            return items
    on_line = [p for p in pairs if line_start <= p.open.start < line_stop and p.close is not None
               and p.close.start < line_stop]
    enclosing = [p for p in on_line if p.open.start < start and p.close.start >= min(end, line_stop)]  # type: ignore
    if enclosing:
        target = max(enclosing, key=lambda p: p.open.start)
    else:
        top = [p for p in on_line  # type: ignore[operator]
               if not any(q is not p and q.open.start < p.open.start and q.close.start > p.close.start
                          for q in on_line)]
        top = [p for p in top if p.close.start > p.open.end]  # type: ignore[union-attr]  (empty brackets: no)
        if not top:
            return None
        target = top[-1]
    chain = [p for p in on_line  # type: ignore
             if p.open.start <= target.open.start and p.close.start >= target.close.start]
    chain.sort(key=lambda p: p.open.start)
    outer = chain[0]
    if not _tail_is_plain(line_tokens, outer, pairs) or not _head_is_plain(line_tokens, outer):
        return None
    around = [p for p in pairs if p.open.start < line_start and p.close is not None and p.close.start >= line_stop]
    if around and not _plain_around(tokens, line_tokens[0].start, line_tokens[-1].end, outer, pairs):
        return None  # inside brackets black splits at an operator of the line first
    optional = _optional_parens(text, tokens, around, line_tokens)
    if optional is not None:
        # `x = (\n    call(...).more()\n)`: black drops the parentheses once the call is broken
        statement = text[text.rfind("\n", 0, optional.open.start) + 1:]
        outer_indent = statement[: len(statement) - len(statement.lstrip(" \t"))]
        broken = _explode(text, tokens, chain, 0, outer_indent, unit, newline, target)
        if broken is None:
            return None
        head = text[line_tokens[0].start:outer.open.start]
        tail = text[outer.close.end:line_tokens[-1].end]  # type: ignore[union-attr]
        return optional.open.start, optional.close.end, head + broken + tail  # type: ignore[union-attr]
    head, tail = text[line_start:outer.open.end], indent + text[outer.close.start:line_stop].rstrip("\r")  # type: ignore
    hugged = None  # (lines the user split keep theirs; a head or tail too long: black omits trailers first)
    # (a bracket before it on the line: black may split there instead; the old layout, one per line, is kept)
    earlier = any(p.depth <= outer.depth and p.open.start < outer.open.start and p.close.start > p.open.end  # type: ignore
                  for p in on_line)
    if not force and not earlier and width(head) <= limit and width(tail) <= limit:
        hugged = _hug(text, outer, indent + unit, limit)
    if hugged is not None:
        return outer.open.start, outer.close.end, f"{outer.open.text}{newline}{hugged}{newline}{indent}{outer.close.text}"  # type: ignore[union-attr]
    broken = _explode(text, tokens, chain, 0, indent, unit, newline, target)
    if broken is None:
        return None
    return outer.open.start, outer.close.end, broken  # type: ignore[union-attr]


def _hug(text: str, pair: _Pair, indent: str, limit: int) -> Optional[str]:
    """What `pair`'s brackets hold, on one line at `indent`, where black's right-hand split puts it: it fits
    in `limit` and holds no magic trailing comma (black then keeps one item per line) and no
    line break. None otherwise."""
    assert pair.close is not None
    inside = text[pair.open.end:pair.close.start].strip(" \t")
    if not inside or inside.endswith(",") or "\n" in inside or width(indent + inside) > limit:
        return None
    return indent + inside


def _optional_parens(text: str, tokens: list[_Token], around: list[_Pair],
                     line_tokens: list[_Token]) -> Optional[_Pair]:
    """The parentheses black added around a right-hand side that did not fit (`x = (`, `return (`)
    when the line is all they hold."""
    if not around or not line_tokens:
        return None
    pair = max(around, key=lambda p: p.open.start)
    if pair.open.text != "(" or pair.close is None:
        return None
    index = tokens.index(pair.open)
    before = tokens[index - 1] if index > 0 else None
    assigns = before is not None and (before.text in ("=", "return") or (
        before.kind == tokenize.OP and before.text.endswith("=") and before.text not in ("==", "!=", "<=", ">=")))
    if not assigns:
        return None
    inside = [t for t in tokens[index + 1:tokens.index(pair.close)] if t.kind not in (tokenize.NL, tokenize.NEWLINE)]
    if inside != line_tokens or any(t.kind == tokenize.COMMENT for t in inside):
        return None
    if "\n" in text[before.end:pair.open.start] or "\n" not in text[pair.open.end:line_tokens[0].start]:
        return None
    return pair


def _delimiter_split(text: str, tokens: list[_Token], pairs: list[_Pair], line_tokens: list[_Token],
                     line_start: int, line_stop: int, indent: str, newline: str) -> Optional[tuple[int, int, str]]:
    """A line inside brackets opened on an earlier line, with items separated by commas: one item
    per line (black's delimiter split), a trailing comma where the brackets close next."""
    around = [p for p in pairs if p.open.start < line_start and p.close is not None and p.close.start >= line_stop]
    if not around or not line_tokens:
        return None
    level = 0
    cuts: list[_Token] = []
    for token in line_tokens:
        if token.kind == tokenize.OP and token.text in _OPENERS:
            level += 1
        elif token.kind == tokenize.OP and token.text in _CLOSERS:
            level -= 1
            if level < 0:
                return None  # the line closes a bracket: not a plain list of items
        elif token.kind == tokenize.COMMENT:
            return None
        elif token.kind == tokenize.NAME and token.text == "lambda" and level == 0:
            return None
        elif token.kind == tokenize.OP and token.text == "," and level == 0:
            cuts.append(token)
    if not cuts or (len(cuts) == 1 and cuts[0] is line_tokens[-1]):
        return None
    first = line_tokens[0].start
    items = []
    for cut in cuts:
        items.append(text[first:cut.start].strip(" \t"))
        first = cut.end
    last = text[first:line_tokens[-1].end].strip(" \t")
    if last:
        after = next((t for t in tokens if t.start >= line_stop and t.kind not in (tokenize.NL, tokenize.NEWLINE)),
                     None)
        closes = after is not None and any(p.close is after for p in around)
        items.append(last + ("," if closes else ""))
        body = [item + "," for item in items[:-1]] + [items[-1]]
    else:
        body = [item + "," for item in items]
    return line_tokens[0].start - len(indent), line_tokens[-1].end, newline.join(indent + item for item in body)


def _pairs(tokens: list[_Token]) -> list[_Pair]:
    pairs: list[_Pair] = []
    stack: list[_Pair] = []
    for token in tokens:
        if token.kind != tokenize.OP:
            continue
        if token.text in _OPENERS:
            pair = _Pair(token, depth=len(stack))
            stack.append(pair)
            pairs.append(pair)
        elif token.text in _CLOSERS and stack:
            stack.pop().close = token
    return pairs


def _tail_is_plain(line_tokens: list[_Token], outer: _Pair, pairs: list[_Pair]) -> bool:
    """After the broken bracket only what black keeps on its closing line: trailers (`.name`,
    `(...)`, `[...]`), commas, colons, closing brackets, a comment. An operator there makes black
    wrap the whole expression in parentheses instead."""
    assert outer.close is not None
    skip_until = -1
    for token in line_tokens:
        if token.start <= outer.close.start or token.start < skip_until:
            continue
        if token.kind == tokenize.COMMENT or (token.kind == tokenize.OP and token.text in _TAIL_OPS):
            continue
        if token.kind == tokenize.NAME and token.text.isidentifier() and _after_dot(line_tokens, token):
            continue
        if token.kind == tokenize.OP and token.text in ("(", "["):
            pair = next((p for p in pairs if p.open is token), None)
            if pair is not None and pair.close is not None:
                skip_until = pair.close.end
                continue
        return False
    return True


_COMPOUND = {"if", "elif", "else", "while", "for", "async", "with", "try", "except", "finally", "def", "class"}


def _head_is_plain(line_tokens: list[_Token], outer: _Pair) -> bool:
    """Before the broken bracket, nothing black splits at first: a conditional expression
    (black wraps it in parentheses, one part per line) or a compound statement's body on the
    same line as its header (black moves the body to its own line)."""
    level = 0
    head = [t for t in line_tokens if t.start < outer.open.start]
    for index, token in enumerate(head):
        if token.kind == tokenize.OP and token.text in _OPENERS:
            level += 1
        elif token.kind == tokenize.OP and token.text in _CLOSERS:
            level -= 1
        elif level == 0 and index > 0 and token.kind == tokenize.NAME and token.text in ("if", "else", "for"):
            return False
        elif level == 0 and token.text == ":" and head[0].text in _COMPOUND:
            return False
    return True


def _after_dot(line_tokens: list[_Token], token: _Token) -> bool:
    index = line_tokens.index(token)
    return index > 0 and line_tokens[index - 1].text == "."


_NOT_CALLEES = {"and", "or", "not", "in", "is", "if", "else", "elif", "while", "for", "return", "yield", "await",
                "assert", "del", "import", "from", "lambda", "with", "as", "print", "exec", "case", "match"}


def _comma_allowed(tokens: list[_Token], pair: _Pair, items: list[str]) -> bool:
    """May a trailing comma follow the last item without changing the meaning? In call
    arguments and list, set and dict displays yes; in a parenthesised expression or a subscript
    only when there are several items already (`(a)` -> `(a,)` would make a tuple); never after
    a comprehension's single item."""
    if len(items) == 1 and re.search(r"\bfor\b", items[0]) and _has_top_level_for(tokens, pair):
        return False
    index = tokens.index(pair.open)
    before = tokens[index - 1] if index > 0 else None
    follows_value = before is not None and (
        (before.kind == tokenize.NAME and before.text not in _NOT_CALLEES)
        or before.text in (")", "]", "}") or before.kind == tokenize.STRING)
    if pair.open.text == "(" and follows_value:
        return True  # call arguments
    if pair.open.text in "[{" and not (pair.open.text == "[" and follows_value):
        return True  # a display (not a subscript)
    return len(items) > 1


def _has_top_level_for(tokens: list[_Token], pair: _Pair) -> bool:
    assert pair.close is not None
    level = 0
    for token in tokens[tokens.index(pair.open) + 1:]:
        if token is pair.close:
            return False
        if token.kind == tokenize.OP and token.text in _OPENERS:
            level += 1
        elif token.kind == tokenize.OP and token.text in _CLOSERS:
            level -= 1
        elif level == 0 and token.kind == tokenize.NAME and token.text in ("for", "async"):
            return True
    return False


def _plain_around(tokens: list[_Token], first: int, last: int, inner: _Pair, pairs: list[_Pair]) -> bool:
    """Is the item text[first:last] only `name=`/`*`/`**`/a dotted callee before the bracket
    `inner` and trailers after it? An operator there makes black split at the operator."""
    assert inner.close is not None
    skip_until = -1
    previous: Optional[_Token] = None
    for token in tokens:
        if token.start < first or token.start >= last or token.kind in (tokenize.NL, tokenize.NEWLINE):
            continue
        if inner.open.start <= token.start <= inner.close.start or token.start < skip_until:
            previous = token
            continue
        after = token.start > inner.close.start
        if token.kind == tokenize.NAME and token.text not in _NOT_CALLEES:
            if after and (previous is None or previous.text != "."):
                return False
        elif token.kind == tokenize.OP and token.text == ".":
            pass
        elif token.kind == tokenize.OP and token.text in ("=", "*", "**") and not after:
            if token.text != "=" and previous is not None:
                return False  # `a * f(...)`: an operator, not an unpacking
        elif token.kind == tokenize.OP and token.text in ("(", "["):
            pair = next((p for p in pairs if p.open is token), None)
            if pair is None or pair.close is None:
                return False
            skip_until = pair.close.end
        else:
            return False
        previous = token
    return True


def _explode(text: str, tokens: list[_Token], chain: list[_Pair], index: int, indent: str, unit: str,
             newline: str, target: _Pair) -> Optional[str]:
    """The text of chain[index]'s brackets, broken one item per line; the brackets of the chain
    inside it broken the same way."""
    pair = chain[index]
    assert pair.close is not None
    inner = [t for t in tokens if pair.open.end <= t.start and t.end <= pair.close.start]
    items: list[tuple[int, int]] = []
    item_start = pair.open.end
    level = 0
    trailing_comma = False
    for token in inner:
        if token.kind == tokenize.COMMENT:
            return None  # a comment inside the brackets on this line: leave it to the user
        if token.kind == tokenize.NAME and token.text == "lambda" and level == 0:
            return None  # its parameters' commas are not the call's
        if token.kind == tokenize.OP and token.text in _OPENERS:
            level += 1
        elif token.kind == tokenize.OP and token.text in _CLOSERS:
            level -= 1
        elif token.kind == tokenize.OP and token.text == "," and level == 0:
            items.append((item_start, token.start))
            item_start = token.end
    rest = text[item_start:pair.close.start]
    if rest.strip():
        items.append((item_start, pair.close.start))
    else:
        trailing_comma = bool(items)
    if not items:
        return None
    inner_indent = indent + unit
    following = chain[index + 1] if index + 1 < len(chain) else None
    lines = []
    for first, last in items:
        if following is not None and first <= following.open.start < last:
            assert following.close is not None
            if not _plain_around(tokens, first, last, following, _pairs(tokens)):
                return None
            nested = _explode(text, tokens, chain, index + 1, inner_indent, unit, newline, target)
            if nested is None:
                return None
            item = (text[first:following.open.start] + nested + text[following.close.end:last]).strip(" \t")
        else:
            item = text[first:last].strip(" \t")
            if "\n" in item:
                return None
        lines.append(item)
    magic = (pair is target or len(lines) > 1 or trailing_comma) and _comma_allowed(tokens, pair, lines)
    body = newline.join(inner_indent + item + ("," if magic else "") for item in lines)
    return pair.open.text + newline + body + newline + indent + pair.close.text
