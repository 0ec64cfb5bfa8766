"""``fileindex check FILE...``: validate containers; one line per file and a meaningful exit code."""
from __future__ import annotations

import argparse

from ..container import KNOWN_INDEX_TYPES, FileIndexContainer
from ..errors import DecodeError, UnsupportedError, UnsupportedIndexTypeError, UsageError
from ..types import DataType, column_type, parse_schema

NAME = "check"
HELP = "validate containers: exit 0 all valid, 3 any malformed, 4 unsupported (and none malformed), 2 usage"

EXIT_VALID, EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED = 0, 2, 3, 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="file-index containers to validate")
    parser.add_argument("--schema", help='column types, e.g. "id INT, name STRING, attrs MAP<STRING, INT>": '
                                         "with it, every index body of those columns is decoded in full")


def check_container(container: FileIndexContainer, schema: dict[str, DataType] | None = None) -> int:
    """Raise the first problem found: layout (bounds, overlap), unknown index types, then (with a
    schema) any body that does not decode. Returns how many bodies were decoded in full."""
    container.validate_layout()
    for entry in container:
        if entry.index_type not in KNOWN_INDEX_TYPES:
            raise UnsupportedIndexTypeError(
                f"unknown index type {entry.index_type!r} (known: {', '.join(KNOWN_INDEX_TYPES)})",
                offset=entry.entry_offset, field=f"{entry.field}/index_type",
            )
    if not schema:
        return 0
    from ..indexes import INDEX_TYPES  # imports numpy and pyarrow: only when bodies are decoded

    decoded = 0
    for entry in container:
        data_type = column_type(schema, entry.column)
        index = INDEX_TYPES.get(entry.index_type)
        if entry.is_empty or data_type is None or index is None:
            continue
        index.reader(container.body(entry), data_type, base_offset=entry.start).validate()
        decoded += 1
    return decoded


def check_file(path: str, schema: dict[str, DataType] | None = None) -> tuple[int, str]:
    try:
        container = FileIndexContainer.open(path)
        decoded = check_container(container, schema)
    except OSError as err:
        return EXIT_USAGE, f"ERROR {path}: cannot read: {err.strerror}"
    except UnsupportedError as err:
        return EXIT_UNSUPPORTED, f"UNSUPPORTED {path}: {err}"
    except DecodeError as err:
        return EXIT_MALFORMED, f"MALFORMED {path}: {err}"
    entries = container.head.entries
    bodies = f", {decoded} bodies decoded" if schema else ""
    return EXIT_VALID, (
        f"OK {path}: {len(container.head.column_records)} column(s), {len(entries)} index(es), "
        f"{container.size} bytes{bodies}"
    )


def run(args: argparse.Namespace) -> int:
    try:
        schema = parse_schema(args.schema) if args.schema is not None else None
    except UsageError as err:
        print(f"fileindex check: --schema: {err}")
        return EXIT_USAGE
    outcomes = []
    for path in args.files:
        code, line = check_file(path, schema)
        print(line)
        outcomes.append(code)
    for code in (EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED):
        if code in outcomes:
            return code
    return EXIT_VALID
