"""Reading a Paimon table's rows from Python: pruned by partition, file index and deletion vectors, filtered
exactly, as a lazy Arrow stream that pandas, DuckDB and Polars consume.

``PaimonTable(path).scan(where, columns, limit)`` plans the snapshot's live files through a funnel
(``explain``): the partition stage drops files whose partition values fail the predicate's partition
conjuncts; the file-index stage evaluates each file's index (embedded or sidecar) exactly as ``fileindex
table`` does, a missing or corrupt index keeping the whole file; the deletion-vector stage removes deleted
rows. Every stage is sound, and the rows read are then filtered exactly with the project's predicate
semantics (``pipeline.truth``), so the result never depends on an index. Each kept file is read by the same
per-file reader as the Spark data source (``pipeline.scan.read_verdict``): the index's row selection, the
predicate's columns first, the other columns only for row groups with matches. Files are read a few at a
time on threads (pyarrow decodes without the GIL); memory is bounded by the files in flight.
"""
from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import cast

import pyarrow as pa

from fileindex.arrow.types import arrow_type
from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.java.binary_row import fields as partition_fields
from fileindex.parallel import threads
from fileindex.pipeline.inputs import DataFileTask, Inputs, table_inputs
from fileindex.pipeline.polars_filters import pushed_conjuncts
from fileindex.pipeline.scan import (
    ScanVerdict,
    evaluate_file,
    names_nanos,
    output_schema,
    read_candidates,
    read_verdict,
    rows_to_read,
    scannable,
    selected_schema,
    selection,
)
from fileindex.pipeline.truth import matches
from fileindex.predicate.tree import And, Leaf, Or, Predicate, and_, columns
from fileindex.table import scan as table_scan
from fileindex.table.buckets import reachable_buckets
from fileindex.table.evolution import devolve
from fileindex.table.metadata import ValueStats, load_schema, schema_ids
from fileindex.table.statistics import Statistics, file_statistics

STAGES = ("partition", "bucket", "statistics", "file_index", "deletion_vectors")


@dataclass(frozen=True)
class FileRead:
    """One live data file of a scan: what is read of it, and why."""

    file: str  # relative to the table root, or its external path
    row_count: int
    index: str  # where its index lives: embedded, sidecar or none
    read: str  # "all" rows, "rows" (a row selection), "none" (skipped), or "merged" (into its group's first file)
    rows: int  # rows read: after the index's selection and the deletion vector
    why: str | Callable[[], str] = field(repr=False)  # the reason, or how to say it (only explain asks)
    skipped_by: str | None = None  # the stage that dropped it
    task: DataFileTask | None = field(default=None, repr=False, compare=False)
    verdict: ScanVerdict | None = field(default=None, repr=False, compare=False)
    group: tuple[DataFileTask, ...] = field(default=(), repr=False, compare=False)  # data evolution, newest first

    @property
    def reason(self) -> str:
        return self.why if isinstance(self.why, str) else self.why()

    def as_dict(self) -> dict:
        return {"file": self.file, "row_count": self.row_count, "index": self.index, "read": self.read,
                "rows": self.rows, "reason": self.reason, "skipped_by": self.skipped_by}


@dataclass(frozen=True)
class Stage:
    name: str
    files_before: int
    files_after: int
    rows_before: int
    rows_after: int
    manifests_skipped: int = 0  # (partition) manifests not read: their files are counted in no stage

    def as_dict(self) -> dict:
        return {"stage": self.name, "files_before": self.files_before, "files_after": self.files_after,
                "rows_before": self.rows_before, "rows_after": self.rows_after,
                **({"manifests_skipped": self.manifests_skipped} if self.manifests_skipped else {})}


