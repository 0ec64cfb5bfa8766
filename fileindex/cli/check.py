"""``fileindex check FILE...``: validate containers; one line per file and a meaningful exit code."""
from __future__ import annotations

import argparse
import json

from fileindex.cli import column_types
from fileindex.storage_args import add_storage_options_argument
from fileindex.cli.exits import EXIT_MALFORMED, EXIT_NON_CANONICAL, EXIT_OK, EXIT_UNSUPPORTED, EXIT_USAGE
from fileindex.container.file import FileIndexContainer
from fileindex.errors import (
    DecodeError,
    FileIndexError,
    UnsupportedError,
    UnsupportedIndexTypeError,
    UsageError,
)
from fileindex.types import DataType, column_type

NAME = "check"
HELP = ("validate containers: exit 0 all valid, 3 any malformed, 4 unsupported (and none malformed), "
        "6 with --canonical any valid but not as Java writes it, 2 usage")

EXIT_VALID = EXIT_OK
STATUS = {EXIT_VALID: "OK", EXIT_USAGE: "ERROR", EXIT_MALFORMED: "MALFORMED", EXIT_UNSUPPORTED: "UNSUPPORTED",
          EXIT_NON_CANONICAL: "NON-CANONICAL"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_storage_options_argument(parser)
    parser.add_argument("files", nargs="+", metavar="FILE", help="file-index containers to validate")
    column_types.add_arguments(parser)
    parser.epilog = ("Every bloom-filter and bsi body is checked in full; with column types (from --schema, --data, "
                     "--table or the data file beside a sidecar) every index body of those columns is too: decoded, "
                     "and every invariant its layout implies proved (keys sorted, bitmaps disjoint and covering the "
                     "rows, slices inside their existence bitmap, a plausible bloom fill). A violation names the "
                     "field and the byte offset, and says when Java itself would not notice it. A file Java reads "
                     "correctly but its writer would not have written (entries or bodies in another order, Roaring "
                     "bitmaps without run containers) is valid: its differences are listed as notes.")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per file: file, status, exit_code, notes, and the counts or the error")
    parser.add_argument("--canonical", action="store_true",
                        help="also require the bytes Java's writer produces: a valid file with notes is "
                             "NON-CANONICAL, exit 6")


def check_container(container: FileIndexContainer, schema: dict[str, DataType] | None = None):
    """Raise the first problem found: layout (bounds, overlap), unknown index types, then every
    invariant the layout implies whose breach Java would misread (the entry table; each body of a
    column with a type, and the bodies that need none: bloom filters, bsi). Returns the
    :class:`~fileindex.indexes.deep_check.Checked` counts and notes (how it differs from Java's writer's)."""
    from fileindex.indexes.registry import INDEX_TYPES

    container.validate_layout()
    for entry in container:
        if entry.index_type not in INDEX_TYPES:
            raise UnsupportedIndexTypeError(
                f"unknown index type {entry.index_type!r} (known: {', '.join(INDEX_TYPES)})",
                offset=entry.entry_offset, field=f"{entry.field}/index_type",
            )
    from fileindex.indexes.deep_check import check_container_bodies

    return check_container_bodies(container, schema)


def check_file(path: str, schema: dict[str, DataType] | None = None, *, canonical: bool = False,
               data_types: dict[str, DataType] | None = None) -> dict:
    """The outcome for one file as ``check --json`` prints it (``canonical``: notes make it NON-CANONICAL;
    ``data_types``: those of the data file or table, which a hint for a schema that does not fit names)."""
    outcome: dict = {"file": path}
    try:
        column_types.refuse_data_file(path)
        container = FileIndexContainer.open(path)
        decoded = check_container(container, schema)
    except OSError as err:
        folder = column_types.named_folder(path, err)  # (a store's folder or table: as a local one is refused)
        return {**outcome, "status": "ERROR", "exit_code": EXIT_USAGE,
                "error": f"cannot read: {err.strerror or err}" if folder is err else str(folder)}
    except UsageError as err:  # column types that do not fit the bodies
        return {**outcome, "status": "ERROR", "exit_code": EXIT_USAGE,
                "error": str(column_types.told_data_type(err, data_types or {}))}
    except DecodeError as err:
        code = EXIT_UNSUPPORTED if isinstance(err, UnsupportedError) else EXIT_MALFORMED
        return {**outcome, "status": STATUS[code], "exit_code": code, "error": str(err), "offset": err.offset,
                "field": err.field}
    code = EXIT_NON_CANONICAL if canonical and decoded.notes else EXIT_VALID
    outcome.update(status=STATUS[code], exit_code=code, columns=len(container.head.column_records),
                   indexes=len(container.head.entries), size=container.size)
    outcome["bodies_decoded"] = decoded.bodies
    outcome["notes"] = [note.as_dict() for note in decoded.notes]
    if schema:
        untyped = [c for c in container.columns if column_type(schema, c) is None]
        if untyped:  # given types that name none of these columns decode nothing: say so
            outcome["untyped_columns"] = untyped
    elif sum(not entry.is_empty for entry in container.head.entries) > decoded.bodies:
        outcome["bodies_unchecked"] = True  # bodies that need their column's type: only the layout was checked
    return outcome


def render(outcome: dict) -> str:
    if "error" in outcome:
        error = outcome["error"]
        return f"{outcome['status']} {error if error.startswith(outcome['file']) else outcome['file'] + ': ' + error}"
    bodies = f", {outcome['bodies_decoded']} bodies decoded and checked"
    if outcome.get("bodies_unchecked"):
        bodies += (f"; warning: the {'other ' if outcome['bodies_decoded'] else ''}bodies were not checked: give the "
                   "columns' types (--schema, --data or --table)")
    if outcome.get("untyped_columns"):
        bodies += (f"; warning: the given types lack column(s) {', '.join(outcome['untyped_columns'])}, "
                   "whose bodies were not decoded")
    notes = outcome.get("notes") or []
    if notes:
        bodies += f"; valid, not as Java writes it ({len(notes)} note(s))"
    lines = [f"{outcome['status']} {outcome['file']}: {outcome['columns']} column(s), {outcome['indexes']} index(es), "
             f"{outcome['size']} bytes{bodies}"]
    lines += [f"  note: {n['field']} at offset {n['offset']}: {n['message']}" for n in notes]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    codes = []
    for path in args.files:
        try:
            schema, read = column_types.resolve_read(NAME, args, path)
        except (FileIndexError, OSError) as err:
            outcome = {"file": path, "status": "ERROR", "exit_code": EXIT_USAGE, "error": f"column types: {err}"}
        else:
            outcome = check_file(path, schema, canonical=args.canonical, data_types=read)
        print(json.dumps(outcome, ensure_ascii=False) if args.json else render(outcome))
        codes.append(outcome["exit_code"])
    for code in (EXIT_USAGE, EXIT_MALFORMED, EXIT_UNSUPPORTED, EXIT_NON_CANONICAL):
        if code in codes:
            return code
    return EXIT_VALID
