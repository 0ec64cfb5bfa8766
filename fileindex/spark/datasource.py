"""``spark.read.format("paimon-fileindex").load(TABLE)``: a Paimon table read by plain PySpark, pruned by
its file indexes for the predicate the relation is given.

The schema is the table's current one. Partitions are built on the driver from the snapshot's
manifests (one per data file, small files grouped). Pruning is a property of the relation, never of
a query: ``.option("where", "category = 'toys'")`` makes the relation the live rows that satisfy the
predicate (FLOAT/DOUBLE zeros widened to both signs, so it holds every row Spark SQL's ``WHERE``
with the same text keeps); each file's index drops the files and rows that cannot match, and the
rows read are filtered exactly. Without the option the relation is every live row.
:func:`fileindex.spark.read_table` adds Spark's own filter on top, for Spark SQL's exact answer.

Planning reads the manifests and evaluates the indexes embedded in them, as Java Paimon's planner does;
a file whose index is a sidecar is planned whole and its sidecar evaluated by the task that reads it,
so planning a table of many files never opens a sidecar. A table with at most ``SIDECARS_PLANNED``
sidecars has them evaluated while planning: that costs less than one task's start, and every file they
skip is a file no task is given (one id in 50 files: two tasks rather than six).

``.option("report", "/path/report.json")`` writes what planning did (files and rows considered,
skipped, left to the tasks, and the seconds it took) to that file each time the relation is planned:
the answer to "was my index used?".

Why not prune with the filters Spark pushes (``DataSourceReader.pushFilters``): in PySpark 4.1 to
4.3 the JVM keeps the read plan that a pushdown produced (the pickled reader and its partitions)
on the relation's ``PythonDataSourceV2``, which every later scan of the same DataFrame or view
shares (``PythonScanBuilder.pushFilters`` calls ``setReadInfo``). A later scan that pushes no filter
Python can take (no filter at all, or an OR across columns) runs no Python while planning and reads
through ``getOrCreateReadInfo``, which returns that cached plan: it would read only the rows the
earlier query's filters kept. No Python code runs for that scan before its tasks, and a task cannot
tell which query it serves, so any pruning state in a pushdown plan is unsound once a DataFrame is
reused. The source therefore implements no ``pushFilters``: every plan it makes is a function of the
relation's options alone, and the pushdown flag (``spark.sql.python.filterPushdown.enabled``) plays
no part.
"""
from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import cast

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from fileindex.errors import UsageError
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.memo import computed_in_batches
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.task import DataFileTask, Inputs
from fileindex.scan.reader import (
    evaluate_file,
    names_nanos,
    output_schema,
    read_verdict,
    refuse_unscannable,
    rows_to_read,
    scannable,
)
from fileindex.scan.truth import filtered
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate
from fileindex.spark.expressions import as_spark_reads, to_column, widen_signed_zeros
from fileindex.spark.jobs import conform, plan_groups, spark_schema
from fileindex.spark.session import check_workers
from fileindex.scan.table import PaimonTable
from fileindex.table.store import is_table_root
from fileindex.writing.outputs import collision
from fileindex.types import DataType
from fileindex.table.verdict import FileVerdict

FORMAT = "paimon-fileindex"
OPTIONS = ("path", "snapshot", "where", "report")
# Planning evaluates a table's sidecars itself when it has at most this many: each costs 0.2-1 ms, a Spark
# task's start 50-100 ms. Above it planning opens none, so it never grows with the sidecars a table has.
SIDECARS_PLANNED = 64
log = logging.getLogger("fileindex.spark.datasource")


def register(spark) -> None:
    """Make ``spark.read.format("paimon-fileindex")`` available in ``spark`` (idempotent)."""
    spark.dataSource.register(PaimonFileIndexSource)


class PaimonFileIndexSource(DataSource):

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def _location(self) -> tuple[str, int | None]:
        unknown = sorted(set(self.options) - set(OPTIONS))
        if unknown:
            raise UsageError(f"{FORMAT}: unknown option(s) {', '.join(unknown)}; the options are "
                             f"{', '.join(OPTIONS[1:])} (and the table's path, given to load())")
        path = self.options.get("path")
        if not path:
            raise UsageError(f'name the table: spark.read.format("{FORMAT}").load("/path/to/table")')
        snapshot = self.options.get("snapshot")
        if snapshot is not None and not snapshot.isdigit():
            raise UsageError(f"option snapshot={snapshot!r}: give a snapshot id (a whole number)")
        return path, int(snapshot) if snapshot is not None else None

    def schema(self):
        return relation_schema(_table(*self._location()))

    def reader(self, schema):
        started = time.perf_counter()
        path, snapshot = self._location()
        if self.options.get("report"):
            check_report_location(self.options["report"], path)
        inputs = _table_inputs(path, snapshot)
        types = cast(PaimonTable, inputs.table).schema.types()  # (a table's inputs: never None)
        where = self.options.get("where")
        predicate = widen_signed_zeros(parse_predicate(where, types), types) if where else None
        return TableReader(types, scannable(inputs), output_schema(inputs), predicate,
                           report=self.options.get("report"), started=started, where=where)


