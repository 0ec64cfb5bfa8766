"""The ``fileindex`` command line (``main``). Each subcommand is a module of ``fileindex.cli``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
adding a subcommand means adding a module and listing it in ``COMMANDS``.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings

from fileindex import __version__
from fileindex.cli.exits import EXIT_CODES, EXIT_MALFORMED, EXIT_USAGE
from fileindex.cli.interrupts import run_interruptible
from fileindex.cli.unimported import unimported
from fileindex.errors import UsageError

COMMANDS = ("inspect", "explain", "check", "query", "build", "verify", "table", "read", "rewrite", "conformance",
            "kit", "spark", "demo", "samples")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, only that subcommand's module is imported and its arguments
    declared (the others are names alone: what parsing a command line naming ``command`` needs)."""
    parser = argparse.ArgumentParser(
        prog="fileindex",
        description="Inspect, check and evaluate Apache Paimon file-index files.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if command is not None and name != command:
            subparsers.add_parser(name)
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

    try:
        return reaching(storage_options(args))
    except UsageError as err:
        print(f"fileindex {args.command}: {err}", file=sys.stderr)
        return EXIT_USAGE


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"fileindex: warning: {message}\n"


def main(argv: list[str] | None = None) -> int:
    """The command line; Ctrl-C is one line from here on, also while the commands' modules load."""
    return run_interruptible(lambda: _run(argv), end_started=True)


def _named_command(argv: list[str]) -> str | None:
    """The subcommand a command line names first (None: none, or an option before it, as in ``--help``)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def _run(argv: list[str] | None) -> int:
    warnings.formatwarning = _one_line_warning
    args = build_parser(_named_command(sys.argv[1:] if argv is None else argv)).parse_args(argv)
    # the process's own command line imports what it needs only (see unimported)
    with unimported(args.command) if argv is None else contextlib.nullcontext():
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    reach = reaching_stores(args)
    if isinstance(reach, int):
        return reach
    try:
        with reach:
            return args.run(args)
    except BrokenPipeError:  # output piped into a command that stopped reading, e.g. head
        sys.stderr.close()
        return 0
    except MemoryError:  # a backstop: answers are bounded by what they mean, so this is a bug to report
        print(f"fileindex {args.command}: ran out of memory: an input claims more than this process can hold "
              "(fileindex check --schema names a body that claims too much); please report it", file=sys.stderr)
        return EXIT_MALFORMED

if __name__ == "__main__":
    sys.exit(main())
