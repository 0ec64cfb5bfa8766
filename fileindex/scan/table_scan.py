"""Reading a Paimon table's rows from Python, pruned and filtered exactly, as a lazy Arrow stream that pandas,
DuckDB and Polars consume.

``PaimonTable(path).scan(where, columns, limit)`` is a ``TableScan``: planned once, on first use, through
the funnel of ``scan.planner`` (partition, bucket, statistics, file index, deletion vectors;
``explain`` shows it), then read as often as asked. Every stage is sound, and the rows read are filtered
exactly with the project's predicate semantics (``scan.truth``), so the result never depends on an
index. Each kept file is read by the same per-file reader as the Spark data source
(``scan.reader.read_verdict``): the index's row selection, the predicate's columns first, the other
columns only for row groups with matches. Files are read a few at a time on threads (pyarrow decodes
without the GIL); memory is bounded by the files in flight.
"""
from __future__ import annotations

from collections import deque
from fileindex.frozen import replace
from functools import partial
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from fileindex.errors import UsageError, resource_errors
from fileindex.indexes.result import Rows
from fileindex.parallel import Read, reader_pool, side_by_side, threads
from fileindex.scan.funnel import Explain, FileRead, Stage, explain
from fileindex.scan.task import Inputs
from fileindex.scan.planner import ScanPlanner, evaluate_tasks
from fileindex.scan.reader import (
    DENSE_SURVIVORS,
    names_nanos,
    output_schema,
    read_candidates,
    read_verdict,
    selected_schema,
    selection,
)
from fileindex.scan.truth import filtered
from fileindex.predicate.parser import to_sql
from fileindex.predicate.tree import Predicate, and_

if TYPE_CHECKING:
    from fileindex.scan.answers import OrderBy

    from fileindex.scan.table import PaimonTable


