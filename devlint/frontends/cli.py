"""The `devlint` command: argument parsing, subcommands, exit codes.

Exit codes: 0 no reports (or notices only: DEV997, unless its code is selected); 1 reports (with --fix:
reports left; with --diff: a diff); 2 usage error, bad configuration, unreadable input or an internal
error. Errors a user can cause print one line, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import replace
from typing import Optional, Sequence

from devlint.contract.project import __version__
from devlint.contract.diagnostics import Applicability

EXIT_CLEAN, EXIT_REPORTS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("rule", "rules", "confirm", "clean", "lsp")
# `devlint check PATH` is `devlint PATH` (the word ruff users type).
CHECK = "check"
SUBCOMMAND_HELP = """subcommands:
  devlint check [PATH ...]   the same as `devlint [PATH ...]` (the options below apply)
  devlint rule CODE          a rule's page: what, why, example, fix, fix safety
  devlint rules              every rule, one per line
  devlint clean              remove the result cache (--cache-dir DIR)
  devlint confirm            run each rule's fixtures on this machine's devices (needs torch; --help)
  devlint lsp                the language server, over stdio (the `lsp` extra)
--config, --isolated and --preview may also come before a subcommand (`devlint --preview rule DEV003`).
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        from devlint.runner.errors import UsageError

        raise UsageError(message)


def _codes(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    from devlint.runner.parallel import MIN_FILES_FOR_WORKERS

    parser = _Parser(
        prog="devlint",
        description="Find and fix PyTorch device bugs.",
        epilog=SUBCOMMAND_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories to check (default: .)")
    parser.add_argument("--version", action="version", version=f"devlint {__version__}")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    parser.add_argument("--unsafe-fixes", action="store_true", default=None,
                        help="also apply fixes that may change behaviour (with --fix or --diff)")
    parser.add_argument("--diff", action="store_true", help="print a unified diff of the fixes; write nothing")
    parser.add_argument("--fix-only", action="store_true",
                        help="apply fixes and do not report what is left; exit 0 (implies --fix)")
    parser.add_argument("--exit-non-zero-on-fix", action="store_true",
                        help="with --fix or --fix-only: exit 1 when any file was fixed, even with no report left")
    parser.add_argument("--add-noqa", action="store_true",
                        help="append `# noqa: DEVnnn` to every reported line (merging with an existing list)")
    parser.add_argument("--line-length", type=_line_length, metavar="N",
                        help="the line limit fixes keep to (default: the project's formatter setting, else 88)")
    parser.add_argument("--target-torch", type=_target_torch, metavar="X.Y",
                        help="the torch version fixes write code for (default: the project's torch"
                        " requirement in pyproject.toml, else code that runs on every torch from 2.1)")
    parser.add_argument("--max-file-size", type=_file_size, metavar="SIZE",
                        help="files with more code than this (tables of constants aside) are only prefiltered and"
                        " reported as DEV997 (default: 3MiB; e.g. 8MB, 5000000)")
    parser.add_argument("--preview", action=argparse.BooleanOptionalAction, default=None,
                        help="run the rules and rule shapes in preview (not yet measured to the default bar;"
                        " default: off)")
    parser.add_argument("--select", type=_codes, help="codes or prefixes to check (replaces the default)")
    parser.add_argument("--extend-select", type=_codes, help="codes or prefixes to add")
    parser.add_argument("--ignore", type=_codes, help="codes or prefixes to skip")
    parser.add_argument("--per-file-ignores", help="'pattern:CODE,...' entries separated by ';'")
    parser.add_argument("--exclude", type=_codes, help="gitignore-style patterns to skip (replaces the defaults)")
    parser.add_argument("--extend-exclude", type=_codes, help="gitignore-style patterns to skip, added to the defaults")
    parser.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                        help="skip what git ignores: .gitignore files, .git/info/exclude (default: on)")
    parser.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                        help="apply exclude to files named on the command line too (for hooks; default: off)")
    parser.add_argument("--show-files", action="store_true",
                        help="print the files that would be checked and exit (with --verbose: what is skipped, and why)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="say on stderr which paths a directory walk skips, and why")
    parser.add_argument("--config", metavar="FILE", help="use this pyproject.toml or setup.cfg")
    parser.add_argument("--isolated", action="store_true", help="ignore configuration files")
    parser.add_argument("--output-format", metavar="FORMAT",
                        help="full (source lines, carets, fix; the default on a terminal), concise (one line"
                        " per report, as flake8; the default otherwise), json, json-lines, sarif, github"
                        " (workflow annotations), gitlab (Code Quality) or junit")
    parser.add_argument("--show-fixes", action=argparse.BooleanOptionalAction, default=False,
                        help="with --output-format full, show each fix as a diff (default: no, as ruff)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are reports")
    parser.add_argument("--quiet", "-q", action="store_true", help="print reports only, no summary")
    parser.add_argument("--statistics", action="store_true",
                        help="print the count of reports per code instead of the reports (JSON with --output-format"
                        " json)")
    parser.add_argument("--watch", action="store_true",
                        help="check again whenever a file changes (polling modification times); Ctrl-C stops")
    parser.add_argument("--baseline", metavar="FILE", help="report only what is not recorded in this baseline")
    parser.add_argument("--write-baseline", metavar="FILE",
                        help="record the current reports in FILE (JSON) and exit 0")
    parser.add_argument("--no-default-path", action="store_true",
                        help="with no PATH, check nothing instead of '.' (for hooks that pass file names)")
    parser.add_argument("--jobs", "-j", type=_jobs, metavar="N",
                        help="worker processes (default: the number of CPUs; 1, or fewer than"
                        f" {MIN_FILES_FOR_WORKERS} files: no workers)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")
    parser.add_argument("--cache-dir", metavar="DIR",
                        help="where to keep results (default: .devlint_cache at the project root)")
    # stdin (`devlint -`): for editors and tools that pipe a buffer (_check_stdin).
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="with `-` (or no PATH): read the source from stdin and report it as PATH, with PATH's"
                        " configuration, per-file-ignores and excludes; with --fix, write the fixed source to stdout")
    return parser


