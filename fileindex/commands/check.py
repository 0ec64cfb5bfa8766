"""``fileindex check FILE...``: validate containers; one line per file and a meaningful exit code."""
from __future__ import annotations

import argparse

from ..container import KNOWN_INDEX_TYPES, FileIndexContainer
from ..errors import DecodeError, UnsupportedError, UnsupportedIndexTypeError

NAME = "check"
HELP = "validate containers: exit 0 all valid, 3 any malformed, 4 unsupported (and none malformed), 2 usage"

EXIT_VALID, EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED = 0, 2, 3, 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="file-index containers to validate")


def check_container(container: FileIndexContainer) -> None:
    """Raise the first problem found: layout (bounds, overlap), then unknown index types."""
    container.validate_layout()
    for entry in container:
        if entry.index_type not in KNOWN_INDEX_TYPES:
            raise UnsupportedIndexTypeError(
                f"unknown index type {entry.index_type!r} (known: {', '.join(KNOWN_INDEX_TYPES)})",
                offset=entry.entry_offset, field=f"{entry.field}/index_type",
            )


def check_file(path: str) -> tuple[int, str]:
    try:
        container = FileIndexContainer.open(path)
        check_container(container)
    except OSError as err:
        return EXIT_USAGE, f"ERROR {path}: cannot read: {err.strerror}"
    except UnsupportedError as err:
        return EXIT_UNSUPPORTED, f"UNSUPPORTED {path}: {err}"
    except DecodeError as err:
        return EXIT_MALFORMED, f"MALFORMED {path}: {err}"
    entries = container.head.entries
    return EXIT_VALID, (
        f"OK {path}: {len(container.head.column_records)} column(s), {len(entries)} index(es), "
        f"{container.size} bytes"
    )


def run(args: argparse.Namespace) -> int:
    outcomes = []
    for path in args.files:
        code, line = check_file(path)
        print(line)
        outcomes.append(code)
    for code in (EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED):
        if code in outcomes:
            return code
    return EXIT_VALID