@dataclass(frozen=True)
class Explain:
    """The pruning funnel of a scan: one stage per step, one row per data file. ``as_dict`` also carries
    pypaimon's ``ExplainResult`` keys (``partition_pruning``, ``bucket_pruning``, ``file_skipping``)."""

    table: str
    snapshot: int
    where: str | None
    stages: tuple[Stage, ...]
    files: tuple[FileRead, ...]
    indexes: tuple[tuple[str, ...], ...] = ()  # per file: its indexes on the predicate's columns, column:type

    def _pruning(self, name: str) -> dict:
        stage = next((s for s in self.stages if s.name == name), None)
        files = self.stages[0].files_before if self.stages else 0
        return {"before": stage.files_before if stage else files, "after": stage.files_after if stage else files}

    def as_dict(self) -> dict:
        return {"table": self.table, "snapshot": self.snapshot, "where": self.where,
                "stages": [s.as_dict() for s in self.stages],
                "files": [{**f.as_dict(), "indexes": list(indexes)}
                          for f, indexes in zip(self.files, self._indexes(), strict=True)],
                "partition_pruning": self._pruning("partition"), "bucket_pruning": self._pruning("bucket"),
                "file_skipping": self._pruning("file_index")}

    def _indexes(self) -> tuple[tuple[str, ...], ...]:
        return self.indexes or tuple(() for _ in self.files)

    def __str__(self) -> str:
        lines = [f"scan of {self.table} at snapshot {self.snapshot}" + (f" where {self.where}" if self.where else "")]
        for stage in self.stages:
            lines.append(f"  {stage.name:<17} files {stage.files_before:>6,} -> {stage.files_after:<6,} "
                         f"rows {stage.rows_before:>12,} -> {stage.rows_after:,}"
                         + (f"  ({stage.manifests_skipped:,} manifests not read)" if stage.manifests_skipped else ""))
        for item, indexes in zip(self.files, self._indexes(), strict=True):
            what = {"all": "read all rows", "rows": f"read {item.rows:,} of {item.row_count:,} rows",
                    "none": f"skipped by {item.skipped_by}", "merged": "columns read with its group"}[item.read]
            index = f"{item.index} {', '.join(indexes)}" if indexes else item.index
            lines.append(f"  {item.file}  index={index}  {what}  ({item.reason})")
        return "\n".join(lines)


