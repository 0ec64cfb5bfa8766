"""``fileindex spark verify INPUT...``: does every index tell the truth about its data file?"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from fileindex.cli.spark import add_inputs_argument, session

HELP = ("check every data file's index against the file's rows (generated or given predicates); "
        "exit 0 clean, 1 violations, 3 unreadable indexes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs_argument(parser)
    parser.add_argument("--where", action="append", metavar="EXPR",
                        help="check this predicate (repeatable) instead of ones generated from each file's values")
    parser.add_argument("--report", metavar="DIR", help="write report.json and report.html here (a new folder, "
                                                        "outside every input)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing non-empty --report folder")
    parser.add_argument("--witnesses", type=int, default=5, metavar="N", help="rows shown per violation (default 5)")
    parser.add_argument("--index-dir", help="plain data files: look for <file name>.index here")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def run(args: argparse.Namespace) -> int:
    from fileindex.pipeline.report import exit_code, render_html, render_text, summarize
    from fileindex.pipeline.inputs import given_paths
    from fileindex.spark import verify_indexes
    from fileindex.writing.outputs import check_output, replacing_folder

    if args.report:
        check_output(args.report, given_paths(args.inputs) + ([args.index_dir] if args.index_dir else []),
                     overwrite=args.overwrite, what="--report")
    frame = verify_indexes(session(args), args.inputs, where=args.where, witnesses=args.witnesses,
                           snapshot=args.snapshot, index_dir=args.index_dir)
    summary = summarize(sorted((row.asDict() for row in frame.collect()), key=lambda r: r["file"]))
    if args.report:
        with replacing_folder(args.report, overwrite=args.overwrite) as folder:
            (folder / "report.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
            (folder / "report.html").write_text(render_html(summary))
    if args.json:
        print(json.dumps({k: v for k, v in summary.items() if k != "files_detail"}, ensure_ascii=False))
    else:
        print(render_text(summary))
        if args.report:
            print(f"report: {Path(args.report) / 'report.html'}")
    return exit_code(summary)