class TableReader(DataSourceReader):
    """The live rows (deleted rows left out) that satisfy ``predicate`` (None: all), a partition per group
    of data files; files the index answers SKIP for are not read, and only the candidate rows of others.
    Embedded indexes are evaluated while planning, sidecars by the task that reads their file (or while
    planning, for a table with few). The tasks are given the reader without the file list (their
    partition names what they read)."""

    def __init__(self, types: dict[str, DataType], tasks: list[DataFileTask], schema: pa.Schema,
                 predicate: Predicate | None, *, report: str | None = None, started: float | None = None,
                 where: str | None = None):
        self.types = types
        self.tasks = tasks
        self.arrow_schema = schema
        self.predicate = predicate
        self.report = report
        self.started = time.perf_counter() if started is None else started
        self.where = where

    def __getstate__(self) -> dict:
        return {**self.__dict__, "tasks": []}

    def verdicts(self) -> list[FileVerdict | None]:
        """Each file's verdict from its embedded index (or its sidecar, for a table with few); None for a
        sidecar left to the task."""
        if self.predicate is None:
            return [FileVerdict(t.name, t.table_entry().row_count, "", REMAIN) for t in self.tasks]
        sidecars = sum(has_sidecar(task) for task in self.tasks) <= SIDECARS_PLANNED
        return list(computed_in_batches(partial(planned_verdict, predicate=self.predicate, sidecars=sidecars),
                                        self.tasks))

    def partitions(self):
        manifests_done = time.perf_counter()
        planned = list(zip(self.tasks, self.verdicts(), strict=True))
        reads = [(task, verdict) for task, verdict in planned if verdict is None or verdict.result is not SKIP]
        groups = plan_groups(reads, [bytes_to_read(task, verdict) for task, verdict in reads], 2)
        partitions = [InputPartition(group) for group in groups] or [InputPartition([])]
        report = planning_report(planned, len(partitions))
        report.update(where=self.where, planning_seconds=time.perf_counter() - self.started,
                      index_seconds=time.perf_counter() - manifests_done)
        log.info("%s: %s", FORMAT, json.dumps(report))
        if self.report:
            write_report(self.report, report)
        return partitions

    def read(self, partition) -> Iterator[pa.RecordBatch]:
        from pyspark.sql.pandas.types import to_arrow_schema

        spark_arrow = to_arrow_schema(spark_schema(self.arrow_schema), timezone="UTC")
        # a timestamp finer than microseconds is filtered as Spark sees it: cut to microseconds
        cut = (as_spark_reads(self.predicate, self.types)
               if self.predicate is not None and names_nanos(self.predicate, self.types) else None)
        for task, verdict in partition.value:
            if verdict is None:  # a sidecar index, evaluated here rather than while planning
                verdict = evaluate_file(task, cast(Predicate, self.predicate))
                if verdict.result is SKIP:
                    continue
            # always filtered exactly, so that what the relation holds does not depend on the index
            rows = conform(read_verdict(task, verdict, self.arrow_schema, self.predicate, self.types, exact=True),
                           spark_arrow)
            yield from (rows if cut is None else filtered(rows, *cut)).to_batches()


def has_sidecar(task: DataFileTask) -> bool:
    entry = task.table_entry()
    return entry.embedded_index is None and bool(entry.index_files)


def planned_verdict(task: DataFileTask, predicate: Predicate, *, sidecars: bool = False) -> FileVerdict | None:
    """The verdict planning gives a file: its embedded index's; the whole file when it has no index;
    for a sidecar index, its verdict with ``sidecars``, else None (the task reading the file evaluates it)."""
    entry = task.table_entry()
    if entry.embedded_index is None:
        if entry.index_files:
            return evaluate_file(task, predicate) if sidecars else None
        return FileVerdict(task.name, entry.row_count, "none", REMAIN)
    return evaluate_file(task, predicate)