class TableScan:
    """A scan of one snapshot of a table; planned once, on first use, and read as often as asked."""

    def __init__(self, table: table_scan.PaimonTable, where: str | Predicate | None = None,
                 columns: Sequence[str] | None = None, limit: int | None = None):
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
            raise UsageError(f"limit={limit!r}: give a whole number of rows, 0 or more")
        if isinstance(columns, str):
            raise UsageError(f"columns={columns!r}: give a list of column names, e.g. [{columns!r}]")
        self.table = table
        self.types = table.schema.types()
        self.where = where if isinstance(where, str) or where is None else str(where)
        self.predicate = table.parse(where) if isinstance(where, str) else where
        self.limit = limit
        full = output_schema(Inputs([], table))
        self.columns = list(columns) if columns is not None else list(full.names)
        wanted = selected_schema(full, self.columns, self.predicate) if self.predicate is not None \
            else selected_schema(full, self.columns, and_())
        self.read_schema = wanted  # the selected columns, then the predicate's for the exact filter
        self.schema = pa.schema([wanted.field(name) for name in self.columns])
        self._planned: list[FileRead] | None = None
        self._stages: tuple[Stage, ...] = ()

    # -- planning -------------------------------------------------------------------------------------

    def plan(self) -> list[FileRead]:
        """Every live data file, each with what is read of it and why (skipped files too)."""
        if self._planned is None:
            self._planned, self._stages = self._plan()
        return list(self._planned)

    def explain(self) -> Explain:
        files = self.plan()
        indexes = tuple(_indexes(f.task, self.predicate) if f.task is not None and self.predicate is not None
                        else () for f in files)
        return Explain(str(self.table.root), self.table.snapshot.id, self.where, self._stages, tuple(files),
                       indexes)

    def _plan(self) -> tuple[list[FileRead], tuple[Stage, ...]]:
        if self.table.data_evolution:
            return self._plan_groups()
        over_keys = _partition_predicate(self.table, self.predicate)
        skipped_manifests: list[bool] = []
        keep_manifest = None if over_keys is None else partial(_manifest_may_match, self.table, over_keys,
                                                               skipped_manifests)
        tasks = scannable(table_inputs(self.table, keep_manifest=keep_manifest))
        rows = sum(t.table_entry().row_count for t in tasks)
        files: list[FileRead] = []
        alive = tasks
        stages = []
        if over_keys is not None:
            partition_test = _partition_test(self.table, over_keys)
            kept = []
            for task in alive:
                if partition_test(task):
                    kept.append(task)
                else:
                    files.append(_skipped(task, "partition", "the partition's values fail the predicate"))
            stages.append(Stage("partition", len(alive), len(kept), rows, sum(t.table_entry().row_count for t in kept),
                                sum(skipped_manifests)))
            alive = kept
        buckets = self._reachable_buckets()
        if buckets is not None:
            kept = [task for task in alive if task.table_entry().bucket in buckets]
            files += [_skipped(task, "bucket", "the predicate fixes the bucket key to other buckets")
                      for task in alive if task.table_entry().bucket not in buckets]
            rows_in = sum(t.table_entry().row_count for t in alive)
            stages.append(_stage("bucket", alive, kept, rows_in, sum(t.table_entry().row_count for t in kept)))
            alive = kept
        if self.predicate is not None:
            kept = []
            for task in alive:
                if self._statistics_may_match(task):
                    kept.append(task)
                else:
                    files.append(_skipped(task, "statistics", "its min/max/null-count statistics rule out every row"))
            rows_in = sum(t.table_entry().row_count for t in alive)
            stages.append(_stage("statistics", alive, kept, rows_in, sum(t.table_entry().row_count for t in kept)))
            alive = kept
        rows_in = sum(t.table_entry().row_count for t in alive)
        judged = []
        for task in alive:
            verdict = (ScanVerdict(task.name, task.table_entry().row_count, _index_of(task), REMAIN)
                       if self.predicate is None else evaluate_file(task, self.predicate))
            if verdict.result is SKIP:
                files.append(_skipped(task, "file_index", partial(_skip_reason, task, verdict, self.predicate),
                                      verdict))
            else:
                judged.append((task, verdict))
        index_rows = sum(v.result.cardinality if isinstance(v.result, Rows) else v.rows for _, v in judged)
        stages.append(Stage("file_index", len(alive), len(judged), rows_in, index_rows))
        kept_reads = []
        for task, verdict in judged:
            count = rows_to_read(verdict, task.deleted_rows())
            if count == 0:
                files.append(_skipped(task, "deletion_vectors", "every row it keeps is deleted", verdict))
                continue
            read = "rows" if count < verdict.rows else "all"
            kept_reads.append(FileRead(task.name, verdict.rows, verdict.index, read, count,
                                       _keep_reason(task, verdict, self.predicate), None, task, verdict))
        stages.append(Stage("deletion_vectors", len(judged), len(kept_reads), index_rows,
                            sum(f.rows for f in kept_reads)))
        order = {task.name: number for number, task in enumerate(tasks)}
        planned = sorted(files + kept_reads, key=lambda f: order[f.file])
        return planned, tuple(stages)

    def _plan_groups(self) -> tuple[list[FileRead], tuple[Stage, ...]]:
        """A data-evolution table: the files of a group hold columns of the same rows (the newest file's
        column wins), judged together by the table's rule (``PaimonTable._plan_data_evolution``)."""
        if self.table.deletion_vectors_enabled:
            raise UsageError(f"{self.table.root}: a data-evolution table with deletion vectors: not read here yet")
        tasks = table_inputs(self.table).tasks
        by_name = {task.name: task for task in tasks}
        verdicts = {v.file: v for v in self.table._plan_data_evolution([t.table_entry() for t in tasks],
                                                                       self.predicate or and_(), False)} \
            if self.predicate is not None else {}
        groups: dict[tuple, list[DataFileTask]] = {}
        for task in tasks:
            groups.setdefault((task.table_entry().first_row_id, task.table_entry().row_count), []).append(task)
        planned: list[FileRead] = []
        kept_files = kept_rows = 0
        for members in groups.values():
            newest = sorted(members, key=lambda t: t.table_entry().max_sequence_number, reverse=True)
            found = verdicts.get(newest[0].name)
            result = REMAIN if found is None else found.result
            rows = newest[0].table_entry().row_count
            if result is SKIP:
                planned += [_skipped(t, "file_index", verdicts[t.name].note or "the group's index rules it out")
                            for t in newest]
                continue
            verdict = ScanVerdict(newest[0].name, rows, found.index if found else _index_of(newest[0]), result)
            count = result.cardinality if isinstance(result, Rows) else rows
            reason = (found.note or "") if found else "no predicate: every row"
            planned.append(FileRead(newest[0].name, rows, verdict.index, "rows" if count < rows else "all", count,
                                    reason or _keep_reason(newest[0], verdict, self.predicate), None, newest[0],
                                    verdict, tuple(newest)))
            planned += [FileRead(t.name, rows, _index_of(t), "merged", 0, "its columns are read with the group",
                                 task=t) for t in newest[1:]]
            kept_files, kept_rows = kept_files + len(newest), kept_rows + count
        order = {name: number for number, name in enumerate(by_name)}
        planned.sort(key=lambda f: order[f.file])
        total = sum(t.table_entry().row_count for t in tasks)
        return planned, (Stage("file_index", len(tasks), kept_files, total, kept_rows),)

    def _reachable_buckets(self) -> frozenset[int] | None:
        """The buckets the predicate can reach (None: any); every schema of the table must have had the same
        bucket count, as files written under another count hash their rows to other buckets."""
        buckets = reachable_buckets(self.predicate, self.table.schema)
        if buckets is None:
            return None
        counts = {load_schema(self.table.root, number).options.get("bucket") for number in schema_ids(self.table.root)}
        return buckets if len(counts) == 1 else None

    def _statistics_may_match(self, task: DataFileTask) -> bool:
        entry = task.table_entry()
        schema = self.table.data_schema(entry)
        predicate = self.predicate if schema.id == self.table.schema.id else \
            devolve(cast(Predicate, self.predicate), self.table.schema, schema)
        return not isinstance(predicate, (And, Or, Leaf)) or file_statistics(entry, schema).may_match(predicate)

    # -- reading --------------------------------------------------------------------------------------

    def to_batches(self) -> pa.RecordBatchReader:
        """The rows, file after file, as a lazy stream (planning happens on the first batch)."""
        return pa.RecordBatchReader.from_batches(self.schema, self._batches())

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow PyCapsule stream interface: each call is a new read (DuckDB and Polars call it)."""
        return self.to_batches().__arrow_c_stream__(requested_schema)

    def to_arrow(self) -> pa.Table:
        return self.to_batches().read_all()

    def to_pandas(self, **kwargs):
        return self.to_arrow().to_pandas(**kwargs)

    def to_duckdb(self, connection=None, name: str | None = None):
        """A DuckDB relation over the stream (each query reads the table again, nothing held in memory);
        with ``name``, also a view of that name in the connection."""
        import duckdb

        connection = connection if connection is not None else duckdb.connect()
        relation = connection.from_arrow(self)
        if name is not None:
            relation.create_view(name, replace=True)
        return relation

    def to_polars(self):
        """A Polars LazyFrame (an IO plugin): Polars' projection and row limit are pushed into the scan, and so
        is its filter: the conjuncts this project's predicates can say prune files and rows like ``where``
        (``pipeline.polars_filters``), and the whole filter is applied to each batch as it is read."""
        import polars
        from polars.io.plugins import register_io_source

        schema = polars.from_arrow(self.schema.empty_table()).schema

        def source(with_columns, predicate, n_rows, batch_size):
            # the frame is the scan's rows (``limit`` of them) filtered by Polars: its filter prunes only an
            # unlimited scan, and its row limit counts the rows it keeps
            pruning = self._with_polars_filter(predicate) if self.limit is None else self.predicate
            limit = _least(self.limit, n_rows) if predicate is None else self.limit
            scan = TableScan(self.table, pruning, with_columns or self.columns, limit)
            if pruning == self.predicate:
                scan._planned, scan._stages = self._planned, self._stages  # one plan, whatever Polars projects
            left = n_rows
            for batch in scan._batches():
                frame = polars.from_arrow(pa.Table.from_batches([batch], scan.schema))
                frame = frame if predicate is None else frame.filter(predicate)
                if left is not None:
                    frame = frame.head(left)
                    left -= frame.height
                yield frame
                if left == 0:
                    return

        return register_io_source(source, schema=schema)

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
            table = table.filter(matches(table, self.predicate, self.types))
        return table

    def _with_polars_filter(self, expression) -> Predicate | None:
        """The scan's predicate and what of Polars' filter it can prune with."""
        pushed = []
        for text in pushed_conjuncts(expression, self.types):
            try:
                pushed.append(self.table.parse(text))
            except UsageError:  # (a literal the column's type cannot hold: Polars' own filter still applies)
                continue
        if not pushed:
            return self.predicate
        return and_(*([self.predicate] if self.predicate is not None else []), *pushed)

    def _batches(self) -> Iterator[pa.RecordBatch]:
        left = self.limit
        if left == 0:
            return
        reads = [f for f in self.plan() if f.read in ("all", "rows")]
        for table in _in_order(self._read_file, reads, threads()):
            if left is not None:
                table = table.slice(0, left)
                left -= table.num_rows
            yield from table.select(self.columns).to_batches()
            if left == 0:
                return

    def _read_file(self, item: FileRead) -> pa.Table:
        task, verdict = item.task, item.verdict
        assert task is not None and verdict is not None
        if item.group:
            return self._read_group(item)
        table = read_verdict(task, verdict, self.read_schema, self.predicate, self.types, exact=True)
        if self.predicate is not None and names_nanos(self.predicate, self.types):
            table = table.filter(matches(table, self.predicate, self.types))  # (read_verdict leaves these)
        return table


# ------------------------------------------------------------------------------------- helpers

def _in_order(read: Callable[[FileRead], pa.Table], items: list[FileRead], workers: int) -> Iterator[pa.Table]:
    """``read`` of each item, in order, at most ``workers`` reads in flight (a consumer that stops early
    cancels the rest)."""
    if workers <= 1 or len(items) < 2:
        yield from map(read, items)
        return
    pending: deque[Future] = deque()
    remaining = iter(items)
    with ThreadPoolExecutor(workers) as pool:
        try:
            for item in itertools.islice(remaining, workers):
                pending.append(pool.submit(read, item))
            while pending:
                table = pending.popleft().result()
                following = next(remaining, None)
                if following is not None:
                    pending.append(pool.submit(read, following))
                yield table
        finally:
            for future in pending:
                future.cancel()


def _least(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _stage(name: str, before: list, after: list, rows_before: int, rows_after: int) -> Stage:
    return Stage(name, len(before), len(after), rows_before, rows_after)


def _index_of(task: DataFileTask) -> str:
    entry = task.table_entry()
    return "embedded" if entry.embedded_index is not None else "sidecar" if entry.index_files else "none"


def _skipped(task: DataFileTask, stage: str, reason: str | Callable[[], str],
             verdict: ScanVerdict | None = None) -> FileRead:
    entry = task.table_entry()
    return FileRead(task.name, entry.row_count, verdict.index if verdict else _index_of(task), "none", 0, reason,
                    stage, task, verdict)


def _indexes(task: DataFileTask, predicate: Predicate) -> tuple[str, ...]:
    """The file's indexes on the predicate's columns (by field id: an older file may name them otherwise),
    as column:type."""
    try:
        _, container, _ = task.container()
    except (FileIndexError, OSError):
        return ()
    if container is None or task.table is None:
        return ()
    by_id = task.table.data_schema(task.table_entry()).by_id()
    table_fields = task.table.schema.by_name()
    bases = {name.split("[")[0] for name in columns(predicate)}  # (a map-key column m[k] is of map m)
    wanted = {by_id[table_fields[name].id].name for name in bases
              if name in table_fields and table_fields[name].id in by_id}
    with container:
        return tuple(f"{i.column}:{i.index_type}" for i in container if i.column.split("[")[0] in wanted)


def _skip_reason(task: DataFileTask, verdict: ScanVerdict, predicate: Predicate | None) -> str:
    if verdict.note:
        return verdict.note
    indexes = ", ".join(_indexes(task, predicate)) if predicate is not None else ""
    return f"its index ({indexes or 'the file index'}) rules out every row"


def _keep_reason(task: DataFileTask, verdict: ScanVerdict, predicate: Predicate | None) -> str:
    if predicate is None:
        return "no predicate: every row"
    if verdict.note:
        return f"REMAIN: {verdict.note}"
    if verdict.index == "none":
        return "REMAIN: no index"
    if isinstance(verdict.result, Rows):
        count = verdict.result.cardinality
        return f"the index selects {count:,} row{'s' if count != 1 else ''}"
    return "REMAIN: the index cannot rule the file out"


def _partition_predicate(table: table_scan.PaimonTable, predicate: Predicate | None) -> Predicate | None:
    """The predicate's conjuncts over partition keys only (None: there are none)."""
    keys = set(table.schema.partition_keys)
    if predicate is None or not keys:
        return None
    conjuncts = predicate.children if isinstance(predicate, And) else (predicate,)
    over_keys = [c for c in conjuncts if set(columns(c)) <= keys]
    return and_(*over_keys) if over_keys else None


