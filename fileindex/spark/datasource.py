"""``spark.read.format("paimon-fileindex").load(TABLE)``: a Paimon table read by plain PySpark, its file
indexes pruning files and rows.

The schema is the table's current one. Partitions are built on the driver from the snapshot's
manifests (one per data file, small files grouped). With filter pushdown on
(``spark.sql.python.filterPushdown.enabled``, which :func:`fileindex.spark.spark_session` turns on),
the reader translates the pushed filters it can into the project's predicates, answers their
conjunction with each file's index (schema evolution and deletion vectors as ``fileindex table``
does), drops files answered SKIP and reads only the candidate rows of the others. Every filter is
handed back to Spark, which applies it exactly: the index only removes rows that cannot match, so
the result is always that of reading without pushdown. With pushdown off the reader has no
``pushFilters`` (Spark refuses one that does) and reads every live row.
"""
from __future__ import annotations

import logging
from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    EqualNullSafe,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    In,
    InputPartition,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
)

from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.pipeline.inputs import DataFileTask, resolve_inputs
from fileindex.pipeline.scan import (
    ScanVerdict,
    output_schema,
    read_verdict,
    rows_to_read,
    scannable,
)
from fileindex.predicate.literals import convert
from fileindex.predicate.tree import And, Leaf, Predicate, and_, negate, or_
from fileindex.spark.expressions import widen_signed_zeros
from fileindex.types import DataType

FORMAT = "paimon-fileindex"
PUSHDOWN_CONF = "spark.sql.python.filterPushdown.enabled"
log = logging.getLogger("fileindex.spark.datasource")

_COMPARISONS = {EqualTo: "eq", GreaterThan: "gt", GreaterThanOrEqual: "gte", LessThan: "lt", LessThanOrEqual: "lte"}


def register(spark) -> None:
    """Register the source with ``spark``; it reads the session's pushdown flag now (call again after changing it)."""
    enabled = spark.conf.get(PUSHDOWN_CONF, "false").lower() == "true"
    source = PaimonFileIndexSource if enabled else PaimonFileIndexSourceWithoutPushdown
    spark.dataSource.register(source)


class PaimonFileIndexSource(DataSource):
    pushdown = True

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def _inputs(self):
        path = self.options.get("path")
        if not path:
            raise UsageError(f'name the table: spark.read.format("{FORMAT}").load("/path/to/table")')
        snapshot = self.options.get("snapshot")
        if snapshot is not None and not snapshot.isdigit():
            raise UsageError(f"option snapshot={snapshot!r}: give a snapshot id (a whole number)")
        inputs = resolve_inputs([path], snapshot=int(snapshot) if snapshot is not None else None)
        if inputs.table is None:
            raise UsageError(f"{path}: not a Paimon table (no snapshot/ and schema/ folders)")
        return inputs

    def schema(self):
        from fileindex.spark.jobs import spark_schema

        return spark_schema(output_schema(self._inputs()))

    def reader(self, schema):
        inputs = self._inputs()
        tasks = scannable(inputs)
        if not self.pushdown:
            log.info("%s: filter pushdown is off, so file indexes are not used; set %s=true and call "
                     "fileindex.spark.register(spark) again to prune with them", FORMAT, PUSHDOWN_CONF)
            return TableReader(inputs.table.schema.types(), tasks, output_schema(inputs))
        return PrunedTableReader(inputs.table.schema.types(), tasks, output_schema(inputs))


class PaimonFileIndexSourceWithoutPushdown(PaimonFileIndexSource):
    pushdown = False


class TableReader(DataSourceReader):
    """Every live row (deleted rows left out), one partition per group of data files."""

    predicate: Predicate | None = None  # what may match (set by pushFilters), used to drop rows early

    def __init__(self, types: dict[str, DataType], tasks: list[DataFileTask], schema: pa.Schema):
        self.types = types
        self.tasks = tasks
        self.arrow_schema = schema

    def verdicts(self) -> list[ScanVerdict]:
        return [ScanVerdict(t.name, t.entry.row_count, "", REMAIN) for t in self.tasks]

    def partitions(self):
        from fileindex.spark.jobs import plan_groups

        reads = [(task, verdict) for task, verdict in zip(self.tasks, self.verdicts()) if verdict.result is not SKIP]
        groups = plan_groups(reads, [task.size for task, _ in reads], 2)
        return [InputPartition(group) for group in groups] or [InputPartition([])]

    def read(self, partition) -> Iterator[pa.RecordBatch]:
        from pyspark.sql.pandas.types import to_arrow_schema

        from fileindex.spark.jobs import conform, spark_schema

        spark_arrow = to_arrow_schema(spark_schema(self.arrow_schema), timezone="UTC")
        for task, verdict in partition.value:
            table = read_verdict(task, verdict, self.arrow_schema, self.predicate, self.types)
            yield from conform(table, spark_arrow).to_batches()


