"""Building blocks for fixes that keep the user's layout."""

from __future__ import annotations

import libcst as cst


def _has_newline(whitespace: object) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace)


def append_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """`f(a, b)` -> `f(a, b, name=value)`, placing the new argument as a formatter would:
    on its own line in a call laid out one argument per line, keeping a trailing comma
    and any comment after the last argument."""
    new_arg = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new_arg])
    last = args[-1]
    previous_comma = args[-2].comma if len(args) > 1 else None
    separator: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace(" ")
    if isinstance(previous_comma, cst.Comma):
        # arguments that share a line take the new one on that line too
        if _has_newline(previous_comma.whitespace_after):
            separator = _bare_line_break(previous_comma.whitespace_after)
    elif _has_newline(call.whitespace_before_args):
        separator = _bare_line_break(call.whitespace_before_args)
    if isinstance(last.comma, cst.Comma):
        # trailing comma: the new argument takes the last place and keeps the trailing comma;
        # a comment after the old last argument stays on its line
        after = last.comma.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace) and isinstance(separator, cst.ParenthesizedWhitespace):
            new_arg = new_arg.with_changes(comma=last.comma.with_changes(whitespace_after=_bare_line_break(after)))
            last = last.with_changes(comma=last.comma.with_changes(
                whitespace_after=separator.with_changes(first_line=after.first_line, empty_lines=after.empty_lines)))
        else:
            new_arg = new_arg.with_changes(comma=last.comma)
            last = last.with_changes(comma=cst.Comma(whitespace_after=separator))
    else:
        moved = last.whitespace_after_arg
        if isinstance(moved, cst.ParenthesizedWhitespace) and isinstance(separator, cst.ParenthesizedWhitespace):
            # `f(a,\n  b  # note\n)`: the comment stays after `b`, the new argument goes below
            new_arg = new_arg.with_changes(whitespace_after_arg=_bare_line_break(moved))
            last = last.with_changes(
                whitespace_after_arg=cst.SimpleWhitespace(""),
                comma=cst.Comma(whitespace_after=separator.with_changes(
                    first_line=moved.first_line, empty_lines=moved.empty_lines)),
            )
        else:
            if _has_newline(moved):
                # `f(a  # note\n)`: keep the comment after the new last argument
                new_arg = new_arg.with_changes(whitespace_after_arg=moved)
                last = last.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
            last = last.with_changes(comma=cst.Comma(whitespace_after=separator))
    args[-1] = last
    args.append(new_arg)
    return call.with_changes(args=args)


def _bare_line_break(whitespace: cst.BaseParenthesizableWhitespace) -> cst.BaseParenthesizableWhitespace:
    """The same line break and indentation, without the comment or blank lines it carried."""
    if isinstance(whitespace, cst.ParenthesizedWhitespace):
        return whitespace.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return whitespace


def expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def code_of(node: cst.CSTNode) -> str:
    """The source text of a (possibly new) node, as a fix would write it."""
    text = _dotted_code(node)
    return text if text is not None else cst.Module([]).code_for_node(node)


def _dotted_code(node: cst.CSTNode) -> str | None:
    """The text of a name or a dotted name written without brackets or spaces (`Tensor`, `torch.Tensor`),
    most annotations and receivers, read off the nodes: LibCST's code generation writes exactly that, and costs
    a module and a generator state per call. None for anything else."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        dot = node.dot
        if node.lpar or type(node.attr) is not cst.Name or node.attr.lpar or type(dot) is not cst.Dot \
                or _spaced(dot.whitespace_before) or _spaced(dot.whitespace_after):
            return None
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or node.lpar:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _spaced(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return type(whitespace) is not cst.SimpleWhitespace or whitespace.value != ""


def shown_code(description: str, node: cst.CSTNode, after: str = "") -> str:
    """`description: `code``, the exact code the fix writes (`after` the node: ` = ...` for an
    assignment's target), where it fits on one line; else the description alone (a fix
    description is one line)."""
    text = code_of(node)
    return f"{description}: `{text}{after}`" if "\n" not in text else description


def short(text: str, width: int = 40) -> str:
    """Code for a one-line message: whitespace collapsed, at most `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."
