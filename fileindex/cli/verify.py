"""``fileindex verify DATA [INDEX]``: does the index say the truth about every row of its data file?"""
from __future__ import annotations

import argparse
import json
import os

from fileindex.cli import HANDLED, column_types, report_failure
from fileindex.errors import UsageError

NAME = "verify"
HELP = ("check an index container against every row of its Parquet or ORC data file (no false negative, "
        "exact bitmaps, decoded bsi and range-bitmap values); exit 0 clean, 1 violations, 2 a schema that does not "
        "fit the index, 3 unreadable")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="a Parquet or ORC data file")
    parser.add_argument("index", nargs="?", help="its index container (default: DATA.index, where build writes it)")
    parser.add_argument("--witnesses", type=int, default=5, metavar="N",
                        help="rows named per disagreement (default 5, the first rows that differ)")
    parser.add_argument("--schema", help='types of the columns it names, overriding those read from the data '
                                         'file, as given to build, e.g. "ts TIMESTAMP(3)"')
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def run(args: argparse.Namespace) -> int:
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.scan.task import DataFileTask
    from fileindex.pipeline.report import exit_code, render_text, summarize
    from fileindex.pipeline.verify import verify_file
    from fileindex.types import parse_schema
    from fileindex.writing.data_file import refuse_unknown_override

    try:
        if os.path.isfile(args.data):
            column_types.refuse_non_data_file(args.data)
        index = args.index or f"{args.data}.index"
        for path, what in ((args.data, "data file"), (index, "index")):
            if not os.path.isfile(path):
                hint = f"; build it with: fileindex build {args.data}" if what == "index" and not args.index else ""
                raise UsageError(f"{path}: no such {what}{hint}")
        if args.witnesses < 0:
            raise UsageError(f"--witnesses {args.witnesses}: give 0 or more")
        override = parse_schema(args.schema) if args.schema else {}
        if override:
            refuse_unknown_override(DataFileReader(args.data), override)
        task = DataFileTask(os.path.abspath(args.data), args.data, os.path.getsize(args.data),
                            index_file=os.path.abspath(index), column_types=tuple(override.items()))
        summary = summarize([verify_file(task, witnesses=args.witnesses, exhaustive=True).as_row()])
        column_types.warn_imprecise_timestamps(NAME, args.data, column_types.indexed_columns(index), override)
    except HANDLED as err:
        return report_failure(NAME, err, args.data)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(render_text(summary))
    return exit_code(summary)
