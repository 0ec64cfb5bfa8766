"""``fileindex spark verify INPUT...``: does every index tell the truth about its data file?"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fileindex.cli import add_external_paths_argument
from fileindex.cli.spark import add_inputs_argument, session
from fileindex.storage_args import add_storage_options_argument

COMMAND = "spark verify"
HELP = ("check every data file's index against the file's rows (every row, or generated or given predicates); "
        "exit 0 clean, 1 violations, 2 a schema that does not fit the index or no file with an index, 3 unreadable "
        "indexes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs_argument(parser)
    parser.add_argument("--where", action="append", metavar="EXPR",
                        help="check this predicate (repeatable) instead of ones generated from each file's values")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--exhaustive", action="store_true", default=None,
                      help="check every row against what its index says (the default when the data files total "
                           "at most 256 MiB and no --where is given)")
    mode.add_argument("--sampled", dest="exhaustive", action="store_false",
                      help="check predicates generated from each file's values instead (the default above 256 MiB)")
    parser.add_argument("--report", metavar="DIR", help="write report.json and report.html here (a new folder, "
                                                        "outside every input)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the --report folder an earlier spark verify wrote")
    parser.add_argument("--witnesses", type=int, default=5, metavar="N", help="rows shown per violation (default 5)")
    parser.add_argument("--index-dir", help="plain data files: look for <file name>.index here")
    add_external_paths_argument(parser)
    add_storage_options_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def run(args: argparse.Namespace) -> int:
    from fileindex.pipeline.inputs import check_index_dir, resolve_inputs
    from fileindex.pipeline.report import exit_code, render_html, render_text, summarize
    from fileindex.pipeline.inputs import given_paths
    from fileindex.spark import verify_indexes
    from fileindex.spark.progress import finish
    from fileindex.spark.jobs import exhaustive_by_default
    from fileindex.writing.outputs import check_output, replacing_folder

    if args.report:
        check_output(args.report, given_paths(args.inputs) + ([args.index_dir] if args.index_dir else []),
                     overwrite=args.overwrite, what="--report", command=COMMAND)
    check_index_dir(args.index_dir)
    resolved = resolve_inputs(args.inputs, snapshot=args.snapshot, index_dir=args.index_dir,
                              external_roots=tuple(args.external_roots))  # in seconds, not
    spark = session(args)  # after Spark has started
    exhaustive = args.exhaustive
    if exhaustive is None:
        exhaustive = not args.where and exhaustive_by_default(resolved)
        if not args.where:
            print("fileindex spark verify: " + (
                "checking every row (the data files total at most 256 MiB; --sampled checks generated predicates)"
                if exhaustive else "checking predicates generated from each file's values (the data files total "
                                   "over 256 MiB; --exhaustive checks every row)"), file=sys.stderr)
    frame = verify_indexes(spark, resolved, where=args.where, witnesses=args.witnesses,
                           exhaustive=exhaustive)
    summary = summarize(sorted((row.asDict() for row in frame.collect()), key=lambda r: r["file"]))
    finish()  # the jobs' last progress line before the results, not after them
    if args.report:
        with replacing_folder(args.report, overwrite=args.overwrite, what="--report", command=COMMAND) as folder:
            (folder / "report.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
            (folder / "report.html").write_text(render_html(summary))
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "files_detail"}, ensure_ascii=False))
    else:
        print(render_text(summary))
        if args.report:
            print(f"report: {Path(args.report) / 'report.html'}")
    return exit_code(summary)
