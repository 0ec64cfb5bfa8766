"""``fileindex verify DATA [INDEX]``: does the index say the truth about every row of its data file?"""
from __future__ import annotations

import argparse
import json
import os
from fileindex.frozen import replace

from fileindex.cli import HANDLED, column_types, report_failure
from fileindex.storage_args import add_storage_options_argument
from fileindex.errors import UsageError

NAME = "verify"
HELP = ("check an index container against every row of its Parquet or ORC data file (no false negative, "
        "exact bitmaps, decoded bsi and range-bitmap values); exit 0 clean, 1 violations, 2 a schema that does not "
        "fit the index, 3 unreadable")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="a Parquet or ORC data file (a path or a store's URI: s3://, gs://, abfs://, ...)")
    parser.add_argument("index", nargs="?", help="its index container (default: DATA.index, where build writes it)")
    add_storage_options_argument(parser)
    parser.add_argument("--witnesses", type=int, default=5, metavar="N",
                        help="rows named per disagreement (default 5, the first rows that differ)")
    parser.add_argument("--schema", help='types of the columns it names, overriding those read from the data '
                                         'file, as given to build, e.g. "ts TIMESTAMP(3)"')
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def run(args: argparse.Namespace) -> int:
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.pipeline.report import exit_code, render_text, summarize
    from fileindex.pipeline.verify import verify_file
    from fileindex.types import parse_schema
    from fileindex.writing.data_file import refuse_unknown_override

    from fileindex.io.reach import names_a_store

    try:
        index = args.index or f"{args.data}.index"
        if names_a_store(args.data) or names_a_store(index):
            task = remote_task(args.data, index, named_index=bool(args.index))
        else:
            task = local_task(args.data, index, named_index=bool(args.index))
        if args.witnesses < 0:
            raise UsageError(f"--witnesses {args.witnesses}: give 0 or more")
        override = parse_schema(args.schema) if args.schema else {}
        retyped: list[str] = []
        if override:
            refuse_unknown_override(DataFileReader(task.path), override)
            retyped = column_types.warn_retyped_columns(NAME, index, column_types.data_file_types(task.path), override)
            task = replace(task, column_types=tuple(override.items()))
        summary = summarize([verify_file(task, witnesses=args.witnesses, exhaustive=True).as_row()])
        column_types.warn_imprecise_timestamps(NAME, task.path, column_types.indexed_columns(index), override)
    except HANDLED as err:
        return report_failure(NAME, err, args.data)
    blamed = retyped if summary["violations"] else []
    if args.json:
        print(json.dumps({**summary, "retyped_by_schema": blamed} if blamed else summary, ensure_ascii=False))
    else:
        print(render_text(summary))
        if blamed:
            print(f"the --schema differs from the data's types: {', '.join(blamed)}; the violations may be those of "
                  "the --schema, not of the index: verify again without those columns in --schema")
    return exit_code(summary)


def local_task(data: str, index: str, *, named_index: bool):
    """The task of a data file and its index on the local disk, each checked to be there."""
    from fileindex.scan.task import DataFileTask

    if os.path.isfile(data):
        column_types.refuse_non_data_file(data)
    if os.path.isdir(data):
        refuse_folder(data, NAME)
    for path, what in ((data, "data file"), (index, "index")):
        if not os.path.isfile(path):
            hint = f"; {column_types.index_hint(data)}" if what == "index" and not named_index else ""
            raise UsageError(f"{path}: no such {what}{hint}")
    return DataFileTask(os.path.abspath(data), data, os.path.getsize(data), index_file=os.path.abspath(index))


def refuse_folder(data: str, command: str) -> None:
    """A folder (a table's) where a data file goes: name the Spark command that does ``command`` for every file."""
    from fileindex.table.store import is_table_root

    what = "a Paimon table's folder" if is_table_root(data) else "a folder"
    raise UsageError(f"{data} is {what}, not a data file: give one of its Parquet or ORC files, or {command} them all "
                     f"with fileindex spark {command} {data}")


def remote_task(data: str, index: str, *, named_index: bool):
    """The task of a data file or index named by a store's URI: each is looked at with one HEAD (a missing one is
    said as locally), then read by the verify itself."""
    from fileindex.io.reach import file_io_at, names_a_store
    from fileindex.scan.task import DataFileTask

    size = 0
    for path, what in ((data, "data file"), (index, "index")):
        found = file_io_at(path).info(path) if names_a_store(path) else (
            os.path.getsize(path) if os.path.isfile(path) else None)
        if found is None:
            hint = f"; {column_types.index_hint(data)}" if what == "index" and not named_index else ""
            raise UsageError(f"{path}: no such {what}{hint}")
        if what == "data file":
            size = found if isinstance(found, int) else found.size
    local = not names_a_store(data)
    return DataFileTask(os.path.abspath(data) if local else data, data, size,
                        index_file=index if names_a_store(index) else os.path.abspath(index))