def _manifest_may_match(table: table_scan.PaimonTable, over_keys: Predicate, skipped: list[bool],
                        partition_stats: ValueStats | None) -> bool:
    """Whether a manifest whose entries' partitions have these statistics may hold a partition the
    predicate keeps (recording in ``skipped`` each one it does not)."""
    types = table.schema.types()
    keep = Statistics(partition_stats, table.schema.partition_keys, types, None, strings=True).may_match(over_keys)
    skipped.append(not keep)
    return keep


def _partition_test(table: table_scan.PaimonTable, test: Predicate) -> Callable[[DataFileTask], bool]:
    """A test of a file's partition values against ``test`` (over partition keys only); a partition whose
    values cannot be read is kept."""
    key_fields = [table.schema.by_name()[k] for k in table.schema.partition_keys]
    schema = pa.schema([pa.field(f.name, arrow_type(f.type)) for f in key_fields])
    types = table.schema.types()
    answers: dict[bytes, bool] = {}

    def keeps(task: DataFileTask) -> bool:
        partition = task.table_entry().partition
        if partition not in answers:
            try:
                values = partition_fields(partition, [f.type for f in key_fields])
                row = pa.table([pa.array([v], type=t) for v, t in zip(values, schema.types, strict=True)],
                               schema=schema)
                answers[partition] = bool(matches(row, test, types)[0])
            except (FileIndexError, pa.ArrowException, TypeError, ValueError, OverflowError):
                answers[partition] = True
        return answers[partition]

    return keeps


class PaimonTable(table_scan.PaimonTable):
    """A Paimon table at a snapshot (latest by default): planning from its metadata (``plan``, the base
    class's) and reading its rows (``scan``)."""

    def scan(self, where: str | Predicate | None = None, columns: Sequence[str] | None = None,
             limit: int | None = None) -> TableScan:
        """The rows that satisfy ``where`` (all: None), with ``columns`` (all: None), at most ``limit``."""
        return TableScan(self, where, columns, limit)