def _target_torch(value: str) -> tuple[int, int]:
    from devlint.runner.config import ConfigError, parse_target_torch_option

    try:
        return parse_target_torch_option(value, "--target-torch")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _line_length(value: str) -> int:
    from devlint.runner.config import ConfigError, parse_line_length

    try:
        return parse_line_length(value, "must be")
    except ConfigError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 320, not {value!r}") from None


def _file_size(value: str) -> int:
    from devlint.runner.config import ConfigError, parse_file_size

    try:
        return parse_file_size(value, "--max-file-size")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {value!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {jobs}")
    return jobs


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from devlint.frontends.streams import tolerate_unencodable_text
    from devlint.runner.errors import UsageError

    tolerate_unencodable_text()

    try:
        parser = build_parser()
        leading, word, rest = _split_at_command(parser, args)
        if word in SUBCOMMANDS and not os.path.exists(word):
            return _subcommand(word, _subcommand_args(parser, word, leading, rest))
        if word == CHECK and not os.path.exists(CHECK):
            args = [*leading, *rest]
        options = parser.parse_args(args)
        if options.watch:
            return _watch(options)
        return _check(options)
    except UsageError as error:
        print(f"devlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("devlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_ERROR
    except Exception:  # an internal error: say so, with enough to report it
        print("devlint: internal error; please report it with the following details:", file=sys.stderr)
        import traceback

        traceback.print_exc(limit=-3, file=sys.stderr)
        return EXIT_ERROR


def _split_at_command(parser: argparse.ArgumentParser, args: list[str]) -> tuple[list[str], Optional[str], list[str]]:
    """(the options before the first word that is no option nor an option's value, that word, what follows
    it): `--config x.toml rule DEV003` is (["--config", "x.toml"], "rule", ["DEV003"]). Without such a
    word (or after `--`), the word is None and everything is leading."""
    index = 0
    while index < len(args):
        token = args[index]
        if token == "--":
            return args, None, []
        if not token.startswith("-") or token == "-":
            return args[:index], token, args[index + 1:]
        index += 2 if _takes_separate_value(parser, token) else 1
    return args, None, []


def _takes_separate_value(parser: argparse.ArgumentParser, token: str) -> bool:
    """Whether option `token` (as typed: `--config`, `-j`, an unambiguous prefix `--conf`) takes the next word."""
    if "=" in token or (not token.startswith("--") and len(token) > 2):  # `--config=x`, `-j4`
        return False
    actions = parser._option_string_actions  # (argparse's own table of option strings)
    names = [token] if token in actions else [name for name in actions if name.startswith(token)]
    return len(names) == 1 and actions[names[0]].nargs != 0


# The options of a check run that may come before a subcommand (`devlint --preview rule DEV003`), by the
# argparse name; any other is an error. A rule's page and `devlint confirm` (which always runs the
# fixtures with preview on) are the same whatever these say; `clean` finds its cache through them;
# `lsp` takes none: the server reads each file's own configuration.
GLOBAL_OPTIONS = ("config", "isolated", "preview")
SUBCOMMAND_OPTIONS = {
    "rule": GLOBAL_OPTIONS,
    "rules": GLOBAL_OPTIONS,
    "confirm": GLOBAL_OPTIONS,
    "clean": (*GLOBAL_OPTIONS, "cache_dir"),
    "lsp": (),
}


def _subcommand_args(parser: argparse.ArgumentParser, name: str, leading: list[str], rest: list[str]) -> list[str]:
    """The subcommand's arguments: `rest`, after the options given before it that it takes (`clean`
    takes `--config`, `--isolated` and `--cache-dir`); a UsageError names any other."""
    from devlint.runner.errors import UsageError

    if not leading:
        return rest
    given, defaults = parser.parse_args(leading), parser.parse_args([])
    changed = [key for key, value in vars(given).items() if value != getattr(defaults, key)]
    refused = [key for key in changed if key not in SUBCOMMAND_OPTIONS[name]]
    if refused:
        options = ", ".join(_flag(key) for key in refused)
        taken = ", ".join(_flag(key) for key in SUBCOMMAND_OPTIONS[name])
        raise UsageError(f"{options}: not an option of `devlint {name}`"
                         + (f"; before it, only {taken} may come" if taken else ", which takes none before it"))
    if name != "clean":
        if given.config:  # a file the user names is read, whatever the subcommand makes of it
            load_settings(given, ["."])
        return rest
    forwarded = []
    for key in ("config", "cache_dir"):
        if getattr(given, key) is not None:
            forwarded += [_flag(key), getattr(given, key)]
    return [*forwarded, *(["--isolated"] if given.isolated else []), *rest]


def _flag(key: str) -> str:
    """The option as typed, from argparse's name for it: `cache_dir` is `--cache-dir`."""
    return f"--{key.replace('_', '-')}"


def _subcommand(name: str, args: list[str]) -> int:
    from devlint.runner.errors import UsageError
    from devlint.rules import all_rules, get_rule

    if name == "rules":
        if args:
            raise UsageError("`devlint rules` takes no arguments")
        for entry in all_rules():
            rule = entry.rule
            tier = "preview" if rule.preview else ""
            print(f"{rule.code}  {rule.name:<36} fix: {rule.fix_safety.value:<9} {tier:<7} {rule.summary}")
        return EXIT_CLEAN
    if name == "rule":
        if len(args) != 1:
            raise UsageError("usage: devlint rule CODE")
        from devlint.engine.codes import ENGINE_CODE_PAGES
        from devlint.frontends.report.page import rule_page

        rule = get_rule(args[0])
        if rule is None and args[0].upper() in ENGINE_CODE_PAGES:
            print(ENGINE_CODE_PAGES[args[0].upper()], end="")
            return EXIT_CLEAN
        if rule is None:
            codes = ", ".join([*(entry.rule.code for entry in all_rules()), *ENGINE_CODE_PAGES])
            raise UsageError(f"unknown rule '{args[0]}'; valid codes: {codes}")
        print(rule_page(rule), end="")
        return EXIT_CLEAN
    if name == "clean":
        return _clean(args)
    if name == "lsp":
        from devlint.frontends.lsp import main as lsp_main

        return lsp_main(args)
    if name == "confirm":
        try:
            from devlint.frontends.runtime.cli import main as confirm_main
        except ImportError:  # pragma: no cover
            raise UsageError("`devlint confirm` is not available in this installation") from None
        return confirm_main(args)
    raise UsageError(f"unknown subcommand {name}")  # pragma: no cover


def _clean(args: list[str]) -> int:
    """`devlint clean [--cache-dir DIR]`: remove the result cache."""
    from devlint.runner.cache import clean, default_directory
    from devlint.runner.errors import UsageError

    parser = _Parser(prog="devlint clean", description="Remove devlint's result cache.")
    parser.add_argument("--cache-dir", metavar="DIR", help="the cache to remove (default: the project's)")
    parser.add_argument("--config", metavar="FILE", help="the project's pyproject.toml or setup.cfg")
    parser.add_argument("--isolated", action="store_true",
                        help="ignore configuration files: the cache is the one at the current folder")
    options = parser.parse_args(args)
    directory = options.cache_dir
    if directory is None:
        options.paths = ["."]
        for key in ("select", "extend_select", "ignore", "per_file_ignores", "exclude", "extend_exclude",
                    "unsafe_fixes"):
            setattr(options, key, None)
        directory = default_directory(load_settings(options, ["."]))
    try:
        removed = clean(directory)
    except ValueError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"{directory}: cannot remove: {error.strerror or error}") from None
    print(f"removed {directory}" if removed else f"no cache at {directory}")
    return EXIT_CLEAN


def load_settings(args: argparse.Namespace, paths: list[str]):  # type: ignore[no-untyped-def]
    from devlint.runner.config import find_config, parse_per_file_ignores, settings_from, validate_codes
    from devlint.runner.errors import UsageError
    from devlint.rules import rule_codes
    from devlint.engine.settings import Settings

    known = rule_codes()
    settings = Settings(root=os.getcwd())
    if args.config:
        if not os.path.isfile(args.config):
            raise UsageError(f"{args.config}: configuration file not found")
        found = find_config(args.config)
        if found is None or os.path.abspath(found[0]) != os.path.abspath(args.config):
            raise UsageError(f"{args.config}: has no [tool.devlint] or [devlint] section")
    elif args.isolated:
        found = None
    else:
        found = find_config(paths[0])
    if found is not None:
        config_path, raw = found
        settings = settings_from(raw, config_path, os.path.dirname(os.path.abspath(config_path)), known)
    changes = {}
    for key in ("select", "extend_select", "ignore"):
        value = getattr(args, key)
        if value is not None:
            codes = validate_codes(value, known, f"--{key.replace('_', '-')}")
            if key == "extend_select":
                codes = (*settings.extend_select, *codes)
            elif key == "ignore":
                codes = (*settings.ignore, *codes)
            changes[key] = codes
    if args.per_file_ignores:
        changes["per_file_ignores"] = (*settings.per_file_ignores,
                                       *parse_per_file_ignores(args.per_file_ignores, "--per-file-ignores", known))
    if args.exclude is not None:
        changes["exclude"] = tuple(args.exclude)
    if args.extend_exclude:
        changes["extend_exclude"] = (*settings.extend_exclude, *args.extend_exclude)
    if args.unsafe_fixes:
        changes["unsafe_fixes"] = True
    for key in ("respect_gitignore", "force_exclude", "preview"):
        if getattr(args, key, None) is not None:
            changes[key] = getattr(args, key)
    if getattr(args, "line_length", None) is not None:
        changes["line_length"] = args.line_length
    if getattr(args, "target_torch", None) is not None:
        changes["target_torch"] = args.target_torch
    if getattr(args, "max_file_size", None) is not None:
        changes["max_file_size"] = args.max_file_size
    return replace(settings, **changes)


def output_format(requested: Optional[str]) -> str:
    """The format asked for (`text` is `concise`'s old name); by default `full` on a terminal, as
    ruff, and `concise` when stdout is a pipe or a file (what flake8-style tools parse)."""
    from devlint.runner.errors import UsageError
    from devlint.frontends.report import ALIASES, FORMATS

    if requested is None:
        return "full" if sys.stdout.isatty() else "concise"
    name = ALIASES.get(requested, requested)
    if name not in FORMATS:
        raise UsageError(f"unknown output format '{requested}'; choose from {', '.join(FORMATS)}")
    return name


def _check(args: argparse.Namespace) -> int:
    from devlint.runner.discovery import discover
    from devlint.runner.errors import UsageError
    from devlint.frontends.baseline import Baseline, write_baseline
    from devlint.frontends.report import EDIT_FORMATS, FORMATS, STREAMED_FORMATS, Context
    from devlint.frontends.report.paths import repository_root
    from devlint.engine.settings import INTERNAL_ERROR_CODE
    from devlint.runner.runner import Mode, run

    if args.paths == ["-"] or (args.stdin_filename is not None and not args.paths):
        return _check_stdin(args)
    if "-" in args.paths or args.stdin_filename is not None:
        raise UsageError("`-` (stdin) and --stdin-filename cannot be combined with other paths")
    paths = args.paths or ([] if args.no_default_path else ["."])
    format_name = output_format(args.output_format)
    args.fix = args.fix or args.fix_only
    if args.write_baseline and (args.fix or args.diff or args.baseline):
        raise UsageError("--write-baseline records reports; it cannot be combined with --fix, --diff or --baseline")
    if args.add_noqa and (args.fix or args.diff or args.write_baseline):
        raise UsageError("--add-noqa cannot be combined with --fix, --fix-only, --diff or --write-baseline")
    baseline = Baseline(args.baseline) if args.baseline else None  # a bad file fails before the run
    settings = load_settings(args, paths or ["."])
    skipped: list = []
    files = sorted(discover(paths, settings, skipped))
    if args.verbose:
        for entry in skipped:
            print(f"devlint: skipped {entry.path}: {entry.reason}", file=sys.stderr)
    if paths and not files:  # as ruff: say so, rather than a bare "0 files checked"
        print(f"devlint: warning: no Python files found under {', '.join(paths)}", file=sys.stderr)
    if args.show_files:
        sys.stdout.write("".join(f"{path}\n" for path in files))
        return EXIT_CLEAN
    show_fixes = format_name == "full" and args.show_fixes
    mode = Mode(fix=args.fix and not args.diff, diff=args.diff, unsafe_fixes=settings.unsafe_fixes,
                with_edits=format_name in EDIT_FORMATS or show_fixes)
    cache = None
    if not (args.no_cache or mode.fix or mode.diff):  # only check results are cached
        from devlint.runner.cache import Cache, default_directory

        cache = Cache(args.cache_dir or default_directory(settings))
    from devlint.runner.parallel import default_jobs

    jobs = args.jobs or default_jobs()
    # Line-oriented output is written file by file as outcomes arrive (in path order), so memory
    # does not grow with the number of reports; the others need every report before they print.
    render = FORMATS[format_name]
    streaming = (format_name in STREAMED_FORMATS and not (args.diff or args.write_baseline or baseline
                                                          or args.fix_only or args.add_noqa or args.statistics))
    from devlint.frontends.streams import Utf8Output, output_for

    out = output_for(format_name, sys.stdout)
    colour = False
    if format_name in ("full", "concise"):
        from devlint.frontends.report.colour import colour_wanted

        colour = colour_wanted(sys.stdout)
    context = Context(unsafe_fixes=settings.unsafe_fixes, show_fixes=show_fixes, colour=colour,
                      root=repository_root(settings.root))
    diagnostics = []
    counts: Counter = Counter()
    files_with_reports = 0
    errors: list[str] = []
    unchecked: list[str] = []  # the files behind `errors`, named in the summary
    internal_errors = 0  # DEV998: devlint failed on a file (a rule's reports are lost): exit 2, as for errors
    fixed: dict[str, int] = {}
    diffs: list[str] = []
    for outcome in run(files, settings, mode, jobs, cache):
        if streaming:
            file_reports = sorted(outcome.diagnostics, key=lambda d: d.sort_key)
            out.write(render(file_reports, context))
            counts.update(tally(file_reports))
            files_with_reports += bool(file_reports)
        else:
            diagnostics.extend(outcome.diagnostics)
        if outcome.error:
            errors.append(outcome.error)
            unchecked.append(outcome.path)
        internal_errors += sum(d.code == INTERNAL_ERROR_CODE for d in outcome.diagnostics)
        for warning in outcome.warnings:
            print(f"devlint: warning: {warning}", file=sys.stderr)
        for code, count in outcome.fixed.items():
            fixed[code] = fixed.get(code, 0) + count
        if outcome.diff:
            diffs.append(outcome.diff)
    diagnostics.sort(key=lambda d: d.sort_key)
    if args.write_baseline:
        count = write_baseline(args.write_baseline, diagnostics)
        for error in errors:
            print(f"devlint: error: {error}", file=sys.stderr)
        if not args.quiet:
            print(f"Wrote {count} baseline entr{'y' if count == 1 else 'ies'} ({len(diagnostics)} reports)"
                  f" to {args.write_baseline}.", file=sys.stderr)
        return EXIT_ERROR if errors else EXIT_CLEAN
    baselined = 0
    if baseline is not None:
        new = baseline.new(diagnostics)
        baselined, diagnostics = len(diagnostics) - len(new), new
    if args.add_noqa:
        return _add_noqa(diagnostics, errors, args.quiet)
    if not streaming:
        counts = tally(diagnostics)
        files_with_reports = len({d.path for d in diagnostics})
    if args.diff:
        Utf8Output(sys.stdout).write("".join(diffs))
    elif args.fix_only:  # what is left is not reported, and does not fail the run (ruff's --fix-only)
        counts = Counter()
    elif args.statistics:  # the counts instead of the reports, as ruff
        _print_statistics(counts, settings.unsafe_fixes, out, as_json=format_name == "json")
    elif not streaming:
        out.write(render(diagnostics, context))
    for error in errors:
        print(f"devlint: error: {error}", file=sys.stderr)
    fixes = sum(fixed.values())
    if args.fix_only:
        if fixes and not args.quiet:  # ruff's --fix-only summary: nothing when nothing was fixed
            verb = "Would fix" if args.diff else "Fixed"
            print(f"{verb} {fixes} report{'s' if fixes != 1 else ''}.", file=sys.stderr)
    elif not args.quiet:
        print(_summary(counts, fixed, len(files), mode, len(errors), baselined, files_with_reports, unchecked),
              file=sys.stderr)
    if errors or internal_errors:
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if args.diff:
        return EXIT_REPORTS if diffs else EXIT_CLEAN  # ruff: a diff fails the run, --fix-only or not
    if args.exit_non_zero_on_fix and fixes:
        return EXIT_REPORTS
    return EXIT_REPORTS if any(settings.fails_on(code) for code, _ in +counts) else EXIT_CLEAN


def _add_noqa(diagnostics, errors: list[str], quiet: bool) -> int:  # type: ignore[no-untyped-def]
    """`--add-noqa`: write the comments, say how many (as ruff: "Added N noqa directives.")."""
    from devlint.frontends.add_noqa import write_noqa

    added, failures, warnings = write_noqa(diagnostics)
    errors.extend(failures)
    for warning in warnings:
        print(f"devlint: warning: {warning}", file=sys.stderr)
    for error in errors:
        print(f"devlint: error: {error}", file=sys.stderr)
    if not quiet:
        print(f"Added {added} noqa directive{'s' if added != 1 else ''}.", file=sys.stderr)
    return EXIT_ERROR if errors else EXIT_CLEAN


def _check_stdin(args: argparse.Namespace) -> int:
    """`devlint [--stdin-filename PATH] -`: check (or fix, or diff) the source on stdin, as ruff does.

    With --fix the fixed source goes to stdout (the input unchanged when it cannot be fixed, so an
    editor piping its buffer never loses it) and the reports left go to stderr. An excluded PATH is
    passed through unchecked: editors pipe every buffer, whatever the project excludes."""
    from devlint.engine.settings import INTERNAL_ERROR_CODE
    from devlint.sources import document
    from devlint.runner.discovery import is_excluded
    from devlint.sources.files import SourceError, decode_source
    from devlint.frontends.report import FORMATS, Context
    from devlint.frontends.report.paths import repository_root
    from devlint.frontends.streams import Utf8Output, output_for
    from devlint.runner.runner import Mode, split_lines, unified_diff

    format_name = output_format(args.output_format)
    path = args.stdin_filename or "-"
    settings = load_settings(args, [path if args.stdin_filename else "."])
    raw = sys.stdin.buffer.read()
    mode = Mode(fix=args.fix and not args.diff, diff=args.diff, unsafe_fixes=settings.unsafe_fixes)
    try:
        file = decode_source(path, raw) if not path.endswith(".ipynb") else None
        text, encoding = (file.text, file.encoding) if file else (raw.decode("utf-8-sig"), "utf-8")
        source = document.from_text(path, text)
    except (SourceError, UnicodeDecodeError) as error:
        if mode.fix:
            sys.stdout.buffer.write(raw)
        print(f"devlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    new_text, fixed = text, {}
    if args.stdin_filename and is_excluded(path, settings):
        diagnostics = []
    elif mode.fix or mode.diff:
        result = document.fix(source, settings, unsafe=settings.unsafe_fixes)
        diagnostics = result.result.remaining
        if not result.result.unparsable:  # (a fix that does not parse is a devlint bug: nothing changes)
            new_text, fixed = result.text, result.result.fixed
    else:
        diagnostics = document.check(source, settings)
    if mode.fix:
        sys.stdout.buffer.write(new_text.encode(encoding))
        sys.stdout.flush()
        sys.stderr.write(FORMATS["concise"](diagnostics, Context(unsafe_fixes=settings.unsafe_fixes)))
    elif mode.diff:
        Utf8Output(sys.stdout).write(unified_diff(path, split_lines(text), split_lines(new_text)))
    else:
        context = Context(unsafe_fixes=settings.unsafe_fixes, root=repository_root(settings.root))
        output_for(format_name, sys.stdout).write(FORMATS[format_name](diagnostics, context))
    if not args.quiet:
        print(_summary(tally(diagnostics), fixed, 1, mode, files_with_reports=int(bool(diagnostics))), file=sys.stderr)
    if any(d.code == INTERNAL_ERROR_CODE for d in diagnostics):
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    if mode.diff:
        return EXIT_REPORTS if new_text != text else EXIT_CLEAN
    return EXIT_REPORTS if any(settings.fails_on(d.code) for d in diagnostics) else EXIT_CLEAN


Tally = "Counter[tuple[str, Optional[Applicability]]]"


def tally(diagnostics) -> "Counter[tuple[str, Optional[Applicability]]]":  # type: ignore[no-untyped-def]
    """What the summary and `--statistics` need of the reports: (code, fix applicability) counts."""
    return Counter((d.code, d.fix.applicability if d.fix is not None else None) for d in diagnostics)


def _print_statistics(counts: Tally, unsafe_fixes: bool, out,  # type: ignore[no-untyped-def]
                      as_json: bool = False) -> None:
    """One line per code: count, code, `[*]` when fixable, the rule's name; with `as_json`, ruff's
    statistics objects (code, name, count, fixable)."""
    import json

    from devlint.frontends.report.meta import rule_name

    per_code: dict[str, list[int]] = {}
    for (code, applicability), count in counts.items():
        entry = per_code.setdefault(code, [0, 0])
        entry[0] += count
        if applicability is Applicability.SAFE or (applicability is not None and unsafe_fixes):
            entry[1] += count
    if as_json:
        rows = [{"code": code, "name": rule_name(code), "count": total, "fixable": bool(fixable)}
                for code, (total, fixable) in sorted(per_code.items())]
        out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return
    for code in sorted(per_code):
        total, fixable = per_code[code]
        mark = "[*]" if fixable else "   "
        out.write(f"{total:>6}  {code}  {mark} {rule_name(code)}\n")


def _summary(counts: Tally, fixed: dict[str, int], file_count: int, mode,  # type: ignore[no-untyped-def]
             error_count: int = 0, baselined: int = 0, files_with_reports: int = 0,
             unchecked: Sequence[str] = ()) -> str:
    """The line on stderr after the reports. A check run counts as checked only the files it could read:
    with files it could not, it never says "All checks passed" (the errors are printed above it)."""
    if not (mode.fix or mode.diff):
        file_count -= error_count
    text = _counts(counts, fixed, file_count, mode, error_count, files_with_reports)
    if baselined:
        text = f"{text[:-1]}; {baselined} more in the baseline."
    if error_count:
        named = ", ".join(unchecked[:3]) + (f" and {len(unchecked) - 3} more" if len(unchecked) > 3 else "")
        lead = f"{text[:-1]}; {error_count}" if text.endswith(" checked.") else f"{text} {_plural(error_count, 'file')}"
        text = f"{lead} could not be checked (see above)" + (f": {named}." if named else ".")
    return text


def _counts(counts: Tally, fixed: dict[str, int], file_count: int, mode,  # type: ignore[no-untyped-def]
            error_count: int, files_with_reports: int) -> str:
    n = sum(counts.values())
    files = _plural(file_count, "file")
    if mode.fix or mode.diff:
        done = sum(fixed.values())
        verb = "would be fixed" if mode.diff else "fixed"
        return f"{done} {verb}, {n} remaining ({files} checked)."
    if not n:
        return f"{files} checked." if error_count else f"All checks passed ({files} checked)."
    safe = sum(count for (_, applicability), count in counts.items() if applicability is Applicability.SAFE)
    unsafe = sum(count for (_, applicability), count in counts.items() if applicability is Applicability.UNSAFE)
    parts = [f"Found {_plural(n, 'report')} in {_plural(files_with_reports, 'file')} ({file_count} checked)"]
    if safe and unsafe:
        parts.append(f"{safe} fixable with --fix, {unsafe} more with --unsafe-fixes")
    elif safe or unsafe:  # a hint only where it has something to offer
        parts.append(f"{safe} fixable with --fix" if safe else f"{unsafe} fixable with --unsafe-fixes")
    return "; ".join(parts) + "."


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def _watch(args: argparse.Namespace) -> int:
    """`--watch`: check, then check again each time a file to check (or the set of them) changes,
    until Ctrl-C (exit 0). Modification times are polled: no dependency, any file system."""
    import time

    from devlint.runner.discovery import discover
    from devlint.runner.errors import UsageError

    if args.fix or args.fix_only or args.diff or args.add_noqa or args.write_baseline or args.show_files:
        raise UsageError("--watch checks; it cannot be combined with --fix, --fix-only, --diff, --add-noqa,"
                         " --write-baseline or --show-files")
    if args.paths == ["-"] or args.stdin_filename is not None:
        raise UsageError("--watch cannot read stdin")
    paths = args.paths or ["."]
    settings = load_settings(args, paths)

    def state() -> dict[str, int]:
        found: dict[str, int] = {}
        for path in discover(paths, settings):
            try:
                found[path] = os.stat(path).st_mtime_ns
            except OSError:
                pass
        return found

    try:
        seen = state()
        _check(args)
        sys.stdout.flush()
        print("devlint: watching for changes (Ctrl-C stops)", file=sys.stderr, flush=True)
        while True:
            time.sleep(WATCH_INTERVAL_S)
            now = state()
            if now != seen:
                seen = now
                print("devlint: files changed; checking again", file=sys.stderr, flush=True)
                _check(args)
                sys.stdout.flush()
                print("devlint: watching for changes (Ctrl-C stops)", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        return EXIT_CLEAN


WATCH_INTERVAL_S = 0.5