class TableScan:
    """A scan of one snapshot of a table; planned once, on first use, and read as often as asked."""

    @resource_errors  # (here, plan and _batches: where the public API is entered and left)
    def __init__(self, table: PaimonTable, where: str | Predicate | None = None,
                 columns: Sequence[str] | None = None, limit: int | None = None,
                 order_by: str | OrderBy | None = None):
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
            raise UsageError(f"limit={limit!r}: give a whole number of rows, 0 or more")
        if isinstance(columns, str):
            raise UsageError(f"columns={columns!r}: give a list of column names, e.g. "
                             f"{[name.strip() for name in columns.split(',')]!r}")
        self.table = table
        self.types = table.schema.types()
        self.where = where if isinstance(where, str) or where is None else str(where)
        self.predicate = None if where is None else table.predicate_of(where)
        self.limit = limit
        full = output_schema(Inputs([], table))
        self.columns = list(columns) if columns is not None else list(full.names)
        wanted = selected_schema(full, self.columns, self.predicate) if self.predicate is not None \
            else selected_schema(full, self.columns, and_())
        self.read_schema = wanted  # the selected columns, then the predicate's for the exact filter
        self.schema = pa.schema([wanted.field(name) for name in self.columns])
        self.order = None if order_by is None else _order(order_by, self.types)  # (the rows' order: top-N)
        self._planned: list[FileRead] | None = None
        self._exact = False  # the plan's verdicts say whether they are exact (count, top-N)
        self._dense = False  # a read found most rows matching: later files are read whole, then filtered
        self._stages: tuple[Stage, ...] = ()

    def __repr__(self) -> str:
        parts = [f"{self.table.root}", f"snapshot={self.table.snapshot.id}"]
        parts += [f"where={self.where!r}"] if self.where else []
        parts += [f"columns={self.columns!r}"] if self.columns != [f.name for f in self.table.schema.fields] else []
        parts += [f"order_by={str(self.order)!r}"] if self.order is not None else []
        parts += [f"limit={self.limit}"] if self.limit is not None else []
        return f"TableScan({', '.join(parts)})"

    # -- planning -------------------------------------------------------------------------------------

    @resource_errors
    def plan(self, *, exact: bool = False) -> list[FileRead]:
        """Every live data file, each with what is read of it and why (skipped files too); ``exact``: each
        verdict also says whether its rows are exactly the matching ones (``FileRead.exact``: what a count or a
        top-N takes from the index; planned again if the plan did not say it)."""
        if self._planned is None or (exact and not self._exact):
            kept = self.table.plans.get(self.predicate, exact=exact)
            if kept is None:  # (a table reads one snapshot: a predicate's plan is kept for the next scan)
                evaluate = partial(evaluate_tasks, exact=True) if exact else None
                planned, stages = ScanPlanner(self.table, self.predicate, evaluate=evaluate).plan()
                kept = ((tuple(planned), stages), exact)
                self.table.plans.put(self.predicate, kept[0], exact=exact)
            (reads, self._stages), self._exact = kept
            self._planned = list(reads)
        return list(self._planned)

    def explain(self, *, count: bool = False) -> Explain:
        """The pruning funnel; ``count``: as ``count()`` plans it, with how each file's part of the count is found
        (by metadata, by index, or by reading which columns)."""
        if not count:  # (what ``fileindex spark scan --explain`` prints too)
            return replace(explain(self.table, self.where, self.predicate, self.plan(), self._stages),
                           limit=self.limit)
        from fileindex.scan.answers import answered, count_columns

        files = self.plan(exact=True)
        answers = tuple(answered(item, self.table, count_columns(self)) for item in files)
        return replace(explain(self.table, self.where, self.predicate, files, self._stages), answers=answers,
                       limit=self.limit)

    @resource_errors
    def count(self) -> int:
        """The number of rows the scan returns, from the metadata and the indexes where they say it exactly,
        else reading only the predicate's columns (``scan.answers``)."""
        from fileindex.scan.answers import count_rows

        return count_rows(self)

    # -- reading --------------------------------------------------------------------------------------

    def to_batches(self) -> pa.RecordBatchReader:
        """The rows, file after file, as a lazy stream (planning happens on the first batch): one file is read
        ahead of the consumer (``read_window``)."""
        return pa.RecordBatchReader.from_batches(self.schema, self._batches())

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule stream interface: each call is a new read (DuckDB and Polars call it)."""
        return self.to_batches().__arrow_c_stream__(requested_schema)

    def to_arrow(self) -> pa.Table:
        return pa.RecordBatchReader.from_batches(self.schema, self._batches(streamed=False)).read_all()

    def to_pandas(self, **kwargs):
        _require("pandas", "spark", alone=True)
        return self.to_arrow().to_pandas(**kwargs)

    def to_duckdb(self, connection=None, name: str | None = None):
        """A DuckDB relation over the scan in ``connection`` (default: DuckDB's default connection, the one
        ``duckdb.sql`` uses); with ``name``, also a view of that name there. Each query streams the table again,
        pruned by the query's WHERE and narrowed to its columns (``scan.duckdb_source``)."""
        _require("duckdb", "duckdb")
        import duckdb

        from fileindex.scan.duckdb_source import duckdb_relation

        return duckdb_relation(self, connection if connection is not None else duckdb.default_connection(), name)

    def to_polars(self):
        """A Polars LazyFrame (an IO plugin, planned now): Polars' projection, row limit and filter are pushed
        into the scan, which prunes by the filter as ``where`` does (``scan.polars_source``)."""
        _require("polars", "polars")
        from fileindex.scan.polars_source import polars_frame

        return polars_frame(self)

    def narrowed(self, predicate: Predicate | None, columns: Sequence[str], limit: int | None,
                 order: OrderBy | None = None) -> TableScan:
        """A scan of the same snapshot with ``predicate``, ``columns``, ``limit`` and ``order`` (this scan's plan,
        where the predicate is this scan's)."""
        scan = TableScan(self.table, predicate, columns, limit, order)
        if predicate == self.predicate:
            scan._planned, scan._stages, scan._exact = self.plan(), self._stages, self._exact
        elif predicate is not None:
            scan.where = to_sql(predicate, self.types)
        return scan

    def _read_group(self, item: FileRead) -> pa.Table:
        """The rows of a data-evolution group: each column from the newest file that wrote it (by field id),
        then the exact filter."""
        assert item.verdict is not None
        rows = selection(item.verdict, None)
        columns: dict[str, pa.ChunkedArray] = {}
        for task in item.group:
            ids = {f.id for f in self.table.data_schema(task.table_entry()).fields}
            own = [f for f in self.read_schema if f.name not in columns
                   and self.table.schema.by_name()[f.name].id in ids]
            if own:
                part = read_candidates(task, rows, pa.schema(own))
                columns.update((name, part.column(name)) for name in part.column_names)
        count = item.rows
        table = pa.Table.from_arrays([columns[f.name] if f.name in columns else pa.nulls(count, type=f.type)
                                      for f in self.read_schema], schema=self.read_schema)
        if self.predicate is not None:
            table = filtered(table, self.predicate, self.types)
        return table

    @resource_errors
    def _batches(self, *, streamed: bool = True) -> Iterator[pa.RecordBatch]:
        """The rows; ``streamed``: for a consumer taking them batch by batch (else all are kept: ``to_arrow``),
        which sets how many files are read ahead of it (``read_window``)."""
        left = self.limit
        if left == 0:
            return
        if self.order is not None:
            from fileindex.scan.answers import top_rows

            yield from top_rows(self, self.order).to_batches()
            return
        reads = [f for f in self.plan() if f.read in ("all", "rows")]
        merged = bool(reads) and reads[0].merge is not None
        for table in self._merged(reads) if merged else self._in_order(reads, streamed):
            if left is not None:
                table = table.slice(0, min(left, table.num_rows))  # (a limit past Arrow's 64 bits: all rows)
                left -= table.num_rows
            yield from table.select(self.columns).to_batches()
            if left == 0:
                return

    def _in_order(self, reads: list[FileRead], streamed: bool) -> Iterator[pa.Table]:
        """The reads' tables in order: on local files as ``read_window`` says; on a store, more files in flight
        than the cores (a read waits on round trips most of its time), as many as ``STORE_READERS`` and
        ``STORE_BYTES_IN_FLIGHT`` allow."""
        if not self.table.store.remote:
            return _in_order(self._read_file, reads, *read_window(streamed))
        return _in_order(self._read_file, reads, max(threads(), STORE_READERS),
                         weight=_file_bytes, budget=STORE_BYTES_IN_FLIGHT)

    def _merged(self, reads: list[FileRead]) -> Iterator[pa.Table]:
        """A primary-key table's rows, bucket after bucket, streamed out of each bucket's merge (a few buckets
        read ahead on threads)."""
        from fileindex.scan.primary_keys import read_buckets

        yield from read_buckets(reads, self.read_schema, self.predicate, self.types, threads())

    def _read_file(self, item: FileRead) -> pa.Table:
        task, verdict = item.task, item.verdict
        assert task is not None and verdict is not None
        if item.group:
            return self._read_group(item)
        probe = not self._dense
        table = read_verdict(task, verdict, self.read_schema, self.predicate, self.types, exact=True, probe=probe)
        if probe and self.predicate is not None and not isinstance(verdict.result, Rows):
            # most rows matching: probing the predicate's columns first costs a second read of every file
            self._dense = self._dense or table.num_rows * DENSE_SURVIVORS > item.rows
        if self.predicate is not None and names_nanos(self.predicate, self.types):
            table = filtered(table, self.predicate, self.types)  # (read_verdict leaves these)
        return table


