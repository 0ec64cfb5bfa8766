"""``fileindex spark build INPUT... --option KEY=VALUE...``: every data file's index, built on Spark."""
from __future__ import annotations

import argparse
import json
import sys

from fileindex.cli import add_external_paths_argument, parse_key_values
from fileindex.cli.spark import add_inputs_argument, session
from fileindex.storage_args import add_storage_options_argument

HELP = "build the index container of every data file (sidecars <file>.index, written atomically)"
BESIDE_DATA_NOTE = ("fileindex spark build: note: {count} sidecar(s) written beside their data files: "
                    "spark.read.{format}(\"folder/\") reads every file of a folder and fails on the .index (and "
                    ".source.json) files; build with --output-dir DIR and give spark scan/verify --index-dir DIR, "
                    "or read the folder with .option(\"pathGlobFilter\", \"*.{format}\")")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_inputs_argument(parser)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a Paimon table option, e.g. file-index.bloom-filter.columns=id (a table's own "
                             "file-index options apply too; these override them)")
    parser.add_argument("--output-dir", help="write the sidecars here (as <file name>.index) instead of "
                                             "next to the data files (where they stop spark.read.parquet of the "
                                             "folder); spark scan/verify --index-dir DIR find them there; a local "
                                             "folder, required for a table on an object store")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing sidecars (default: keep them, but rebuild a stale one: its data file "
                             "rewritten since, as its source record, else its time, says)")
    add_external_paths_argument(parser)
    add_storage_options_argument(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per data file, then a summary")


def run(args: argparse.Namespace) -> int:
    from fileindex.arrow.data_files import data_file_format
    from fileindex.pipeline.build import check_build_outputs
    from fileindex.pipeline.inputs import given_paths, resolve_inputs
    from fileindex.spark import build_indexes
    from fileindex.spark.progress import finish
    from fileindex.writing.options import check_schema_free

    options = parse_key_values(args.option, "--option", "file-index.bitmap.columns=name")
    check_schema_free(options)  # before Spark starts, not once per file
    refuse_sidecars_on_a_store(args.inputs, args.output_dir)
    inputs = resolve_inputs(args.inputs, snapshot=args.snapshot, index_dir=args.output_dir,
                            external_roots=tuple(args.external_roots))
    check_build_outputs(given_paths(args.inputs), inputs, output_dir=args.output_dir, overwrite=args.overwrite)
    rows = [row.asDict() for row in build_indexes(session(args), inputs, options, output_dir=args.output_dir,
                                                  overwrite=args.overwrite, snapshot=args.snapshot).collect()]
    rows.sort(key=lambda r: r["file"])
    finish()  # the jobs' last progress line before the results, not after them
    counts = {status: sum(r["status"] == status for r in rows)
              for status in ("written", "rebuilt", "kept", "failed")}
    for row in rows:
        if args.json:
            print(json.dumps({**row, **{k: json.loads(row[k]) for k in ("indexes", "bloom", "advice")}},
                             ensure_ascii=False))
        else:
            print(render(row))
    summary = {"files": len(rows), **counts, "bytes": sum(r["bytes"] or 0 for r in rows),
               "rows": sum(r["rows"] or 0 for r in rows)}
    beside = [r for r in rows if r["status"] in ("written", "rebuilt")] if not args.output_dir else []
    if beside:
        formats = {data_file_format(r["file"]) for r in beside}
        print(BESIDE_DATA_NOTE.format(count=len(beside), format="orc" if formats == {"orc"} else "parquet"),
              file=sys.stderr)
    if args.json:
        print(json.dumps({"summary": summary}))
    else:
        rebuilt = f", {counts['rebuilt']} rebuilt (their data rewritten since)" if counts["rebuilt"] else ""
        print(f"{summary['files']} files: {counts['written']} written{rebuilt}, {counts['kept']} kept, "
              f"{counts['failed']} failed; {summary['rows']} rows, {summary['bytes']} index bytes")
    return 1 if counts["failed"] else 0


def refuse_sidecars_on_a_store(inputs: list[str], output_dir: str | None) -> None:
    """Sidecars are written beside the data files on the local disk: for a table or file on an object store,
    only into a local --output-dir (never a path made from the store's URI)."""
    from fileindex.errors import UsageError
    from fileindex.io.reach import names_a_store

    remote = next((given for given in inputs if names_a_store(given)), None)
    if remote is not None and (output_dir is None or names_a_store(output_dir)):
        raise UsageError(f"{remote} is on an object store: spark build writes sidecars to the local disk only; "
                         "give --output-dir DIR (a local folder), or build one file with fileindex build -o URI")


def render(row: dict) -> str:
    if row["status"] == "failed":
        return f"FAILED  {row['file']}: {row['error']}"
    if row["status"] == "kept":
        return f"kept    {row['output']} (exists; --overwrite replaces it)"
    sizes = ", ".join(f"{i['column']}:{i['index_type']} {i['bytes']} B" for i in json.loads(row["indexes"]))
    advice = "".join(f"\n        {a['column']}:{a['index_type']} {a['verdict']}: {a['advice']}"
                     for a in json.loads(row["advice"] or "[]"))
    where = "embedded in a manifest" if row["embedded"] else "sidecar"
    if row["status"] == "rebuilt":
        return f"rebuilt {row['output']} (its data file was rewritten since): {row['rows']} rows, {row['bytes']} B " \
               f"({sizes}); Paimon: {where}" + advice
    return f"written {row['output']}: {row['rows']} rows, {row['bytes']} B ({sizes}); Paimon: {where}" + advice
