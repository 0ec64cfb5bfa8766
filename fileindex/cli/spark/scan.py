"""``fileindex spark scan INPUT... --where EXPR``: read only what the indexes keep, then filter exactly."""
from __future__ import annotations

import argparse
import json

from fileindex.cli import add_external_paths_argument, note_null_comparisons, note_unread_level_0
from fileindex.storage_args import add_storage_options_argument
from fileindex.cli.spark import add_inputs_argument, check_session_arguments, session
from fileindex.errors import UsageError

COMMAND = "spark scan"
HELP = "an index-pruned scan: skip files, read only candidate rows, apply the predicate exactly"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs_argument(parser)
    parser.add_argument("--where", required=True, metavar="EXPR", help="the predicate, over the table's columns")
    parser.add_argument("--select", metavar="COLUMNS", type=selected_columns,
                        help="the result's columns, comma-separated top-level names (default: all); only they and "
                             "the predicate's columns are read (--compare selects the same on the plain side)")
    parser.add_argument("--compare", action="store_true",
                        help="also run a plain scan: both wall times (each side run once untimed first, so "
                             "both are timed warm), and whether the results are identical")
    parser.add_argument("--output", metavar="DIR", help="write the result rows here as Parquet (a new folder, "
                                                        "outside every input)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the --output folder an earlier spark scan wrote")
    parser.add_argument("--index-dir", help="plain data files: look for <file name>.index here")
    parser.add_argument("--source", choices=("jobs", "datasource"), default="jobs",
                        help='jobs (default): the pipeline\'s scan (index verdicts, then a read job); '
                             'datasource: through spark.read.format("paimon-fileindex") (tables only)')
    parser.add_argument("--plan", choices=("auto", "driver", "spark"), default="auto",
                        help="where the indexes are evaluated: auto (default: the driver for up to 256 files, "
                             "a Spark job above), driver or spark")
    parser.add_argument("--explain", action="store_true",
                        help="print the pruning funnel of a table's scan (stages, and per data file what is read and "
                             "why: what fileindex read --explain prints) instead; starts no Spark session")
    parser.add_argument("--count", action="store_true",
                        help="print the number of rows instead: from the metadata and the indexes where they answer "
                             "exactly (as fileindex read --count), the other files read by a Spark job (only the "
                             "predicate's columns); no Spark session where every file is answered")
    add_external_paths_argument(parser)
    add_storage_options_argument(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from fileindex.spark.compare import check_scan, check_scan_output, compared_scan, timed_scan
    from fileindex.spark.progress import finish

    roots = tuple(args.external_roots)
    if args.explain:
        return explain(args, roots)
    if args.count:
        return count(args, roots)
    if args.output:
        check_scan_output(args.output, args.inputs, args.index_dir, overwrite=args.overwrite)
    predicate = check_scan(args.inputs, args.where, snapshot=args.snapshot, index_dir=args.index_dir,
                           source=args.source, columns=args.select, external_roots=roots)  # before Spark starts
    note_null_comparisons(COMMAND, args.where, predicate)
    spark = session(args)
    options = {"snapshot": args.snapshot, "index_dir": args.index_dir, "source": args.source, "output": args.output,
               "plan": args.plan, "overwrite": args.overwrite, "columns": args.select, "external_roots": roots}
    if args.compare:
        report = compared_scan(spark, args.inputs, args.where, **options)
    else:
        report = timed_scan(spark, args.inputs, args.where, **options)
    report.pop("_frame", None)
    finish()  # the jobs' last progress line before the results
    if args.json:
        print(json.dumps(report))
    else:
        print(render(report))
    return 0 if report.get("identical", True) else 1


def count(args: argparse.Namespace, roots: tuple[str, ...]) -> int:
    """``--count``: the number of rows, from the indexes where they answer (``spark.count``)."""
    from fileindex.spark.count import spark_count

    for flag, given in (("--compare", args.compare), ("--output", args.output), ("--select", args.select),
                        ("--source datasource", args.source == "datasource"), ("--index-dir", args.index_dir)):
        if given:
            raise UsageError(f"--count prints a number and reads no rows out: leave {flag} out")
    check_session_arguments(args)  # also where every file is answered without Spark
    def planned(scan) -> None:
        note_null_comparisons(COMMAND, args.where, scan.predicate)
        note_unread_level_0(scan, COMMAND)

    report = spark_count(lambda: session(args), args.inputs, args.where, snapshot=args.snapshot, external_roots=roots,
                         planned=planned)
    print(json.dumps(report) if args.json else report["count"])
    return 0


def explain(args: argparse.Namespace, roots: tuple[str, ...]) -> int:
    """``--explain``: the planner's funnel for the pruned scan, as ``fileindex read --explain`` prints it."""
    from fileindex.spark.jobs import explain_scan

    for flag, given in (("--compare", args.compare), ("--output", args.output), ("--select", args.select),
                        ("--source datasource", args.source == "datasource"), ("--count", args.count)):
        if given:
            raise UsageError(f"--explain prints the plan and reads no rows: leave {flag} out"
                             + (" (fileindex read TABLE --where P --count --explain shows how each file is counted)"
                                if flag == "--count" else ""))
    explained = explain_scan(args.inputs, args.where, snapshot=args.snapshot, external_roots=roots,
                             parsed=lambda predicate: note_null_comparisons(COMMAND, args.where, predicate))
    print(json.dumps(explained.as_dict(), ensure_ascii=False) if args.json else explained)
    return 0


def selected_columns(text: str) -> list[str]:
    """``a, b,c`` as column names (a name in backticks may hold a comma-free anything, e.g. a space)."""
    names = [name.strip() for name in text.split(",")]
    if "" in names:
        raise argparse.ArgumentTypeError(f"{text!r} holds an empty column name: list columns as a,b,c")
    return [name[1:-1].replace("``", "`") if len(name) > 1 and name[0] == name[-1] == "`" else name
            for name in names]


def render(report: dict) -> str:
    from fileindex.pipeline.report import rows_match
    from fileindex.spark.compare import speedup_text

    took = f"{report['pruned_seconds']:.2f} s" + ("" if "plain_seconds" in report else
                                                   ", cold: this session's first scan; --compare times it warm")
    lines = [f"read {report['files_read']} of {report['files_total']} files, {report['rows_read']} of "
             f"{report['rows_total']} rows; {rows_match(report['result_rows'])} ({took})"]
    lines.append(index_used(report))
    if report.get("files_without_index") or report.get("index_problems"):
        lines.append(f"  read in full: {report['files_without_index']} files without an index, "
                     f"{report['index_problems']} with an index problem")
        lines += problem_lines(report.get("index_problem_files", []))
    if "plain_seconds" in report:
        verdict = "identical" if report["identical"] else "DIFFERENT"
        timing = "both warm" if report.get("warm") else "timed once each"
        lines.append(f"  plain scan: {report['plain_seconds']:.2f} s; pruned {speedup_text(report['speedup'])} "
                     f"({timing}); results {verdict}")
        if not report["identical"]:
            lines += difference_lines(report.get("disagreeing", []))
    return "\n".join(lines)


NAMED_PROBLEMS = 3


def problem_lines(problems: list[dict]) -> list[str]:
    """The files with an index problem and why (the first few; --json lists every one)."""
    lines = [f"    {problem['file']}: {problem['note']}" for problem in problems[:NAMED_PROBLEMS]]
    if len(problems) > NAMED_PROBLEMS:
        lines.append(f"    and {len(problems) - NAMED_PROBLEMS} more (--json lists every one)")
    return lines


def index_used(report: dict) -> str:
    """Was the index used: what it pruned, and how long planning took."""
    pruned_files = report["files_total"] - report["files_read"]
    pruned_rows = report["rows_total"] - report["rows_read"]
    line = (f"  index used: pruned {pruned_files} of {report['files_total']} files and {pruned_rows} of "
            f"{report['rows_total']} rows; planning took {report['planning_seconds']:.3f} s")
    if report.get("files_sidecar_in_tasks"):
        line += (f"; {report['files_sidecar_in_tasks']} files with sidecar indexes are pruned by the tasks that "
                 "read them (counted as read)")
    return line


def difference_lines(disagreeing: list[dict]) -> list[str]:
    """Why the pruned scan lost or gained rows: the files whose index disagrees with their data."""
    if not disagreeing:
        return ["  no file's index disagrees with its own rows for this predicate, so the difference is in the "
                "scan itself: please report it with the predicate and the inputs"]
    lines = [f"  the indexes of {len(disagreeing)} file(s) disagree with their data, so the pruned scan "
             "dropped rows they hold:"]
    lines += [f"    {d['file']} ({d['index']} index): {d['detail']}" for d in disagreeing[:10]]
    if len(disagreeing) > 10:
        lines.append(f"    ... {len(disagreeing) - 10} more (--json lists them all)")
    lines.append("  check every row of a file with: fileindex verify DATA [INDEX]; of all of them with: "
                 "fileindex spark verify --exhaustive INPUT...; rebuild what they find (fileindex spark build)")
    return lines