# ------------------------------------------------------------------------------------- helpers

# reader threads for a table on an object store, and the bytes the files queued may hold (their sizes, as the
# manifest says): a read there waits on round trips (its footer, then its chunks) more than it decodes, so it
# overlaps with the next files' requests; the bytes bound what they hold at once (a table waits for its turn)
STORE_READERS = 8
STORE_BYTES_IN_FLIGHT = 128 << 20


def _file_bytes(item: FileRead) -> int:
    """A file read's bytes as its manifest entry says (where it does not say, a reader thread's share of the
    budget: a read of unknown size is never free)."""
    entry = item.task.entry if item.task is not None else None
    size = entry.file_size if entry is not None else None
    return size if size else STORE_BYTES_IN_FLIGHT // STORE_READERS


def read_window(streamed: bool) -> tuple[int, int]:
    """(reader threads, reads queued ahead of the consumer) of a scan's file-by-file read (``_in_order``). A
    whole read (``to_arrow``) keeps every thread busy, two reads queued a thread. A streamed one (``to_batches``,
    the engines' streams, the command line) has one thread read one file ahead, what a consumer working on the
    file before needs: each thread that reads grows its own heap in the reads' pool (``arrow.pools``), freed
    memory it keeps, so threads and files in flight set the peak (#54: 10M rows streamed peaked at 197 MiB with 2
    threads and 4 files queued, 145 MiB with one and one, at the same CPU)."""
    workers = threads()
    if workers <= 1:
        return 0, 0  # (one core: every file read by the consumer)
    return (1, 1) if streamed else (workers, 2 * workers)


