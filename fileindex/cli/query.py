"""``fileindex query FILE --schema ... --where EXPR [--where EXPR ...]``: Paimon's answer per predicate."""
from __future__ import annotations

import argparse
import json
import sys

from fileindex.cli import HANDLED, column_types, report_failure
from fileindex.storage_args import add_storage_options_argument
from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError

NAME = "query"
HELP = "evaluate predicates over a container as Paimon does: REMAIN, SKIP or the candidate rows"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_storage_options_argument(parser)
    parser.add_argument("file", help="a file-index container")
    column_types.add_arguments(parser)
    parser.add_argument("--where", action="append", required=True, metavar="EXPR",
                        help="a predicate, e.g. \"id = 5 AND name IN ('a', 'b')\"; "
                             "repeat for more (each answered on its own)")
    parser.add_argument("--mode", choices=("java", "extended"), default="java",
                        help="java (default): Java's answers; extended: also sound tighter answers (bitmap ranges)")
    parser.add_argument("--json", action="store_true", help="one JSON object per predicate, in order")
    parser.add_argument("--lenient", action="store_true",
                        help="answer REMAIN for a malformed index body instead of failing (exit 3)")


def describe(answer: dict) -> str:
    if answer["result"] != "ROWS":
        return answer["result"]
    if not answer["cardinality"]:
        return "ROWS 0 (no candidate row)"
    shown = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in answer["ranges"][:8])
    more = " ..." if len(answer["ranges"]) > 8 else ""
    return f"ROWS {answer['cardinality']}: {shown}{more}"


def run(args: argparse.Namespace) -> int:
    from fileindex.indexes.registry import recorded_row_count
    from fileindex.indexes.result import REMAIN, result_json
    from fileindex.predicate.evaluation import FileIndexEvaluator
    from fileindex.predicate.parser import parse_predicate

    read: dict = {}
    try:
        column_types.refuse_data_file(args.file)
        container = FileIndexContainer.open(args.file)  # (a file that is not there is the first thing to fix)
        schema, read = column_types.resolve_read(NAME, args, args.file)
        if schema is None:
            raise UsageError("give the column types: --schema \"c INT, ...\", --data DATA_FILE or --table ROOT")
        predicates = [parse_predicate(text, schema) for text in args.where]
        refuse_unheld_columns(args.where, predicates, container.columns, read)
        warn_null_comparisons(NAME, args.where, predicates)
        warn_no_indexed_column(args.file, container.columns, schema)
        row_count = recorded_row_count(container)
        stale = stale_note(args.file)
        evaluator = FileIndexEvaluator(schema, extended=args.mode == "extended", lenient=args.lenient)
        for text, (result, malformed) in zip(args.where, evaluator.evaluate_many(container, predicates), strict=True):
            result = REMAIN if stale else within_row_count(args.file, text, result, row_count)
            answer = result_json(result)
            print(json.dumps(answer) if args.json else f"{text}  =>  {describe(answer)}")
            for err in malformed:  # only in --lenient mode: each broken body answered REMAIN
                print(f"fileindex query: {args.file}: answered REMAIN for {lenient_note(err)}", file=sys.stderr)
    except HANDLED as err:
        told = column_types.told_data_type(column_types.named_folder(args.file, err), read)
        return report_failure(NAME, told, args.file)
    return 0


def lenient_note(err: Exception) -> str:
    """What a body answered REMAIN under ``--lenient`` is: for one built for another type, what to write (not what
    failed decoding it, which ``check --schema`` tells)."""
    from fileindex.errors import SchemaMisfitError
    from fileindex.indexes.type_fit import misfit_message

    if isinstance(err, SchemaMisfitError) and err.index_type:
        return f"a body built for another type: {misfit_message(err.column, err.given, err.index_type, err.fits, '')}"
    return f"{'a body built for another type' if isinstance(err, UsageError) else 'a malformed body'}: {err}"


