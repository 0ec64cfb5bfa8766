"""``fileindex read TABLE_PATH [--where EXPR] [--select a,b] [--order-by COL [DESC]] [--limit N] [--count]``: a
Paimon table's rows (or their number), pruned by partition, file index and deletion vectors and filtered exactly
(``PaimonTable.scan``)."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from fileindex.cli import (HANDLED, add_external_paths_argument, add_snapshot_argument, note_index_problems,
                           note_null_comparisons, note_unread_level_0, pad, printable, report_failure, whole_number)
from fileindex.storage_args import add_storage_options_argument
from fileindex.errors import UsageError

NAME = "read"
HELP = ("read a Paimon table's rows, pruned by its partitions, file indexes and deletion vectors and filtered "
        "exactly: printed, or written to a Parquet, CSV or JSON-lines file")
SHOWN_ROWS = 20
FORMATS = (".parquet", ".csv", ".jsonl")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help="the table root (the folder holding snapshot/, schema/, manifest/): a path or "
                                      "a URI (s3://, gs://, abfs://, ...)")
    parser.add_argument("--where", metavar="EXPR", action=GivenOnce,
                        help="a predicate over the table's columns (default: every row)")
    parser.add_argument("--select", metavar="COLUMNS", action=GivenOnce,
                        help="the columns to read, comma-separated (default: all)")
    parser.add_argument("--limit", type=row_limit, metavar="N", action=GivenOnce,
                        help=f"at most N rows (default: all; printed: the first {SHOWN_ROWS} unless --limit)")
    parser.add_argument("--order-by", metavar="ORDER", action=GivenOnce,
                        help="the rows in this order: a column, then ASC or DESC and NULLS FIRST or LAST if wanted "
                             "(default: nulls smallest, as Spark); with --limit N the top N rows, from the "
                             "range-bitmap or bsi index where it answers")
    parser.add_argument("--count", action="store_true",
                        help="print the number of rows instead, from the metadata and the file indexes where they "
                             "say it exactly, else reading only the predicate's columns (with --explain: how each "
                             "file is counted, then the count)")
    add_snapshot_argument(parser)
    add_external_paths_argument(parser)
    add_storage_options_argument(parser)
    parser.add_argument("--output", metavar="FILE", action=GivenOnce,
                        help="write the rows to FILE instead: .parquet, .csv or .jsonl (a new file, written whole)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --output file")
    parser.add_argument("--explain", action="store_true",
                        help="print the pruning funnel (stages, and per data file what is read and why) instead: a "
                             "plan, reading no row (with --count: the count read too, so a merge that fails fails)")
    parser.add_argument("--json", action="store_true",
                        help='JSON lines: one object per row (with --explain: the funnel; with --count: '
                             '{"count": N}; with both: the funnel and "count")')
    parser.add_argument("--progress", action="store_true",
                        help="show on stderr, as they happen, the plan (the data files to read) and the rows read "
                             "so far: as whole lines when it is not a terminal, else a line redrawn in place "
                             "(without --progress: on a terminal only, once a read takes a second)")


class GivenOnce(argparse.Action):
    """An option given twice: refused (argparse keeps the last, so the first would be dropped unsaid)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest, None) is not None:
            hint = {"where": ", the conditions joined by AND: --where \"A AND B\"",
                    "select": ", the columns separated by commas: --select a,b"}.get(self.dest, "")
            raise argparse.ArgumentError(self, f"given twice: give it once{hint}")
        setattr(namespace, self.dest, values)


def row_limit(text: str) -> int:
    """``--limit``'s value: a whole number of rows, 0 or more."""
    return whole_number(text, "is not a number of rows: give 0 or more")


