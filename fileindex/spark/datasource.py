"""``spark.read.format("paimon-fileindex").load(TABLE)``: a Paimon table read by plain PySpark, pruned by
its file indexes for the predicate the relation is given.

The schema is the table's current one. Partitions are built on the driver from the snapshot's
manifests (one per data file, small files grouped). Pruning is a property of the relation, never of
a query: ``.option("where", "category = 'toys'")`` makes the relation the live rows that satisfy the
predicate (FLOAT/DOUBLE zeros widened to both signs, so it holds every row Spark SQL's ``WHERE``
with the same text keeps); each file's index drops the files and rows that cannot match, and the
rows read are filtered exactly. Without the option the relation is every live row.
:func:`fileindex.spark.read_table` adds Spark's own filter on top, for Spark SQL's exact answer.

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

import logging
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from fileindex.errors import UsageError
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.pipeline.inputs import DataFileTask, Inputs, resolve_inputs
from fileindex.pipeline.scan import ScanVerdict, evaluate_file, output_schema, read_matching, rows_to_read, scannable, \
    selection
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate
from fileindex.spark.expressions import widen_signed_zeros
from fileindex.table.scan import PaimonTable
from fileindex.types import DataType

FORMAT = "paimon-fileindex"
OPTIONS = ("path", "snapshot", "where")
log = logging.getLogger("fileindex.spark.datasource")


def register(spark) -> None:
    """Make ``spark.read.format("paimon-fileindex")`` available in ``spark`` (idempotent)."""
    spark.dataSource.register(PaimonFileIndexSource)


class PaimonFileIndexSource(DataSource):

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def _inputs(self):
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
        return _table_inputs(path, int(snapshot) if snapshot is not None else None)[0]

    def schema(self):
        from fileindex.spark.jobs import spark_schema

        return spark_schema(output_schema(self._inputs()))

    def reader(self, schema):
        inputs = self._inputs()
        types = inputs.table.schema.types()
        where = self.options.get("where")
        predicate = widen_signed_zeros(parse_predicate(where, types), types) if where else None
        return TableReader(types, scannable(inputs), output_schema(inputs), predicate)


class TableReader(DataSourceReader):
    """The live rows (deleted rows left out) that satisfy ``predicate`` (None: all), a partition per group
    of data files; files the index answers SKIP for are not read, and only the candidate rows of others."""

    def __init__(self, types: dict[str, DataType], tasks: list[DataFileTask], schema: pa.Schema,
                 predicate: Predicate | None):
        self.types = types
        self.tasks = tasks
        self.arrow_schema = schema
        self.predicate = predicate

    def verdicts(self) -> list[ScanVerdict]:
        if self.predicate is None:
            return [ScanVerdict(t.name, t.table_entry().row_count, "", REMAIN) for t in self.tasks]
        verdicts = [evaluate_file(task, self.predicate) for task in self.tasks]
        kept = sum(v.result is not SKIP for v in verdicts)
        log.info("%s: %d files, %d rows considered; index pruned %d files; reading %d files, %d rows", FORMAT,
                 len(verdicts), sum(v.rows for v in verdicts), len(verdicts) - kept, kept,
                 sum(rows_to_read(v, t.deleted_rows()) for v, t in zip(verdicts, self.tasks, strict=True)))
        return verdicts

    def partitions(self):
        from fileindex.spark.jobs import plan_groups

        verdicts = zip(self.tasks, self.verdicts(), strict=True)
        reads = [(task, verdict) for task, verdict in verdicts if verdict.result is not SKIP]
        groups = plan_groups(reads, [task.size for task, _ in reads], 2)
        return [InputPartition(group) for group in groups] or [InputPartition([])]

    def read(self, partition) -> Iterator[pa.RecordBatch]:
        from pyspark.sql.pandas.types import to_arrow_schema

        from fileindex.spark.jobs import conform, spark_schema

        spark_arrow = to_arrow_schema(spark_schema(self.arrow_schema), timezone="UTC")
        for task, verdict in partition.value:
            # always filtered exactly, so that what the relation holds does not depend on the index
            rows = read_matching(task, selection(verdict, task.deleted_rows()), self.arrow_schema, self.predicate,
                                 self.types)
            yield from conform(rows, spark_arrow).to_batches()


def _table_inputs(path: str, snapshot: int | None) -> tuple[Inputs, PaimonTable]:
    """The tasks of the Paimon table at ``path``, and the table."""
    inputs = resolve_inputs([path], snapshot=snapshot)
    if inputs.table is None:
        raise UsageError(f"{path}: not a Paimon table (no snapshot/ and schema/ folders)")
    return inputs, inputs.table


def read_table(spark, table: str, where: str | None = None, *, snapshot: int | None = None):
    """A DataFrame of the table's live rows that satisfy ``where`` as Spark SQL evaluates it, pruned by the
    file indexes: the relation prunes with the predicate, Spark filters its rows exactly."""
    from fileindex.spark.expressions import to_column
    from fileindex.spark.session import check_workers

    check_workers(spark)
    register(spark)
    reader = spark.read.format(FORMAT)
    if snapshot is not None:
        reader = reader.option("snapshot", str(snapshot))
    if where is None:
        return reader.load(table)
    types = _table_inputs(table, snapshot)[1].schema.types()
    return reader.option("where", where).load(table).where(to_column(parse_predicate(where, types), types))
