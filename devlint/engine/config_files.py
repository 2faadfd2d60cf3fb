"""Reading configuration files (`pyproject.toml`, `ruff.toml`, `setup.cfg`, `tox.ini`), with their parsers
imported on first use: a run whose folders hold none never pays for them (tests/test_startup.py)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:  # pragma: no cover
    import configparser


def load_toml(path: str) -> dict[str, Any]:
    """The TOML document in `path`. OSError where it cannot be read; ValueError where it is not TOML (the
    parser's TOMLDecodeError, or a byte that is not UTF-8)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    with open(path, "rb") as handle:
        return tomllib.load(handle)


def load_ini(path: Optional[str] = None, *, text: Optional[str] = None) -> "configparser.ConfigParser":
    """The INI document in `path` (UTF-8; a file that cannot be read is an empty document, as configparser has
    it), or in `text`, read without interpolation. ValueError where it is not INI or not UTF-8."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        if text is not None:
            parser.read_string(text)
        elif path is not None:
            parser.read(path, encoding="utf-8")
    except configparser.Error as error:
        raise ValueError(str(error)) from None
    return parser