def stale_note(index_file: str) -> str | None:
    """Why a sidecar is not used (it is older than the data file beside it), said on stderr once; its answers are
    then REMAIN, as a scan reads such a file whole. (``--data`` names where types come from: an index elsewhere,
    a copy or Java's, has no time to compare with it.)"""
    from fileindex.io.staleness import stale_index_note

    data_file = column_types.data_file_beside(index_file)
    note = None if data_file is None else stale_index_note(data_file, index_file)
    if note:
        print(f"fileindex query: {index_file}: {note}; answered REMAIN", file=sys.stderr)
    return note


def within_row_count(file: str, text: str, result, row_count: int | None):
    """``result`` without the rows at or past the row count the container's bodies record (as ``table``
    answers within a data file's rows), saying so on stderr when a body claimed such rows."""
    from fileindex.indexes.result import Rows
    from fileindex.indexes.roaring import clipped

    if row_count is None or not isinstance(result, Rows) or not result.bitmap or result.bitmap.max() < row_count:
        return result
    print(f"fileindex query: {file}: {text}: an index body claims rows up to {result.bitmap.max()}, past the "
          f"{row_count} rows its container records; answered within those rows (fileindex check --schema names "
          "the body)", file=sys.stderr)
    return Rows(clipped(result.bitmap, row_count))


def refuse_unheld_columns(texts: list[str], predicates: list, indexed: list[str], read: dict) -> None:
    """A predicate on a column the index does not hold, and no data file or table given names, is a mistake (a
    misspelt name, another file's column) whose answer would be REMAIN: refused, naming the columns it holds."""
    from fileindex.predicate.tree import columns
    from fileindex.tokens import closest_name
    from fileindex.types import column_type

    for text, predicate in zip(texts, predicates, strict=True):
        for column in columns(predicate):
            if column in indexed or column_type(read, column) is not None:
                continue
            close = closest_name(column, indexed + list(read))
            meant = f" (did you mean {close}?)" if close else ""
            if read:  # (the data's types were read: the column is in neither)
                raise UsageError(f"{text}: neither the index nor the data has a column {column}{meant}; the index "
                                 f"holds {', '.join(indexed) or 'none'}, the data has {', '.join(read)}")
            raise UsageError(f"{text}: the index holds no column {column}{meant}; it holds "
                             f"{', '.join(indexed) or 'none'}; a column it does not index answers REMAIN: "
                             "to ask about one, give the data it indexes (--data DATA_FILE or --table ROOT), "
                             "which shows the column is real and not misspelt (--schema cannot)")


def warn_no_indexed_column(file: str, indexed: list[str], schema: dict) -> None:
    """A schema naming none of the container's columns is a mistake (another file's schema, a misspelt name): every
    answer is REMAIN, which is sound, so the answers stand and stderr says it in one line."""
    from fileindex.types import column_type, quote_identifier

    if indexed and all(column_type(schema, column) is None for column in indexed):
        plain = next((column for column in indexed if "[" not in column), None)  # not a map's key (m[k])
        example = f"--schema \"{quote_identifier(plain)} TYPE\"" if plain else "--schema"
        print(f"fileindex query: {file}: the schema names none of its indexed columns ({', '.join(indexed)}), so "
              f"every answer is REMAIN: give their types ({example}, --data DATA_FILE or --table ROOT)",
              file=sys.stderr)


def warn_null_comparisons(command: str, texts: list[str], predicates: list) -> None:
    """``c = NULL`` is answered as Java answers it (a bitmap gives the null rows), with a hint to write IS NULL."""
    from fileindex.predicate.tree import null_comparisons, null_tested

    for text, predicate in zip(texts, predicates, strict=True):
        tested = null_tested(predicate)
        for column in null_comparisons(predicate):
            hint = "" if column in tested else f"; for those, write {column} IS NULL"
            print(f"fileindex {command}: {text}: a comparison with NULL is never true in SQL, but Paimon's indexes "
                  f"answer it as Java does (a bitmap gives the null rows of {column}){hint}", file=sys.stderr)
