"""``fileindex explain FILE [TYPES] [--column C] [--index TYPE] [--json]``: a file's bytes, field by field."""
from __future__ import annotations

import argparse
import json
import sys

from fileindex.cli import HANDLED, column_types, report_failure
from fileindex.storage_args import add_storage_options_argument
from fileindex.errors import FileIndexError

NAME = "explain"
HELP = ("an annotated dump of a container: offset, bytes, field path (as in specs/*.ksy) and decoded value "
        "of every field, down into the index bodies")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_storage_options_argument(parser)
    parser.add_argument("file", help="a file-index container (- for standard input)")
    column_types.add_arguments(parser)
    parser.add_argument("--column", help="explain only this column's bodies")
    parser.add_argument("--index", metavar="TYPE", help="explain only bodies of this index type")
    parser.add_argument("--json", action="store_true", help="one JSON list of {offset, length, path, value}")
    parser.epilog = ("bloom-filter and bsi bodies are always explained; bitmap and range-bitmap bodies need the "
                     "column's type (--schema, --data, --table, or the data file beside a sidecar). Exit 3 when the "
                     "file is malformed: the fields before the failure are shown, then the failing field.")


def run(args: argparse.Namespace) -> int:
    try:
        schema, read = column_types.resolve_read(NAME, args, args.file)
    except HANDLED as err:
        return report_failure(NAME, err, args.file)
    return explain_file(args.file, schema, column=args.column, index_type=args.index, as_json=args.json,
                        data_types=read)


def explain_file(path: str, schema, *, column=None, index_type=None, as_json=False, command: str = NAME,
                 data: bytes | None = None, data_types: dict | None = None) -> int:
    """Print the explanation of one file (or of ``data``, named ``path``: a container embedded in a
    manifest); exit code 3 when it is malformed (also for ``table --explain``). ``data_types``: the types of the
    data file or table, which a hint for a schema that does not fit names."""
    from contextlib import nullcontext

    from fileindex.container.file import raw_bytes
    from fileindex.reference.explain import explain, render
    from fileindex.types import quote_identifier

    try:
        if data is None:
            column_types.refuse_data_file(path)
        with raw_bytes(path) if data is None else nullcontext(memoryview(data)) as view:
            explanation = explain(view, schema=schema, column=column, index_type=index_type)
            misfit = schema_misfit_of(view, schema) if schema else None
            if misfit is not None:  # not a dump of bytes decoded as types they were not written as
                raise misfit
            if explanation.error is None:
                selection_matches(explanation.indexes, column, index_type)
            if as_json:
                print(json.dumps([f.as_json() for f in explanation.fields], ensure_ascii=False))
            else:
                print(render(explanation, colour=sys.stdout.isatty()))
    except HANDLED as err:
        named = column_types.named_folder(path, err) if data is None else err
        return report_failure(command, column_types.told_data_type(named, data_types or {}), path)
    strays = unindexed_schema_columns(schema, explanation.indexes, data_types or {})
    stray = f"--schema names {', '.join(map(quote_identifier, strays))}, which the file does not index" \
        if strays else ""
    if explanation.untyped:
        bodies = ", ".join(f"{index} of {column}" for column, index in explanation.untyped)
        columns = ", ".join(dict.fromkeys(
            f"{quote_identifier(c.split('[')[0])} MAP<KEY, TYPE>" if c.endswith("]") else f"{quote_identifier(c)} TYPE"
            for c, _ in explanation.untyped))
        print(f"fileindex {command}: {path}: shown as raw bytes for want of the column's type: {bodies}; "
              f"--schema \"{columns}\" (or --data DATA_FILE, --table ROOT) would decode them"
              f"{'; ' + stray if stray else ''}", file=sys.stderr)
    elif stray:
        indexed = ", ".join(dict.fromkeys(c for c, _ in explanation.indexes)) or "none"
        print(f"fileindex {command}: {path}: {stray} (it indexes {indexed})", file=sys.stderr)
    if explanation.error is not None:
        print(f"fileindex {command}: {path}: {explanation.error}", file=sys.stderr)
        return 3
    return 0


def unindexed_schema_columns(schema, indexes: list[tuple[str, str]], data_types: dict) -> list[str]:
    """The columns ``schema`` names (those of ``--schema``: not the data's) that no body of the file indexes, a map's
    keys (``m[k]``) indexing ``m``: a misspelt name, or another file's column."""
    indexed = {c for c, _ in indexes} | {c.split("[")[0] for c, _ in indexes if c.endswith("]")}
    return [name for name in schema or {} if name not in indexed and name not in data_types]


def schema_misfit_of(view, schema):
    """The first body of ``view`` that another type fits better than the one ``schema`` gives it, if any."""
    from fileindex.container.file import FileIndexContainer
    from fileindex.indexes.deep_check import schema_misfit

    try:
        return schema_misfit(FileIndexContainer.from_bytes(view), schema)
    except FileIndexError:  # the container itself is malformed: explain shows where
        return None


def selection_matches(indexes: list[tuple[str, str]], column: str | None, index_type: str | None) -> None:
    """A ``--column`` / ``--index`` that selects no body of the file is a mistake, not an empty answer."""
    from fileindex.errors import UsageError
    from fileindex.tokens import closest_name

    if column is not None and column not in {c for c, _ in indexes}:
        columns = list(dict.fromkeys(c for c, _ in indexes))
        close = closest_name(column, columns)
        raise UsageError(f"--column {column}: the file has no such column (its columns: {', '.join(columns) or 'none'})"
                         f"{f'; did you mean {close}?' if close else ''}")
    types = {t for c, t in indexes if column in (None, c)}
    if index_type is not None and index_type not in types:
        where = f" on column {column}" if column is not None else ""
        raise UsageError(f"--index {index_type}: the file has no such index{where} (it has: "
                         f"{', '.join(sorted(types)) or 'none'})")