def run(args: argparse.Namespace) -> int:
    from fileindex import PaimonTable

    try:
        refuse_ignored_options(args)
        if args.output:
            check_output_file(args.output, args.table, overwrite=args.overwrite)
        table = PaimonTable(args.table, args.snapshot, external_roots=args.external_roots)
        columns = [c.strip() for c in args.select.split(",")] if args.select is not None else None
        if columns is not None and not all(columns):
            raise UsageError(f"--select {args.select!r}: a column name is empty; give names separated by commas")
        limit = args.limit if args.limit is not None or args.output or args.explain or args.json else SHOWN_ROWS + 1
        scan = table.scan(args.where, columns, args.limit if args.count else limit, order_by=args.order_by)
        note_null_comparisons(NAME, args.where, scan.predicate)
        if args.explain:
            explained = scan.explain(count=args.count)
            counted = {"count": scan.count()} if args.count else {}  # (first: a merge that fails prints no funnel)
            if not args.count:
                note_merge_unchecked(table.schema, explained)
            if args.json:
                print(json.dumps({**explained.as_dict(), **counted}, ensure_ascii=False))
                return 0
            print(explained, flush=True)
            if args.count:
                print(f"count: {counted['count']}")
            return 0
        if args.count:
            count = scan.count()
            print(json.dumps({"count": count}) if args.json else count)
        else:
            progress = Progress(args.progress)
            if args.order_by is None and args.limit != 0:  # (a top-N plans with its exact verdicts; 0 rows, none)
                progress.plan(scan)
            if args.output:
                rows = write_rows(scan, args.output, progress)
                print(f"wrote {rows:,} row{'s' if rows != 1 else ''} to {args.output}", file=sys.stderr)
            else:
                print_rows(scan, progress, as_json=args.json, limited=args.limit is not None)
        note_index_problems(scan, NAME)
        note_unread_level_0(scan, NAME)
    except HANDLED as err:
        return report_failure(NAME, err, args.table)
    return 0


def note_merge_unchecked(schema, explained) -> None:
    """``--explain`` plans without merging: where the table's merge may refuse a retraction (an aggregate that
    cannot take one back) and a bucket it keeps has files whose retractions the manifest does not count as none,
    one line on stderr saying the plan cannot tell whether the read fails, and what can."""
    if not schema.primary_keys:
        return
    from fileindex.merge.spec import deciding_columns, merge_spec

    fields = deciding_columns(merge_spec(schema))
    merged = [task for item in explained.files if item.merge is not None and item.to_read for task in item.group]
    counts = [task.table_entry().delete_row_count for task in merged]
    if not fields or not any(count != 0 for count in counts):  # (no bucket read, or none with a retraction)
        return
    known = sum(count or 0 for count in counts)
    held = f"the files read hold {known:,} retraction{'s' if known != 1 else ''}" if None not in counts else \
        "the files read may hold retractions (their manifest does not count them)"
    print(f"fileindex {NAME}: --explain reads no row, so it cannot say whether the merge fails (the aggregate "
          f"of {', '.join(fields)} may refuse a retraction, and {held}): --count --explain merges, and fails as "
          "the read would", file=sys.stderr)


def refuse_ignored_options(args: argparse.Namespace) -> None:
    """Options a given combination would ignore are refused, never silently dropped."""
    if args.explain and args.output:
        raise UsageError("--explain prints the plan and reads no rows: give --output without --explain")
    if args.output and args.json:
        raise UsageError("--output writes the format its name says (.parquet, .csv, .jsonl): leave --json out")
    if args.overwrite and not args.output:
        raise UsageError("--overwrite goes with --output FILE")
    if args.count and (args.output or args.order_by or args.select or args.progress):
        raise UsageError("--count prints a number and reads no rows out: leave out "
                         + ", ".join(name for name, given in (("--output", args.output), ("--order-by", args.order_by),
                                                               ("--select", args.select), ("--progress", args.progress))
                                     if given))
    if args.progress and args.explain:
        raise UsageError("--explain reads no rows, so it has no progress to show: leave --progress out")


