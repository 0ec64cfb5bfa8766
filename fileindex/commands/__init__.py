"""Subcommands of the ``fileindex`` CLI (see fileindex.cli), and their shared error reporting."""
from __future__ import annotations

import sys

from ..errors import FileIndexError, UnsupportedError, UsageError

EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED = 2, 3, 4


def report_failure(command: str, err: Exception, subject: str = "") -> int:
    """Print why a command failed and return its exit code: 2 usage or I/O, 3 malformed, 4 unsupported."""
    where = f"{subject}: " if subject else ""
    if isinstance(err, OSError):
        print(f"fileindex {command}: cannot read {err.filename or subject}: {err.strerror or err}", file=sys.stderr)
        return EXIT_USAGE
    print(f"fileindex {command}: {'' if isinstance(err, UsageError) else where}{err}", file=sys.stderr)
    if isinstance(err, UsageError):
        return EXIT_USAGE
    return EXIT_UNSUPPORTED if isinstance(err, UnsupportedError) else EXIT_MALFORMED


HANDLED = (OSError, FileIndexError)
