"""``fileindex table TABLE_PATH --where EXPR [--where EXPR ...]``: per live data file, what its index lets Paimon skip."""
from __future__ import annotations

import argparse
import json

from fileindex.cli import HANDLED, report_failure
from fileindex.errors import UsageError

NAME = "table"
HELP = ("plan a Java-written Paimon table: per live data file, where its index lives and the verdict "
        "(--where), or its indexes (--indexes)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="the table root (the folder holding snapshot/, schema/, manifest/)")
    parser.add_argument("--where", action="append", metavar="EXPR",
                        help="a predicate over the table's columns; repeat for more (each answered on its own)")
    parser.add_argument("--indexes", action="store_true",
                        help="list every live data file's indexes (like Paimon's $file_indexes table): where each "
                             "container lives, its version and size, each payload's size; reads only heads and footers")
    parser.add_argument("--explain", metavar="FILE",
                        help="explain an index file of the table byte by byte, with the column types of the "
                             "table's schema (see fileindex explain)")
    parser.add_argument("--snapshot", type=int, help="a snapshot id (default: the latest)")
    parser.add_argument("--mode", choices=("java", "extended"), default="java",
                        help="java (default): Paimon's answers; extended: also sound tighter answers")
    parser.add_argument("--json", action="store_true", help="JSON lines: one object per data file and predicate, then a summary per predicate")


def run(args: argparse.Namespace) -> int:
    from fileindex.table.scan import PaimonTable

    if args.explain:
        from fileindex.cli.explain import explain_file

        try:
            schema = PaimonTable(args.table, args.snapshot).schema.types()
        except HANDLED as err:
            return report_failure(NAME, err, args.table)
        return explain_file(args.explain, schema, as_json=args.json, command=NAME)
    if not args.where and not args.indexes:
        return report_failure(NAME, UsageError("give --where EXPR (what the indexes let Paimon skip), --indexes "
                                               "(which indexes the data files have) or --explain FILE"))
    try:
        table = PaimonTable(args.table, args.snapshot)
        if args.indexes:
            return print_indexes(table, as_json=args.json)
        predicates = [table.parse(text) for text in args.where]
        plans = table.plan_many(predicates, extended=args.mode == "extended")
    except HANDLED as err:
        return report_failure(NAME, err, args.table)
    for text, verdicts in zip(args.where, plans):
        if len(args.where) > 1 and not args.json:
            print(f"where {text}:")
        print_plan(verdicts, text, as_json=args.json)
    return 0


def print_indexes(table, *, as_json: bool) -> int:
    from fileindex.table.scan import index_listing

    rows = list(index_listing(table))
    for row in rows:
        if as_json:
            print(json.dumps(row, ensure_ascii=False))
        elif "column" in row:
            size = "empty" if row["empty"] else f"{row['payload_bytes']} B"
            print(f"{row['file']}  {row['index']} v{row['version']} {row['container_bytes']} B  "
                  f"{row['column']}:{row['index_type']} {size}")
        else:
            print(f"{row['file']}  {row['index']}" + (f"  ({row['note']})" if row.get("note") else ""))
    files = len({row["file"] for row in rows})
    indexed = len({row["file"] for row in rows if "column" in row})
    if not as_json:
        print(f"{files} live data file(s), {indexed} with an index, {sum('column' in r for r in rows)} index(es)")
    return 0


def print_plan(verdicts: list, where: str, *, as_json: bool) -> None:
    from fileindex.cli.query import describe, result_json
    from fileindex.table.scan import summarize

    for verdict in verdicts:
        answer = result_json(verdict.result)
        if as_json:
            line = {"where": where, "file": verdict.file, "row_count": verdict.row_count, "index": verdict.index,
                    **answer}
            if verdict.note:
                line["note"] = verdict.note
            print(json.dumps(line, ensure_ascii=False))
        else:
            note = f"  ({verdict.note})" if verdict.note else ""
            print(f"{verdict.file}  rows={verdict.row_count}  index={verdict.index}  {describe(answer)}{note}")
    summary = summarize(verdicts)
    if as_json:
        print(json.dumps({"where": where, "summary": summary}))
    else:
        print(f"kept {summary['files_kept']} of {summary['files']} files, {summary['rows_kept']} of "
              f"{summary['rows']} rows" + (f"; {summary['problems']} index problem(s)" if summary["problems"] else ""))
