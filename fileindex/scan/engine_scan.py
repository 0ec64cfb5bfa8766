"""A table scan read for an engine that pushes its filter, projection and row limit into it: Polars' IO plugin
(``TableScan.to_polars``) and DuckDB's Arrow scan (``TableScan.to_duckdb``, :mod:`.duckdb_source`).

What the engine's filter lets the scan prune with (:mod:`.pushdown`, a predicate that holds wherever the
filter is TRUE) is added to the scan's own predicate: files and rows are pruned by both, as ``where`` prunes,
and the rows read are filtered exactly by both. A scan whose rows are limited (its ``limit``, or the engine's
row limit, which counts rows before the engine's filter) is the first rows of the scan, then the filter: the
window of those rows is found file by file (by the plan's row counts; a scan with a predicate reads that
predicate's columns to find its rows), and only the rows of the window the pushed predicate may keep are read.
A scan with ``order_by`` is its top-N rows in that order (``answers.top_rows``), then the engine's limit and filter.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import numpy as np
import pyarrow as pa

from fileindex.indexes import roaring
from fileindex.indexes.result import SKIP, Rows
from fileindex.scan.funnel import NO_INDEX, Explain, FileRead
from fileindex.scan.pushdown import ALL_ROWS, NO_ROWS, Bound, Selection
from fileindex.scan.reader import evaluate_file, merged_by_key, read_candidates, selection
from fileindex.scan.truth import filtered, matches, source_columns
from fileindex.predicate.tree import Predicate, and_
from fileindex.types import DataType


class Scan(Protocol):
    """What this module asks of a ``TableScan``."""

    table: Any
    predicate: Predicate | None
    types: dict[str, DataType]
    columns: list[str]
    schema: pa.Schema
    read_schema: pa.Schema
    limit: int | None
    order: Any  # an ``answers.OrderBy``, or None: the rows in file order

    def plan(self) -> list[FileRead]: ...

    def explain(self) -> Explain: ...

    def narrowed(self, predicate: Predicate | None, columns: Sequence[str], limit: int | None,
                 order: Any = None) -> Scan: ...

    def _batches(self) -> Iterator[pa.RecordBatch]: ...

    def __arrow_c_stream__(self, requested_schema=None) -> Any: ...


def engine_batches(scan: Scan, pushed: Selection, columns: Sequence[str],
                   limit: int | None) -> Iterator[pa.RecordBatch]:
    """The scan's ``columns``, its first ``limit`` rows if given (the scan's own limit applies too), leaving out
    rows where ``pushed`` does not hold."""
    limit = _least(scan.limit, limit)
    if pushed is NO_ROWS or limit == 0:
        return
    predicate = None if pushed is ALL_ROWS else pushed
    assert not isinstance(predicate, Bound)
    if scan.order is not None:
        yield from _ordered(scan, predicate, columns, limit)
    elif limit is None:
        yield from scan.narrowed(_both(scan.predicate, predicate), columns, None)._batches()
    elif scan.table.data_evolution or merged_by_key(scan.table):  # (a row from several files: the engine filters)
        yield from scan.narrowed(scan.predicate, columns, limit)._batches()
    else:
        yield from _window(scan, predicate, columns, limit)


def _both(a: Predicate | None, b: Predicate | None) -> Predicate | None:
    return a if b is None else b if a is None else and_(a, b)


def _ordered(scan: Scan, pushed: Predicate | None, columns: Sequence[str],
             limit: int | None) -> Iterator[pa.RecordBatch]:
    """An ordered scan's rows (its top-N, ``answers.top_rows``), the first ``limit`` of them, then those ``pushed``
    keeps: the engine's filter applies to the scan's rows, after their order and limit."""
    wanted = list(dict.fromkeys([*columns, *(source_columns(pushed, scan.columns) if pushed is not None else [])]))
    ordered = scan.narrowed(scan.predicate, wanted, _least(scan.limit, limit), scan.order)
    table = pa.Table.from_batches(list(ordered._batches()), schema=ordered.schema)
    if pushed is not None:
        table = filtered(table, pushed, scan.types)
    yield from table.select(list(columns)).to_batches()


def _window(scan: Scan, pushed: Predicate | None, columns: Sequence[str], limit: int) -> Iterator[pa.RecordBatch]:
    """The scan's first ``limit`` rows, file after file (only the files that hold them are opened), those
    ``pushed`` may keep."""
    combined = _both(scan.predicate, pushed)
    schema = scan.narrowed(combined, columns, None).read_schema
    left = limit
    for item in scan.plan():
        if left == 0:
            return
        if item.read not in ("all", "rows"):
            continue
        assert item.task is not None and item.verdict is not None  # (a read file has both)
        window = _scan_rows(scan, item)[:left]
        left -= len(window)
        if pushed is not None and len(window):  # (the scan's own predicate holds on the window's rows)
            result = evaluate_file(item.task, pushed).result
            if result is SKIP:
                continue
            if isinstance(result, Rows):
                window = window[np.isin(window, roaring.rows_array(result.bitmap), assume_unique=True)]
        if len(window):
            whole = len(window) == item.verdict.row_count  # (every row of the file: read it, not a selection)
            table = read_candidates(item.task, None if whole else window, schema)
            if pushed is not None:
                table = filtered(table, pushed, scan.types)
            yield from table.select(list(columns)).to_batches()


def _scan_rows(scan: Scan, item: FileRead) -> np.ndarray:
    """The positions of the file's rows the scan gives, ascending."""
    assert item.task is not None and item.verdict is not None
    rows = selection(item.verdict, item.task.deleted_rows())
    if rows is None:
        rows = np.arange(item.verdict.row_count, dtype=np.int64)
    if scan.predicate is None:
        return rows
    names = source_columns(scan.predicate, scan.read_schema.names)
    wanted = pa.schema([scan.read_schema.field(name) for name in names])
    probe = read_candidates(item.task, rows, wanted)
    return rows[matches(probe, scan.predicate, scan.types)]


def _least(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def funnel_line(explain: Explain) -> str:
    """The funnel on one line (Polars' ``explain_detail``)."""
    counted = "records" if explain.records else "rows"
    stages = [f"{s.name}: {NO_INDEX}" if s.no_index else
              f"{s.name} {s.files_before:,}->{s.files_after:,} files, {s.rows_before:,}->{s.rows_after:,} {counted}"
              for s in explain.stages]
    where = f" where {explain.where}" if explain.where else ""
    return f"snapshot {explain.snapshot}{where}: " + ("; ".join(stages) or "no data files")