def check_output_file(output: str, table: str, *, overwrite: bool) -> None:
    """Refuse an output inside the table (or holding it), a folder, or an existing file unless ``overwrite``."""
    from fileindex.writing.outputs import collision

    if "://" in output:
        raise UsageError(f"--output {output}: name a local file (.parquet, .csv or .jsonl); rows are not written "
                         "to object stores")
    if not output.lower().endswith(FORMATS):
        raise UsageError(f"--output {output}: name a .parquet, .csv or .jsonl file")
    target = Path(output)
    collided = collision(output, [table])
    if collided is not None:
        linked = " (a symlink to a file there)" if target.is_symlink() else ""
        raise UsageError(f"--output {output}{linked} {collided[0]} the table {table}: name a file outside the table (a "
                         "read never writes into a table's folder, which only Paimon's writers change)")
    if target.is_symlink() or target.is_dir():
        raise UsageError(f"--output {output} is a {'symlink' if target.is_symlink() else 'folder'}: name a file")
    if target.exists() and not overwrite:
        raise UsageError(f"--output {output} exists; pass --overwrite to replace it, or choose another name")
    if not target.parent.is_dir():
        raise UsageError(f"--output {output}: no folder {target.parent}")


class Progress:
    """A read's progress on stderr: the plan (how many data files are read of how many), then the rows read so
    far, at most one line a second. With ``--progress`` (``off_terminal``) every line as it happens, as whole lines
    off a terminal; without, on a terminal only, once the read has taken a second, a line redrawn in place."""

    def __init__(self, off_terminal: bool = False, stream=None):
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty()
        self.eager = off_terminal
        self.shown_at_all = self.terminal or off_terminal
        self.started = time.perf_counter()
        self.shown: float | None = None  # when a rows line was last shown
        self.rows = 0
        self.rows_said: int | None = None  # the count the last rows line gave
        self.printed = False

    def plan(self, scan) -> None:
        """Plan ``scan`` (what its read would do first), saying so before and what the plan reads after."""
        self.say(f"planning the read of snapshot {scan.table.snapshot.id}")
        files = scan.plan()
        reads = [item for item in files if item.to_read]
        read = sum(item.data_files_read for item in reads)
        rows = sum(item.rows for item in reads)
        self.say(f"{read:,} of {len(files):,} data files to read ({rows:,} rows before the exact filter), planned "
                 f"in {time.perf_counter() - self.started:.1f} s")

    def add(self, rows: int) -> None:
        self.rows += rows
        if not self.shown_at_all:
            return
        now = time.perf_counter()
        if (self.shown is None or now - self.shown > 1) and (self.eager or now - self.started > 1):
            self._say_rows()
            self.shown = now

    def _say_rows(self) -> None:
        self.say(f"{self.rows:,} row{'' if self.rows == 1 else 's'} read")
        self.rows_said = self.rows

    def say(self, text: str) -> None:
        if self.eager or (self.terminal and time.perf_counter() - self.started > 1):
            text = f"fileindex {NAME}: {text}"
            self.stream.write(f"\r{text}\033[K" if self.terminal else f"{text}\n")
            self.stream.flush()
            self.printed = True

    def done(self) -> None:
        if self.printed and self.rows_said != self.rows:  # (the lines are at most one a second: the last says all)
            self._say_rows()
        if self.printed and self.terminal:  # what comes next starts a line of its own
            self.stream.write("\n")
            self.stream.flush()


