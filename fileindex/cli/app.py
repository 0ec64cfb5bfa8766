"""The ``fileindex`` command line (``main``). Each subcommand is a module of ``fileindex.cli``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
adding a subcommand means adding a module and listing it in ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import warnings

from fileindex import __version__
from fileindex.cli.exits import EXIT_CODES, EXIT_MALFORMED, EXIT_USAGE
from fileindex.cli.interrupts import run_interruptible
from fileindex.cli.unimported import unimported
from fileindex.errors import UsageError

COMMANDS = ("inspect", "explain", "check", "query", "build", "verify", "table", "read", "rewrite", "conformance",
            "kit", "spark", "demo", "samples")


class Parser(argparse.ArgumentParser):
    """argparse taking whole option names only (``--wher`` is not ``--where``: the unknown-option path answers it
    with the one meant), and answering a misspelt choice (a subcommand, a ``--mode``) with the one meant too.
    Subparsers are made of the same class."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})

    def _check_value(self, action: argparse.Action, value) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as err:
            from fileindex.tokens import closest_name

            meant = isinstance(value, str) and closest_name(value, [str(c) for c in action.choices or ()])
            if not meant:
                raise
            raise argparse.ArgumentError(action, f"{err.message} (did you mean {meant}?)") from None

    def _get_formatter(self) -> argparse.HelpFormatter:
        # sized as argparse sizes it, without importing shutil for it (argparse makes one per argument declared)
        return self.formatter_class(prog=self.prog, width=_terminal_columns() - 2)  # type: ignore[call-arg]

    def _parse_known_args(self, arg_strings, *rest, **kwargs):
        self._given = list(arg_strings)  # (for error: what this parser was given)
        return super()._parse_known_args(arg_strings, *rest, **kwargs)

    def error(self, message: str):
        """One line and exit 2: ``fileindex read: error: ...``, then the option or choice likely meant, else where
        the usage is (argparse prints the whole usage block first). A required option given by a prefix (``--wh``
        for ``--where``) is refused as the unknown option it is, with the one meant, rather than as the required
        option missing."""
        unknown = [word for word in getattr(self, "_given", ()) if word.startswith("--")
                   and word.partition("=")[0] not in self._option_string_actions]
        if message.startswith("the following arguments are required") and unknown:
            message = unknown_options(self, unknown)
        elif message.startswith("the following arguments are required"):
            message += _subcommands_missing(self, message)
        hint = "" if message.endswith("?)") else f" (see {self.prog} --help)"
        self.exit(2, f"{self.prog}: error: {message}{hint}\n")


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (``COLUMNS``, else the terminal's, else 80), without shutil (and
    the compression modules it imports) at every command's start."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def _subcommands_missing(parser: argparse.ArgumentParser, message: str) -> str:
    """The subcommands a parser whose subcommand is missing takes (its usage shows only a metavar)."""
    missing = next((action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
                    and action.required), None)
    return f" (one of: {', '.join(missing.choices)})" if missing is not None and str(missing.metavar) in message else ""


