"""`[tool.devlint]` in pyproject.toml or `[devlint]` in setup.cfg, found by walking up."""

from __future__ import annotations

import difflib
import os
from typing import Any, Optional

from devlint.engine.line_length import MAX_LINE_LENGTH, is_line_length
from devlint.engine.settings import ENGINE_CODES, Settings
from devlint.engine.target_torch import TorchVersion, parse_target_torch
from devlint.engine.config_files import load_ini, load_toml
from devlint.runner.errors import UsageError

KEYS = ("select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude", "unsafe-fixes",
        "line-length", "respect-gitignore", "force-exclude", "target-torch", "preview", "max-file-size")
_SWITCHES = ("unsafe-fixes", "respect-gitignore", "force-exclude", "preview")


class ConfigError(UsageError):
    pass


def find_config(start: str) -> Optional[tuple[str, dict[str, Any]]]:
    """The nearest config with a devlint section, walking up from `start`: (path, raw options)."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        pyproject = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(pyproject):
            try:
                data = load_toml(pyproject)
            except ValueError as error:
                raise ConfigError(f"{pyproject}: not valid TOML: {error}") from None
            except OSError as error:
                raise ConfigError(f"{pyproject}: cannot read: {error.strerror}") from None
            section = data.get("tool", {}).get("devlint")
            if section is not None:
                if not isinstance(section, dict):
                    raise ConfigError(f"{pyproject}: [tool.devlint] must be a table")
                return pyproject, section
        setup_cfg = os.path.join(directory, "setup.cfg")
        if os.path.isfile(setup_cfg):
            try:
                parser = load_ini(setup_cfg)
            except ValueError as error:
                raise ConfigError(f"{setup_cfg}: cannot parse: {error}") from None
            if parser.has_section("devlint"):
                return setup_cfg, _from_ini(dict(parser.items("devlint")))
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _from_ini(options: dict[str, str]) -> dict[str, Any]:
    """setup.cfg's strings as the TOML types (`settings_from` checks them)."""
    result: dict[str, Any] = {}
    for key, value in options.items():
        if key == "per-file-ignores":
            result[key] = value
        elif key in _SWITCHES:
            word = value.strip().lower()
            result[key] = _INI_BOOLEANS.get(word, value)
        elif key == "line-length":
            result[key] = int(value) if value.strip().isdigit() else value
        elif key in ("target-torch", "max-file-size"):
            result[key] = value.strip()
        else:
            result[key] = [item.strip() for item in value.replace("\n", ",").split(",") if item.strip()]
    return result


# What configparser's getboolean reads as a boolean.
_INI_BOOLEANS = {"true": True, "yes": True, "on": True, "1": True,
                 "false": False, "no": False, "off": False, "0": False}


def key_line(source: str, key: str) -> Optional[int]:
    """The line of `key` in the devlint table of the file `source` (None when it cannot be found:
    a dotted or inline-table spelling). TOML and INI parsers give no positions, so the text is read:
    the key's first assignment after the `[tool.devlint]` / `[devlint]` header, before the next header."""
    try:
        with open(source, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    header = ("[tool.devlint]",) if source.endswith(".toml") else ("[devlint]",)
    inside = False
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped.split("#", 1)[0].replace(" ", "").replace('"', "") in header
            continue
        if inside:
            name = stripped.split("=", 1)[0].split(":", 1)[0].strip().strip("\"'")
            if name == key and ("=" in stripped or ":" in stripped):
                return number
    return None


def settings_from(raw: dict[str, Any], source: str, root: str, known_codes: tuple[str, ...]) -> Settings:
    """The settings of a devlint table read from the file `source`. Keys are checked as ruff checks
    its own: an unknown key (`line_length` for `line-length`) or a value of the wrong type
    (`unsafe-fixes = "yes"`) is a ConfigError naming the file and the key's line."""

    def where(key: str) -> str:
        line = key_line(source, key)
        return f"{source}:{line}" if line is not None else source

    for key in raw:
        if key not in KEYS:
            hint = difflib.get_close_matches(key.replace("_", "-"), KEYS, n=1)
            suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
            raise ConfigError(f"{where(key)}: unknown key '{key}' in devlint configuration{suggestion};"
                              f" valid keys: {', '.join(KEYS)}")
    options = raw
    kwargs: dict[str, Any] = {"root": root}
    for key in ("select", "ignore", "extend-select"):
        if key in options:
            kwargs[key.replace("-", "_")] = validate_codes(_string_list(options[key], key, where(key)), known_codes,
                                                           f"{where(key)}: '{key}'")
    for key in ("exclude", "extend-exclude"):
        if key in options:
            kwargs[key.replace("-", "_")] = tuple(_string_list(options[key], key, where(key)))
    if "per-file-ignores" in options:
        kwargs["per_file_ignores"] = parse_per_file_ignores(options["per-file-ignores"], where("per-file-ignores"),
                                                            known_codes, from_toml=source.endswith(".toml"))
    for key in _SWITCHES:
        if key in options:
            value = options[key]
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)}: '{key}' must be true or false,"
                                  f" not {value!r}{_unquote(value, source)}")
            kwargs[key.replace("-", "_")] = value
    if "line-length" in options:
        value = options["line-length"]
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{where('line-length')}: 'line-length' must be a whole number from 1 to"
                              f" {MAX_LINE_LENGTH}, not {value!r}{_unquote(value, source)}")
        kwargs["line_length"] = parse_line_length(value, f"{where('line-length')}: 'line-length'")
    if "target-torch" in options:
        kwargs["target_torch"] = parse_target_torch_option(options["target-torch"],
                                                           f"{where('target-torch')}: 'target-torch'")
    if "max-file-size" in options:
        kwargs["max_file_size"] = parse_file_size(options["max-file-size"],
                                                  f"{where('max-file-size')}: 'max-file-size'")
    return Settings(**kwargs)


