"""`devlint lsp`: the language server, in the optional extra `devlint[lsp]` (pygls, lsprotocol).

Only `devlint lsp` imports this package's server; the linter itself never imports pygls.
"""

from __future__ import annotations

from typing import Sequence

INSTALL_HINT = "`devlint lsp` needs the language server extra: pip install 'devlint[lsp]'"


def main(args: Sequence[str]) -> int:
    """Serve over stdin/stdout until the client says exit. `--stdio` is accepted (and is the
    default) because many editors pass it."""
    from devlint.runner.errors import UsageError

    unknown = [arg for arg in args if arg != "--stdio"]
    if unknown:
        raise UsageError(f"`devlint lsp` serves over stdio and takes no other arguments, not {' '.join(unknown)}")
    try:
        from devlint.frontends.lsp.server import serve
    except ImportError as error:
        raise UsageError(f"{INSTALL_HINT} ({error})") from None
    serve()
    return 0