def unknown_options(parser: argparse.ArgumentParser, unknown: list[str]) -> str:
    """argparse's message for ``unknown`` arguments, with the option of ``parser`` likely meant by the first
    unknown option: the one it is a prefix of, else the one spelt closest."""
    from fileindex.tokens import closest_name

    message = f"unrecognized arguments: {' '.join(unknown)}"
    option = next((word[2:].partition("=")[0] for word in unknown if word.startswith("--")), None)
    names = [o[2:] for o in parser._option_string_actions if o.startswith("--")]
    extending = [name for name in names if option and name.startswith(option)]
    meant = extending[0] if len(extending) == 1 else option and closest_name(option, names)
    return f"{message} (did you mean --{meant}?)" if meant else message


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, that subcommand's parser alone (what parsing a command line naming
    ``command`` needs): each other subcommand's would be a parser made for nothing, its help action and argument
    groups looking up their titles' translations, four failed ``stat`` calls each where none is installed (#54)."""
    parser = Parser(
        prog="fileindex",
        description="Inspect, check and evaluate Apache Paimon file-index files.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if command is not None and name != command:
            continue
        module = importlib.import_module(f"fileindex.cli.{name}")
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def reaching_stores(args: argparse.Namespace) -> contextlib.AbstractContextManager | int:
    """The command's ``--storage-option`` pairs, for every table it opens by URI (nothing loaded without any);
    the exit code of a malformed one."""
    if not getattr(args, "storage_options", None):
        return contextlib.nullcontext()
    from fileindex.storage_args import storage_options
    from fileindex.io.reach import reaching
    from fileindex.io.store_options import check_option_keys

    try:
        options = storage_options(args) or {}
        check_option_keys(options, given="--storage-option")
        return reaching(options)
    except UsageError as err:
        print(f"fileindex {args.command}: {err}", file=sys.stderr)
        return EXIT_USAGE


def warn_unreached(args: argparse.Namespace) -> None:
    """``--storage-option`` given to a command that reached no store (a table on local disk): one line on stderr
    naming the keys (never the values), not silence."""
    from fileindex.io.reach import options_ignored
    from fileindex.storage_args import storage_options

    command = " ".join(filter(None, (args.command, getattr(args, "spark_command", None))))
    ignored = options_ignored("--storage-option", storage_options(args) or {},
                              "nothing this command read or wrote is on an object store")
    print(f"fileindex {command}: warning: {ignored}", file=sys.stderr)


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"fileindex: warning: {message}\n"


@contextlib.contextmanager
def each_warning_once():
    """Show a warning once per command: the same words from another call site (a table's own option is read by
    every snapshot, plan and file that a command opens) would only repeat it."""
    shown: set[tuple[str, type]] = set()
    show = warnings.showwarning

    def show_once(message, category, *where, **named) -> None:
        if (str(message), category) not in shown:
            shown.add((str(message), category))
            show(message, category, *where, **named)

    warnings.showwarning = show_once
    try:
        yield
    finally:
        warnings.showwarning = show


# commands that leave nothing for the interpreter's exit to do (no child process, no thread that is not a daemon,
# no temporary file, every output closed): their own process ends without the interpreter's teardown
ENDS_WITHOUT_TEARDOWN = frozenset({"read", "table", "query", "inspect"})


def main(argv: list[str] | None = None) -> int:
    """The command line; Ctrl-C is one line from here on, also while the commands' modules load."""
    own = argv is None and _named_command(sys.argv[1:]) in ENDS_WITHOUT_TEARDOWN
    if own:
        _collect_less_often()
    code = run_interruptible(lambda: _run(argv), end_started=True)
    if own:
        _exit_without_teardown(code)
    return code


YOUNG_COLLECTION_EVERY = 50_000  # allocations of objects that may form cycles (Python's default: 700)


def _collect_less_often() -> None:
    """A cold command makes a hundred thousand long-lived objects (its modules' classes and functions) and few
    cycles: at Python's default threshold the collector walks them again and again (about 2.5% of a cold
    ``read``'s instructions, #54). Cyclic garbage still goes, a young collection per 50,000 allocations."""
    import gc

    gc.set_threshold(max(YOUNG_COLLECTION_EVERY, gc.get_threshold()[0]), *gc.get_threshold()[1:])


def _exit_without_teardown(code: int) -> None:
    """End the process with ``code`` after the exit handlers, skipping the interpreter's teardown: freeing every
    module and object, a last garbage collection, and pyarrow's static destructors (about 5% of a cold ``read``'s
    instructions, #54). Returns (the interpreter then exits as usual) where the output does not flush: Python's
    own exit reports that."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # (a closed or broken stream: as the interpreter's exit reports it)
        return
    import atexit

    atexit._run_exitfuncs()  # (the ORC helper's close; pyarrow's S3 finalizer, where a command opened a store)
    try:
        sys.stdout.flush()  # (what those printed)
        sys.stderr.flush()
    finally:
        os._exit(code)


def _named_command(argv: list[str]) -> str | None:
    """The subcommand a command line names first (None: none, or an option before it, as in ``--help``)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def _refuse_unknown(parser: argparse.ArgumentParser, args: argparse.Namespace, unknown: list[str]) -> None:
    """Exit 2 with the (sub)command's own usage (not the top-level one argparse would print: ``fileindex spark
    scan``'s for its option) and, for an option it lacks, the one likely meant."""
    sub = parser
    while chosen := next((a.choices[getattr(args, a.dest)] for a in sub._actions
                          if isinstance(a, argparse._SubParsersAction) and getattr(args, a.dest, None)), None):
        sub = chosen
    sub.error(unknown_options(sub, unknown))


def _run(argv: list[str] | None) -> int:
    warnings.formatwarning = _one_line_warning
    words = sys.argv[1:] if argv is None else argv
    if words == ["--version"]:  # (as argparse's version action prints it, without the subcommands' parsers)
        print(f"fileindex {__version__}")
        return 0
    parser = build_parser(_named_command(words))
    if words and words[0].startswith("--") and words[0] not in parser._option_string_actions:
        _refuse_unknown(parser, argparse.Namespace(), words[:1])  # (argparse: "COMMAND is required", not --vers)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _refuse_unknown(parser, args, unknown)
    # the process's own command line imports what it needs only (see unimported)
    with unimported(args.command) if argv is None else contextlib.nullcontext():
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    reach = reaching_stores(args)
    if isinstance(reach, int):
        return reach
    try:
        with reach as reached, each_warning_once():
            code = args.run(args)
        if reached is not None and not reached.reached and code in (0, 1):  # (1: it ran, and found something)
            warn_unreached(args)
        return code
    except BrokenPipeError:  # output piped into a command that stopped reading, e.g. head
        sys.stderr.close()
        return 0
    except MemoryError:  # a backstop: answers are bounded by what they mean, so this is a bug to report
        print(f"fileindex {args.command}: ran out of memory: an input claims more than this process can hold "
              "(fileindex check --schema names a body that claims too much); please report it", file=sys.stderr)
        return EXIT_MALFORMED


if __name__ == "__main__":
    sys.exit(main())