def _unquote(value: Any, source: str) -> str:
    """A hint for a TOML value written as a string where TOML has a type of its own."""
    return " (TOML writes it without quotes)" if source.endswith(".toml") and isinstance(value, str) else ""


def parse_target_torch_option(value: Any, where: str) -> TorchVersion:
    """A torch version as a string, MAJOR.MINOR (`"2.6"`); a TOML number is refused (2.10 would read 2.1)."""
    version = parse_target_torch(value) if isinstance(value, str) else None
    if version is None:
        raise ConfigError(f'{where} must be a torch version as a string, MAJOR.MINOR ("2.6"), not {value!r}')
    return version


_SIZE_UNITS = {"": 1, "B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "KIB": 1024, "MIB": 1024 ** 2,
               "GIB": 1024 ** 3}


def parse_file_size(value: Any, where: str) -> int:
    """A size in characters: a whole number (`3000000`), or a string with a unit (`"8MB"`, `"512 KiB"`)."""
    size: Optional[float] = None
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    elif isinstance(value, str):
        text = value.strip().upper()
        digits = text.rstrip("BKMGI ")
        unit = text[len(digits):].strip()
        try:
            size = float(digits) * _SIZE_UNITS[unit] if digits else None
        except (ValueError, KeyError):
            size = None
    if size is None or size < 1:
        raise ConfigError(f'{where} must be a size in bytes (3000000) or with a unit ("8MB", "512KiB"),'
                          f" not {value!r}")
    return int(size)


def parse_line_length(value: Any, where: str) -> int:
    """A line limit: a whole number from 1 to 320 (ruff's bounds)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not is_line_length(value):
        raise ConfigError(f"{where} must be a whole number from 1 to {MAX_LINE_LENGTH}, not {value!r}")
    return value


def _string_list(value: Any, key: str, source: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{source}: '{key}' must be a list of strings, not {value!r}")
    return [item.strip() for item in value if item.strip()]


def validate_codes(codes: list[str], known_codes: tuple[str, ...], where: str) -> tuple[str, ...]:
    """Each entry must be a code or a prefix of one (`DEV`, `DEV0`, `DEV001`), or `ALL`."""
    valid = (*known_codes, *ENGINE_CODES)
    result = []
    for code in codes:
        upper = code.strip().upper()
        if upper != "ALL" and not any(known.startswith(upper) for known in valid):
            raise ConfigError(f"{where}: unknown code or prefix '{code}'; valid codes: {', '.join(valid)}")
        result.append(upper)
    return tuple(result)


def parse_per_file_ignores(value: Any, source: str, known_codes: tuple[str, ...],
                           from_toml: bool = False) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """TOML: {"tests/*" = ["DEV003"]}; setup.cfg / CLI: "tests/*:DEV003,DEV004" lines."""
    pairs: list[tuple[str, list[str]]] = []
    if from_toml and not isinstance(value, dict):
        raise ConfigError(f"{source}: 'per-file-ignores' must be a table of pattern = [codes], not {value!r}")
    if isinstance(value, dict):
        for pattern, codes in value.items():
            pairs.append((pattern, _string_list(codes, "per-file-ignores", source)))
    elif isinstance(value, str):
        for line in value.replace(";", "\n").splitlines():
            line = line.strip()
            if not line:
                continue
            pattern, sep, codes = line.rpartition(":")
            if not sep or not pattern.strip():
                raise ConfigError(f"{source}: 'per-file-ignores' entry {line!r} must look like 'pattern:CODE,...'")
            pairs.append((pattern.strip(), [c for c in codes.replace(" ", ",").split(",") if c.strip()]))
    else:
        raise ConfigError(f"{source}: 'per-file-ignores' must be a table of pattern = [codes]")
    return tuple((pattern, validate_codes(codes, known_codes, f"{source}: 'per-file-ignores'"))
                 for pattern, codes in pairs)
