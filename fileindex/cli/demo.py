"""``fileindex demo``: the main job, the Spark pipeline on a generated dataset (local mode by default)."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time

from fileindex.cli import report_failure
from fileindex.cli.spark import add_session_arguments, check_session_arguments, guarded, session
from fileindex.errors import UsageError

NAME = "demo"
HELP = ("the pipeline on a generated dataset: build indexes with Spark, verify them, and compare "
        "index-pruned scans with plain ones (`fileindex samples` inspects the bundled containers)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--files", type=int, default=32, help="data files to generate (default 32)")
    parser.add_argument("--rows", type=int, default=100_000, help="rows per file (default 100000)")
    parser.add_argument("--workdir", help="where to write the dataset and its indexes (default: a temporary folder, "
                                          "removed afterwards); a new or empty folder, filled when the demo ends")
    parser.add_argument("--overwrite", action="store_true", help="replace the --workdir an earlier demo wrote")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object at the end")
    add_session_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from fileindex.writing.outputs import check_output

    try:
        if args.files < 3 or args.rows < 1000:
            raise UsageError("the demo needs at least 3 files of 1000 rows (--files, --rows)")
        if args.workdir:
            check_output(args.workdir, [], overwrite=args.overwrite, what="--workdir", command=NAME)
    except UsageError as err:
        return report_failure(NAME, err)
    return guarded(NAME, lambda: _run(args), progress=False)  # the demo narrates its steps itself


def _run(args: argparse.Namespace) -> int:
    begun = time.perf_counter()
    from fileindex.ending import remove_folder
    from fileindex.spark.demo import DatasetSpec, run_demo

    spec = DatasetSpec(files=args.files, rows_per_file=args.rows)
    progress = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else \
        (lambda text: print(text, flush=True))
    from fileindex.writing.outputs import replacing_folder

    check_session_arguments(args)
    progress(f"starting Spark ({args.master or 'local[*]'}) ...")  # (its JVM takes seconds to start, silently)
    spark = session(args)
    spark_start = time.perf_counter() - begun
    if args.workdir:  # written beside it, renamed to it when the demo completes
        with replacing_folder(args.workdir, overwrite=args.overwrite, what="--workdir", command=NAME) as folder:
            figures = run_demo(spark, spec, str(folder), say=progress)
    else:
        scratch = tempfile.mkdtemp(prefix="fileindex-demo-")
        try:
            figures = run_demo(spark, spec, scratch, say=progress)
        finally:  # (on Ctrl-C, once Spark's workers writing into it have ended)
            remove_folder(scratch)
    figures.update(spark_start_seconds=spark_start, total_seconds=time.perf_counter() - begun)
    if args.json:
        print(json.dumps(figures))
    else:
        print(done_line(figures))
    ok = figures["verify"]["violations"] == 0 and all(s["identical"] for s in figures["scans"])
    return 0 if ok else 1


def done_line(figures: dict) -> str:
    """The demo's last line: the time from the command's start, Spark's start-up in it, then the verdicts."""
    return (f"done in {figures['total_seconds']:.0f} s from the command's start "
            f"({figures['spark_start_seconds']:.0f} s starting Spark, {figures['seconds']:.0f} s the pipeline): "
            f"{figures['verify']['violations']} violations; "
            f"every pruned scan {'matched' if all(s['identical'] for s in figures['scans']) else 'did NOT match'} "
            "its plain scan")