def write_rows(scan, output: str, progress: Progress) -> int:
    """Stream the scan into ``output`` under a temporary name, renamed into place when complete."""
    import pyarrow.csv
    import pyarrow.parquet

    from fileindex.arrow.compute import python_rows

    target = Path(output)
    temporary = target.with_name(f".{target.name}.{os.urandom(16).hex()}.tmp")
    suffix = output.lower()
    try:
        with open(temporary, "wb") as out:
            if suffix.endswith(".parquet"):
                writer: Any = pyarrow.parquet.ParquetWriter(out, scan.schema)
            elif suffix.endswith(".csv"):  # (timestamps, times and bytes as read prints them: Arrow's text differs)
                writer = pyarrow.csv.CSVWriter(out, _csv_text(scan.schema.empty_table()).schema)
            else:
                writer = None
            precisions = temporal_precisions(scan)
            try:
                for batch in scan.to_batches():
                    if isinstance(writer, pyarrow.csv.CSVWriter):
                        writer.write_batch(_csv_text(batch, precisions))
                    elif writer is not None:
                        writer.write_batch(batch)
                    else:
                        out.write("".join(json.dumps(row, ensure_ascii=False, default=str) + "\n"
                                          for row in python_rows(batch, precisions)).encode())
                    progress.add(batch.num_rows)
            finally:  # (closed here, while the file is open: never by a finalizer after an interrupt)
                if writer is not None:
                    writer.close()
        os.replace(temporary, target)
    except OSError as err:
        if err.filename in (str(temporary), str(target)):  # (a write, not the table's read, failed)
            raise UsageError(f"--output {output}: cannot write it: {err.strerror or err}") from None
        raise
    finally:
        progress.done()
        temporary.unlink(missing_ok=True)
    return progress.rows


def _csv_text(batch, precisions: dict[str, int] | None = None):
    """``batch`` as a CSV file holds it: temporal columns as read prints them, and BYTES as Python's literal of
    them (``b'a\\x00b'``, as read and ``--json`` print them): Arrow's CSV writer writes their raw bytes, which can
    be invalid UTF-8 (refused) or hold NUL and line breaks."""
    import pyarrow as pa

    from fileindex.arrow.compute import temporal_columns_text

    batch = temporal_columns_text(batch, precisions)
    for i, field in enumerate(batch.schema):
        if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type) or \
                pa.types.is_fixed_size_binary(field.type):
            text = pa.array([None if value is None else repr(value) for value in batch.column(i).to_pylist()],
                            pa.string())
            batch = batch.set_column(i, field.with_type(pa.string()), text)
    return batch


def print_rows(scan, progress: Progress, *, as_json: bool, limited: bool) -> None:
    from fileindex.arrow.compute import python_rows

    rows: list[dict] = []
    precisions = temporal_precisions(scan)
    for batch in scan.to_batches():
        if as_json:
            for row in python_rows(batch, precisions):
                print(json.dumps(row, ensure_ascii=False, default=str))
        else:
            rows += python_rows(batch, precisions)
        progress.add(batch.num_rows)
    progress.done()
    if as_json:
        return
    more = not limited and len(rows) > SHOWN_ROWS
    shown = rows[:SHOWN_ROWS] if more else rows
    names = scan.schema.names
    cells = [[_cell(row[name]) for name in names] for row in shown]
    headers = [printable(name) for name in names]
    widths = [max([len(name)] + [len(line[i]) for line in cells]) for i, name in enumerate(headers)]
    print("  ".join(pad(name, width) for name, width in zip(headers, widths, strict=True)).rstrip())
    for line in cells:
        print("  ".join(pad(cell, width) for cell, width in zip(line, widths, strict=True)).rstrip())
    count = f"more than {SHOWN_ROWS} rows (the first {SHOWN_ROWS} shown; --limit N or --output FILE for more)" \
        if more else f"{len(rows):,} row{'s' if len(rows) != 1 else ''}"
    print(count, file=sys.stderr)


def temporal_precisions(scan) -> dict[str, int]:
    """The Paimon precision of each TIME and TIMESTAMP column: the digits shown after the second."""
    return {name: data_type.precision for name, data_type in scan.types.items()
            if data_type.precision is not None and (data_type.is_timestamp or data_type.root == "TIME")}


def _cell(value) -> str:
    text = "NULL" if value is None else printable(str(value))
    return text if len(text) <= 40 else text[:39] + "…"
