"""The command line: one module per subcommand (``app`` dispatches), and their shared error reporting."""
from __future__ import annotations

import sys

from fileindex.lazy import import_deferring

# (before anything imports pathlib: urllib.parse, which it imports, imports ipaddress for bracketed URL hosts only,
# 6 M instructions of every command)
import_deferring("pathlib", "ipaddress")

from fileindex.cli.exits import EXIT_CONFLICT, EXIT_MALFORMED, EXIT_UNSUPPORTED, EXIT_USAGE  # noqa: E402
from fileindex.errors import (FileIndexError, SchemaMisfitError, StoreError, UnsupportedError,  # noqa: E402
                              UsageError, printable)
from fileindex.table.errors import CommitConflict  # noqa: E402


def report_failure(command: str, err: Exception, subject: str = "") -> int:
    """Print why a command failed and return its exit code: 2 usage or I/O, 3 malformed, 4 unsupported,
    5 a commit conflict."""
    if isinstance(err, BrokenPipeError):
        raise err  # (output piped into a command that stopped reading, e.g. head: the command line ends quietly)
    where = f"{subject}: " if subject and not str(err).startswith(subject) else ""
    if isinstance(err, OSError):
        print(f"fileindex {command}: cannot read {err.filename or subject}: {err.strerror or err}", file=sys.stderr)
        return EXIT_USAGE
    about_the_file = not isinstance(err, UsageError) or isinstance(err, SchemaMisfitError)
    # (a newline kept: a predicate's error shows the text with a caret under the fault on a line of its own)
    print(printable(f"fileindex {command}: {where if about_the_file else ''}{err}", keep="\n"), file=sys.stderr)
    if isinstance(err, (UsageError, StoreError)):  # (a store's object that cannot be read: as a local file's)
        return EXIT_USAGE
    if isinstance(err, CommitConflict):
        return EXIT_CONFLICT
    return EXIT_UNSUPPORTED if isinstance(err, UnsupportedError) else EXIT_MALFORMED


HANDLED = (OSError, FileIndexError)


def parse_key_values(pairs: list[str], flag: str, example: str) -> dict[str, str]:
    """``--flag KEY=VALUE`` arguments as a dict; a UsageError (showing ``example``) for a malformed one."""
    parsed: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} {pair!r}: write KEY=VALUE, e.g. {example}")
        key, value = key.strip(), value.strip()
        if parsed.get(key, value) != value:
            raise UsageError(f"{flag} {key} is given twice ({parsed[key]!r} and {value!r}): give it once")
        parsed[key] = value
    return parsed


def add_snapshot_argument(parser, help: str = "a snapshot id, or latest (the default)") -> None:
    parser.add_argument("--snapshot", type=snapshot_id, help=help)


def snapshot_id(text: str) -> int | None:
    """``--snapshot``'s value: a snapshot id, or ``latest`` (None: the newest, as when it is not given)."""
    if text.strip().lower() == "latest":
        return None
    return whole_number(text, "is not a snapshot id: give a snapshot's number (N of the table's "
                              "snapshot/snapshot-N), or latest")


def whole_number(text: str, otherwise: str) -> int:
    """An option's value that is a whole number, 0 or more; else argparse's error, ``text`` and ``otherwise``."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} {otherwise}")
    return value


def __getattr__(name: str):
    """``main`` and ``build_parser`` (in ``fileindex.cli.app``), loaded on first use: the console
    script and ``spark-submit`` jobs call ``fileindex.cli.main``."""
    if name in ("main", "build_parser"):
        from fileindex.cli import app

        return getattr(app, name)
    raise AttributeError(f"module 'fileindex.cli' has no attribute {name!r}")


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal cells: wide (East Asian, emoji) characters take two, combining
    marks none."""
    import unicodedata

    cells = sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - cells)


def add_external_paths_argument(parser) -> None:
    """``--allow-external-paths [ROOT]``: the folders outside the table whose data files may be read."""
    parser.add_argument("--allow-external-paths", action="append", nargs="?", const="declared", default=[],
                        metavar="ROOT", dest="external_roots",
                        help="read data files under external paths (outside the table) that lie inside ROOT; "
                             "without ROOT: inside the folders the table's data-file.external-paths names; "
                             "repeat for more (default: such files are refused)")


def note_index_problems(scan, command: str) -> None:
    """Files kept because their index could not be used (missing, corrupt, on storage not readable here): the
    answer is right, each row of theirs checked, but a read slower than it should be says why, in one line on
    stderr (``read``; ``table`` and ``--explain`` list every such file)."""
    if scan.predicate is None:
        return  # (no index asked)
    troubled = [(item.file, item.verdict.note) for item in scan.plan()
                if item.verdict is not None and item.verdict.has_problem]
    if troubled:
        (file, note), more = troubled[0], len(troubled) - 1
        others = f" (and {more:,} other file{'s' if more != 1 else ''})" if more else ""
        print(f"fileindex {command}: the index of {file}{others} could not be used ({note}): its rows are checked "
              "without it (--explain lists them)", file=sys.stderr)


def note_null_comparisons(command: str, where: str | None, predicate) -> None:
    """``c = NULL`` matches no row (as in SQL): one line saying how to ask for the null rows (``read``, ``spark
    scan``)."""
    from fileindex.predicate.tree import null_comparisons, null_tested

    if predicate is None:
        return
    tested = null_tested(predicate)
    for column in null_comparisons(predicate):
        hint = "" if column in tested else \
            f"; for the null rows of {column}, write {column} IS NULL (IS NOT NULL for the others)"
        print(f"fileindex {command}: {where}: comparing {column} with NULL matches no row (never true in SQL){hint}",
              file=sys.stderr)


def note_unread_level_0(scan, command: str) -> None:
    """Level-0 files a batch scan does not read (a primary-key table with deletion vectors, as Java's): one line on
    stderr, so that rows written but not yet compacted (a count of 0 on a new table) do not go unexplained
    (``read``, ``spark scan --count``)."""
    if not (scan.table.schema.primary_keys and scan.table.deletion_vectors_enabled):
        return  # (no level stage: the funnel is not asked for)
    for stage in scan.explain().stages:
        files, rows = stage.files_before - stage.files_after, stage.rows_before - stage.rows_after
        if stage.name == "level" and files:
            print(f"fileindex {command}: {files:,} level-0 file{'s' if files != 1 else ''} ({rows:,} "
                  f"row{'s' if rows != 1 else ''}) not read: a batch scan of a primary-key table with deletion "
                  "vectors reads only compacted files, as Java's does (--explain lists them)", file=sys.stderr)