def _in_order(read: Callable[[FileRead], pa.Table], items: list[FileRead], workers: int, ahead: int | None = None,
              *, weight: Callable[[FileRead], int] | None = None, budget: int = 0) -> Iterator[pa.Table]:
    """``read`` of each item, in order, on the process's ``workers`` reader threads (``parallel.reader_pool``;
    none: all read by the consumer), ``ahead`` reads queued (default twice ``workers``: a thread that finishes
    goes on while the consumer waits for an earlier file) and with ``weight``, no more than ``budget`` of it
    queued (one read at least); a consumer that stops early cancels the reads not started and waits for those
    started (the threads are kept: no file is opened after the stream is closed).

    The consumer waits on the threads only for work it cannot do itself: while the next file is not read yet,
    it reads a queued file no thread has started (the next one first; on a busy machine the threads may be
    waiting for a core), and blocks only when every queued read has started."""
    if workers < 1 or len(items) < 2:
        yield from map(read, items)
        return
    pool = reader_pool(workers)
    pending: deque[tuple[Read, FileRead]] = deque()
    weigh = weight or (lambda item: 0)
    queued, following = 0, 0  # (the weight of the reads pending; the next item to submit)
    window = 2 * workers if ahead is None else max(1, ahead)

    def submit() -> None:
        nonlocal queued, following
        while following < len(items) and len(pending) < window and (
                not pending or queued + weigh(items[following]) <= budget or weight is None):
            item = items[following]
            pending.append((pool.submit(read, item), item))
            queued, following = queued + weigh(item), following + 1

    try:
        submit()
        while pending:
            while not pending[0][0].done() and _read_one_here(read, pending):
                pass
            future, item = pending.popleft()
            table = future.result()
            queued -= weigh(item)
            submit()
            yield table
    finally:
        for started in [future for future, _ in pending if not future.cancel()]:
            try:
                started.result()  # (waited for; its outcome is no longer wanted)
            except Exception:
                pass


def _read_one_here(read: Callable[[FileRead], pa.Table], pending: deque[tuple[Read, FileRead]]) -> bool:
    """Read the first queued item no thread has started in this thread (its future then holds the outcome, an
    error raised where the consumer reaches it); False when every queued read has started."""
    for position, (future, item) in enumerate(pending):
        if future.cancel():  # (only a read not started can be cancelled)
            here = Read(partial(read, item))
            with side_by_side():
                here.run()
            pending[position] = (here, item)
            return True
    return False


def _order(order_by: str | OrderBy, types: dict) -> OrderBy:
    from fileindex.scan.answers import parse_order

    return parse_order(order_by, types)


def _require(module: str, extra: str, *, alone: bool = False) -> None:
    """A one-line UsageError, naming what to install (the package's ``extra``; ``alone``: only the extra's
    requirement of ``module``, as pandas of ``spark``), where an optional engine is missing."""
    import importlib.util

    from fileindex.extras import install_hint

    if importlib.util.find_spec(module) is None:
        raise UsageError(f"this needs {module}, which is not installed: "
                         f"{install_hint(extra, module if alone else None)}")