class PrunedTableReader(TableReader):
    """The rows each file's index keeps for the pushed filters (all of them handed back to Spark)."""

    def pushFilters(self, filters):
        translated = [p for p in (to_predicate(f, self.types) for f in filters) if p is not None]
        self.predicate = widen_signed_zeros(and_(*translated), self.types) if translated else None
        return filters  # Spark applies every filter exactly; the index only drops rows that cannot match

    def verdicts(self) -> list[ScanVerdict]:
        if self.predicate is None:
            return super().verdicts()
        verdicts = []
        for task in self.tasks:
            verdict = task.table.verdict(task.entry, self.predicate, task.vector)
            verdicts.append(ScanVerdict(verdict.file, verdict.row_count, verdict.index, verdict.result, verdict.note))
        kept = sum(v.result is not SKIP for v in verdicts)
        log.info("%s: %d files, %d rows considered; index pruned %d files; reading %d files, %d rows", FORMAT,
                 len(verdicts), sum(v.rows for v in verdicts), len(verdicts) - kept, kept,
                 sum(rows_to_read(v, t.deleted_rows()) for v, t in zip(verdicts, self.tasks)))
        return verdicts


def to_predicate(spark_filter, types: dict[str, DataType]) -> Predicate | None:
    """A pushed Spark filter as a predicate that holds for every row the filter keeps (None: may match all).

    Timestamp columns and FLOAT comparisons are left to Spark: how Spark rounds their literals is
    not this module's to guess, and a guess would risk dropping a matching row.
    """
    try:
        return _translate(spark_filter, types)
    except (UsageError, FileIndexError, OverflowError, ValueError, TypeError):
        return None


def pushed_part(predicate: Predicate, types: dict[str, DataType]) -> Predicate | None:
    """What of ``predicate`` reaches :func:`to_predicate` when Spark pushes it down: its top-level
    conjuncts that are comparisons of one plain column the source uses (for reports made elsewhere)."""
    conjuncts = predicate.children if isinstance(predicate, And) else (predicate,)
    kept = [c for c in conjuncts if isinstance(c, Leaf) and _column((c.column,), types) is not None
            and not (types[c.column].root == "FLOAT" and c.function not in ("eq", "is_null", "is_not_null"))]
    return and_(*kept) if kept else None


def _column(attribute, types: dict[str, DataType]) -> tuple[str, DataType] | None:
    if len(attribute) != 1 or attribute[0] not in types:
        return None
    data_type = types[attribute[0]]
    if data_type.is_timestamp or data_type.root in ("TIME", "MAP", "ARRAY", "ROW", "MULTISET"):
        return None
    return attribute[0], data_type


def _translate(spark_filter, types) -> Predicate | None:
    if isinstance(spark_filter, Not):
        inner = spark_filter.child
        if isinstance(inner, EqualNullSafe):
            target = _column(inner.attribute, types)
            if target is None:
                return None
            if inner.value is None:
                return Leaf("is_not_null", target[0])
            literal = convert(inner.value, target[1], target[0])
            return or_(Leaf("is_null", target[0]), Leaf("neq", target[0], (literal,)))
        translated = _translate(inner, types)
        return negate(translated) if translated is not None else None
    target = _column(spark_filter.attribute, types)
    if target is None:
        return None
    column, data_type = target
    if isinstance(spark_filter, IsNull):
        return Leaf("is_null", column)
    if isinstance(spark_filter, IsNotNull):
        return Leaf("is_not_null", column)
    if isinstance(spark_filter, EqualNullSafe):
        if spark_filter.value is None:
            return Leaf("is_null", column)
        return Leaf("eq", column, (convert(spark_filter.value, data_type, column),))
    if isinstance(spark_filter, In):
        if any(v is None for v in spark_filter.value):
            return None
        return Leaf("in", column, tuple(convert(v, data_type, column) for v in spark_filter.value))
    function = _COMPARISONS.get(type(spark_filter))
    if function is None or spark_filter.value is None:
        return None
    if data_type.root == "FLOAT" and function != "eq":
        return None
    return Leaf(function, column, (convert(spark_filter.value, data_type, column),))

