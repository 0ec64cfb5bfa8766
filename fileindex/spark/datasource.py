"""``spark.read.format("paimon-fileindex").load(TABLE)``: a Paimon table read by plain PySpark, pruned by
its file indexes for the predicate the relation is given.

The schema is the table's current one. Partitions are built on the driver from the snapshot's
manifests (one per data file, small files grouped). Pruning is a property of the relation, never of
a query: ``.option("where", "category = 'toys'")`` makes the relation the live rows that satisfy the
predicate (FLOAT/DOUBLE zeros widened to both signs, so it holds every row Spark SQL's ``WHERE``
with the same text keeps); each file's index drops the files and rows that cannot match, and the
rows read are filtered exactly. Without the option the relation is every live row.
:func:`fileindex.spark.read_table` adds Spark's own filter on top, for Spark SQL's exact answer.

Planning is the one planner's (:mod:`fileindex.scan.planner`): the partition, bucket and min/max
statistics prune files before any index is opened, then the indexes embedded in the manifests are
evaluated, as Java Paimon's planner does; a file whose index is a sidecar is planned whole and its
sidecar evaluated by the task that reads it (the shared per-file reader, ``scan.reader.read_file``),
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
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import cast

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from fileindex.errors import UsageError
from fileindex.io.reach import current_reach
from fileindex.io.store_options import check_option_keys, is_storage_key
from fileindex.pipeline.inputs import driver_path
from fileindex.memo import computed_in_batches
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate
from fileindex.scan.funnel import FileRead, Stage
from fileindex.scan.planner import ScanPlanner
from fileindex.scan.reader import evaluate_file, names_nanos, output_schema, read_file, refuse_unscannable
from fileindex.scan.table import PaimonTable
from fileindex.scan.task import DataFileTask, Inputs
from fileindex.scan.truth import filtered
from fileindex.spark.expressions import as_spark_reads, to_column, widen_signed_zeros
from fileindex.spark.jobs import bytes_to_read, conform, index_problem_files, plan_groups, spark_schema
from fileindex.spark.session import check_workers
from fileindex.table.names import whole_number
from fileindex.table.store import is_table_root, names_a_store
from fileindex.table.verdict import FileVerdict
from fileindex.writing.outputs import collision

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
        try:  # (Paimon's keys for reaching a store are the relation's options too: fileindex.io.store_options)
            check_option_keys(sorted(self.options), others=OPTIONS)
        except UsageError as err:
            raise UsageError(f"{FORMAT}: unknown {err} (the options are {', '.join(OPTIONS[1:])}, Paimon's storage "
                             "keys (s3.*, gcs.*, azure.*, ...) and the table's path, given to load())") from None
        path = self.options.get("path")
        if not path:
            raise UsageError(f'name the table: spark.read.format("{FORMAT}").load("/path/to/table")')
        snapshot = self.options.get("snapshot")
        if snapshot is not None and not whole_number(snapshot):
            raise UsageError(f"option snapshot={snapshot!r}: give a snapshot id (a whole number)")
        return path, int(snapshot) if snapshot is not None else None

    def _storage_options(self) -> dict[str, str] | None:
        """The options that say how to reach a table on an object store (Paimon's keys), None: none given."""
        return {key: value for key, value in self.options.items() if is_storage_key(key)} or None

    def schema(self):
        return relation_schema(_table(*self._location(), self._storage_options()))

    def reader(self, schema):
        started = time.perf_counter()
        path, snapshot = self._location()
        if self.options.get("report"):
            check_report_location(self.options["report"], path)
        table = _table(path, snapshot, self._storage_options())
        refuse_unscannable(table)
        types = table.schema.types()
        where = self.options.get("where")
        predicate = widen_signed_zeros(parse_predicate(where, types), types) if where else None
        return TableReader(table, output_schema(Inputs([], table)), predicate, report=self.options.get("report"),
                           started=started, where=where)


class TableReader(DataSourceReader):
    """The live rows (deleted rows left out) that satisfy ``predicate`` (None: all): the planner's file reads
    (partition, bucket, statistics, then the indexes), a partition per group of them; only the candidate rows
    of each file are read. Embedded indexes are evaluated while planning, sidecars by the task that reads their
    file (or while planning, for a table with few). The tasks are given the reader without the plan (their
    partition names what they read)."""

    def __init__(self, table: PaimonTable, schema: pa.Schema, predicate: Predicate | None, *,
                 report: str | None = None, started: float | None = None, where: str | None = None):
        self.table = table
        self.types = table.schema.types()
        self.arrow_schema = schema
        self.predicate = predicate
        self.report = report
        self.started = time.perf_counter() if started is None else started
        self.where = where
        self.files: list[FileRead] = []  # the plan, once partitions() has made it

    def __getstate__(self) -> dict:
        return {**self.__dict__, "files": [], "table": None}

    def plan(self) -> tuple[list[FileRead], tuple[Stage, ...]]:
        """The planner's file reads; the index stage defers a table's sidecars to the tasks when it has many."""
        return ScanPlanner(self.table, self.predicate, evaluate=planned_verdicts).plan()

    def partitions(self):
        manifests_done = time.perf_counter()
        self.files, stages = self.plan()
        reads = [f for f in self.files if f.to_read]
        groups = plan_groups(reads, [bytes_to_read(f) for f in reads], 2)
        partitions = [InputPartition(group) for group in groups] or [InputPartition([])]
        report = planning_report(self.files, stages, len(partitions))
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
        for item in partition.value:
            # always filtered exactly, so that what the relation holds does not depend on the index
            rows = conform(read_file(item, self.arrow_schema, self.predicate, self.types, exact=True), spark_arrow)
            yield from (rows if cut is None else filtered(rows, *cut)).to_batches()


def has_sidecar(task: DataFileTask) -> bool:
    entry = task.table_entry()
    return entry.embedded_index is None and bool(entry.index_files)


def planned_verdicts(tasks: list[DataFileTask], predicate: Predicate) -> list[FileVerdict | None]:
    """The data source's index stage: every embedded index evaluated (and a file without an index kept
    whole); the sidecars too when the files left hold at most SIDECARS_PLANNED, else None for each (the task
    reading the file evaluates it)."""
    sidecars = sum(has_sidecar(task) for task in tasks) <= SIDECARS_PLANNED
    return list(computed_in_batches(lambda task: None if has_sidecar(task) and not sidecars else
                                    evaluate_file(task, predicate), tasks))


def planning_report(files: list[FileRead], stages: tuple[Stage, ...], tasks: int) -> dict:
    """What planning did: files and rows considered, skipped (by which stage), left to the tasks (sidecars,
    read whole at worst), and what is read."""
    read = [f for f in files if f.to_read]
    deferred = [f for f in read if f.verdict is None]
    rows_total = sum(f.row_count for f in files)
    rows_read = sum(f.rows for f in read)
    judged = [f for f in files if f.verdict is not None]
    problems = index_problem_files(files)
    files_read = sum(f.data_files_read for f in read)
    return {"files_total": len(files), "rows_total": rows_total, "files_skipped": len(files) - files_read,
            "rows_skipped": rows_total - rows_read, "files_read": files_read, "rows_read": rows_read,
            "files_sidecar_in_tasks": len(deferred), "rows_sidecar_in_tasks": sum(f.rows for f in deferred),
            "files_sidecar_in_planning": sum(has_sidecar(cast(DataFileTask, f.task)) for f in judged),
            "files_without_index": sum(f.index == "none" for f in files),
            "index_problems": len(problems), "index_problem_files": problems, "tasks": tasks,
            "stages": [stage.as_dict() for stage in stages]}


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
    if names_a_store(path):
        return  # (a store's table is opened, not looked at: PaimonTable says what is missing)
    if not os.path.exists(path):
        raise UsageError(f"{path}: does not exist: give the root of a Paimon table (the folder holding snapshot/ "
                         "and schema/)")
    if not is_table_root(Path(path)):
        raise UsageError(f"{path}: not a Paimon table (no snapshot/ and schema/ folders)")


def _table(path: str, snapshot: int | None, options: dict[str, str] | None = None) -> PaimonTable:
    """The Paimon table at ``path`` (its snapshot and schema; no manifest is read), reached with ``options``."""
    _refuse_non_table(path)
    return PaimonTable(path, snapshot, options=options)


def relation_schema(table: PaimonTable):
    """The relation's Spark schema: the table's current one."""
    return spark_schema(output_schema(Inputs([], table)))


def read_table(spark, table: str | os.PathLike[str], where: str | None = None, *, snapshot: int | None = None,
               report: str | os.PathLike[str] | None = None, options: Mapping[str, str] | None = None):
    """A DataFrame of the table's live rows that satisfy ``where`` as Spark SQL evaluates it, pruned by the
    file indexes: the relation prunes with the predicate, Spark filters its rows exactly. ``report``: a
    file planning writes its JSON report to (see the module's doc). ``options``: the storage options of a
    table on an object store (``s3.endpoint``, ...), passed to the data source as its options."""
    check_workers(spark)
    # what Spark would report as a Python traceback inside its own exception is refused here in one line
    if report is not None and not isinstance(report, (str, os.PathLike)):
        raise UsageError(f"report={report!r}: give the path of a file to write the report to")
    root, report_path = driver_path(table), None if report is None else os.fspath(report)
    # (without options: the command line's --storage-option pairs)
    options = dict(current_reach()[0] or {}) or None if options is None else dict(options)
    metadata = _table(root, snapshot, options)
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
    for key, value in (options or {}).items():
        reader = reader.option(key, value)
    if predicate is None:
        return reader.load(root)
    return reader.option("where", where).load(root).where(to_column(predicate, types))