def bytes_to_read(task: DataFileTask, verdict: FileVerdict | None) -> int:
    """What reading the file's kept rows costs, roughly: its size times the share of its rows kept, so
    that many small reads share a task."""
    if verdict is None or not isinstance(verdict.result, Rows) or not verdict.row_count:
        return task.size
    return max(1, task.size * verdict.result.cardinality // verdict.row_count)


def planning_report(planned: list[tuple[DataFileTask, FileVerdict | None]], tasks: int) -> dict:
    """What planning did: files and rows considered, skipped by their embedded index, left to the
    tasks (sidecars, read whole at worst), and what is read."""
    decided = [(task, v) for task, v in planned if v is not None]
    deferred = [task for task, v in planned if v is None]
    kept = [(task, v) for task, v in decided if v.result is not SKIP]
    rows_total = sum(task.table_entry().row_count for task, _ in planned)
    deferred_rows = sum(task.table_entry().row_count for task in deferred)
    return {"files_total": len(planned), "rows_total": rows_total,
            "files_skipped": len(decided) - len(kept),
            "rows_skipped": sum(v.row_count for _, v in decided) - sum(v.row_count for _, v in kept)
            + sum(v.row_count - v.result.cardinality for _, v in kept if isinstance(v.result, Rows)),
            "files_read": len(kept) + len(deferred),
            "rows_read": sum(rows_to_read(v, task.deleted_rows()) for task, v in kept) + deferred_rows,
            "files_sidecar_in_tasks": len(deferred), "rows_sidecar_in_tasks": deferred_rows,
            "files_sidecar_in_planning": sum(has_sidecar(task) for task, _ in decided),
            "files_without_index": sum(v.index == "none" for _, v in decided),
            "index_problems": sum(bool(v.note) for _, v in decided), "tasks": tasks}


def write_report(path: str, report: dict) -> None:
    target = Path(path)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(report, indent=1) + "\n")
        os.replace(temporary, target)
    except OSError as err:
        raise _unwritable_report(path, err.strerror or str(err)) from None


def check_report_location(path: str, table: str) -> None:
    """Refuse a report path planning could not write, or one in the table (whose files it could replace)."""
    found = collision(path, [table])
    if found is not None:
        raise _unwritable_report(path, f"it {found[0]} the table {table}, whose files it could replace")
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise _unwritable_report(path, "it is a folder")
    if not folder.is_dir():
        raise _unwritable_report(path, f"no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise _unwritable_report(path, f"folder {folder} is not writable")


def _unwritable_report(path: str, why: str) -> UsageError:
    return UsageError(f"option report={path!r}: cannot write the planning report there ({why}); "
                      "name a file in an existing, writable folder")


def _refuse_non_table(path: str) -> None:
    if not os.path.exists(path):
        raise UsageError(f"{path}: does not exist: give the root of a Paimon table (the folder holding snapshot/ "
                         "and schema/)")
    if not is_table_root(Path(path)):
        raise UsageError(f"{path}: not a Paimon table (no snapshot/ and schema/ folders)")


def _table(path: str, snapshot: int | None) -> PaimonTable:
    """The Paimon table at ``path`` (its snapshot and schema; no manifest is read)."""
    _refuse_non_table(path)
    return PaimonTable(path, snapshot)


def relation_schema(table: PaimonTable):
    """The relation's Spark schema: the table's current one."""
    return spark_schema(output_schema(Inputs([], table)))


def _table_inputs(path: str, snapshot: int | None) -> Inputs:
    """The tasks of the Paimon table at ``path``."""
    _refuse_non_table(path)
    return resolve_inputs([path], snapshot=snapshot)


def read_table(spark, table: str | os.PathLike[str], where: str | None = None, *, snapshot: int | None = None,
               report: str | os.PathLike[str] | None = None):
    """A DataFrame of the table's live rows that satisfy ``where`` as Spark SQL evaluates it, pruned by the
    file indexes: the relation prunes with the predicate, Spark filters its rows exactly. ``report``: a
    file planning writes its JSON report to (see the module's doc)."""
    check_workers(spark)
    # what Spark would report as a Python traceback inside its own exception is refused here in one line
    if report is not None and not isinstance(report, (str, os.PathLike)):
        raise UsageError(f"report={report!r}: give the path of a file to write the report to")
    root, report_path = os.fspath(table), None if report is None else os.fspath(report)
    metadata = _table(root, snapshot)
    refuse_unscannable(metadata)
    types = metadata.schema.types()
    if report_path is not None:
        check_report_location(report_path, root)
    predicate = parse_predicate(where, types) if where is not None else None
    register(spark)
    # given here, Spark does not ask the source for it (a round trip to a Python worker that reads the schema)
    reader = spark.read.format(FORMAT).schema(relation_schema(metadata))
    if snapshot is not None:
        reader = reader.option("snapshot", str(snapshot))
    if report_path is not None:
        reader = reader.option("report", report_path)
    if predicate is None:
        return reader.load(root)
    return reader.option("where", where).load(root).where(to_column(predicate, types))
