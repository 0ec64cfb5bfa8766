"""The command line: one module per subcommand (``app`` dispatches), and their shared error reporting."""
from __future__ import annotations

import sys

from fileindex.errors import FileIndexError, SchemaMisfitError, UnsupportedError, UsageError

EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED = 2, 3, 4
EXIT_NON_CANONICAL = 5  # check --canonical: valid, but not the bytes Java's writer produces


def report_failure(command: str, err: Exception, subject: str = "") -> int:
    """Print why a command failed and return its exit code: 2 usage or I/O, 3 malformed, 4 unsupported."""
    where = f"{subject}: " if subject and not str(err).startswith(subject) else ""
    if isinstance(err, OSError):
        print(f"fileindex {command}: cannot read {err.filename or subject}: {err.strerror or err}", file=sys.stderr)
        return EXIT_USAGE
    about_the_file = not isinstance(err, UsageError) or isinstance(err, SchemaMisfitError)
    print(f"fileindex {command}: {where if about_the_file else ''}{err}", file=sys.stderr)
    if isinstance(err, UsageError):
        return EXIT_USAGE
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
