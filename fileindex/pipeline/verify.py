"""Does one data file's index tell the truth about its rows? The work of one verify task.

Every index body of the file's container answers predicates (given ones, or ones generated from
the file's own values per indexed column) and each answer is compared with the rows that truly
match (:mod:`fileindex.scan.truth`):

* **unsound**: SKIP, or a row set, that leaves out a matching row: always a violation;
* **inexact**: a row set that holds a row that does not match, from an index that is exact for the
  predicate (bitmap =, IN, IS [NOT] NULL; bsi and range-bitmap everything but NOT BETWEEN);
* a bloom-filter REMAIN for a value that is not there is a false positive: counted, not a violation.

A malformed or missing index is a finding on the file ("unreadable"), never an exception.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
from pyroaring import BitMap

from fileindex.arrow.data_files import DataFileReader
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import IndexEntry
from fileindex.errors import DecodeError, FileIndexError, SchemaMisfitError
from fileindex.indexes import roaring
from fileindex.indexes.registry import INDEX_TYPES, body_failure, open_entry
from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult, Rows
from fileindex.pipeline import exhaustive
from fileindex.scan.task import DataFileTask, open_error
from fileindex.pipeline.probes import probe_predicates
from fileindex.pipeline.report import NO_INDEX, WRONG_SCHEMA
from fileindex.scan.truth import (
    ColumnTruth,
    column_values,
    matches,
    source_columns,
    split_column,
)
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.literals import sql_literal
from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import to_sql
from fileindex.predicate.tree import Leaf, Predicate
from fileindex.predicate.tree import columns as predicate_columns
from fileindex.table.evolution import remap_predicate
from fileindex.types import DataType, column_type

Schema = dict[str, DataType]  # the data file's columns and their types
WHOLE_FILE = "predicate"  # the index-type label of a given predicate, answered by the whole container


@dataclass
class Tally:
    checks: int = 0
    violations: int = 0
    absent_probes: int = 0  # bloom-filter: probes whose value is not in the file
    false_positives: int = 0


@dataclass
class FileReport:
    file: str
    index: str = "none"  # embedded, sidecar or none
    rows: int = 0
    status: str = "ok"  # ok, violations, unreadable, wrong schema, no index
    notes: list[str] = field(default_factory=list)
    tallies: dict[tuple[str, str], Tally] = field(default_factory=dict)
    violations: list[dict] = field(default_factory=list)
    designed_fpp: dict[str, float] = field(default_factory=dict)  # bloom column → design fpp
    fpp_estimated: list[str] = field(default_factory=list)  # bloom columns whose fpp is estimated from m and k

    def tally(self, index_type: str, kind: str) -> Tally:
        return self.tallies.setdefault((index_type, kind), Tally())

    def as_row(self) -> dict:
        """A flat row (what the Spark job returns per file); details as JSON text."""
        detail = {"tallies": [{"index_type": t, "kind": k, **vars(v)} for (t, k), v in sorted(self.tallies.items())],
                  "violations": self.violations, "designed_fpp": self.designed_fpp,
                  "fpp_estimated": self.fpp_estimated}
        return {"file": self.file, "index": self.index, "rows": self.rows, "status": self.status,
                "note": "; ".join(self.notes), "checks": sum(v.checks for v in self.tallies.values()),
                "violations": len(self.violations),
                "false_positives": sum(v.false_positives for v in self.tallies.values()),
                "detail": json.dumps(detail, ensure_ascii=False, default=str)}


def verify_file(task: DataFileTask, predicates: list[Predicate] | None = None, *, witnesses: int = 5,
                seed: int = 0, exhaustive: bool = False) -> FileReport:
    """Check a data file's index: with ``exhaustive``, every row (:mod:`fileindex.pipeline.exhaustive`);
    otherwise the ``predicates`` given, or ones generated from the file's values."""
    report = FileReport(task.name)
    try:
        report.index, container, note = task.container()
    except (FileIndexError, OSError) as err:
        report.index, report.status = "sidecar" if task.entry is None or task.entry.embedded_index is None \
            else "embedded", "unreadable"
        report.notes.append(f"index: {open_error(err)}")
        return report
    if note:
        report.status = "unreadable"
        report.notes.append(note)
        return report
    if container is None:
        report.status = NO_INDEX
        return report
    try:
        reader = task.open()
        types = task.types(reader)
        report.rows = reader.row_count
        foreign = _foreign_columns(container, types)
        if foreign:
            report.status = WRONG_SCHEMA
            report.notes.append(f"{WRONG_SCHEMA}: the index covers only columns the data file does not have "
                                f"({', '.join(sorted(foreign))}; its columns: {', '.join(types)}): is it this file's "
                                "index?")
            return report
        if exhaustive:
            _check_every_row(report, container, reader, types, witnesses)
        elif predicates is None:
            _check_generated(report, container, reader, types, witnesses, seed)
            _designed_fpps(report, task, container, types)
        else:
            _check_given(report, task, container, reader, types, predicates, witnesses)
    except SchemaMisfitError as err:
        _misfit(report, err)
    except (FileIndexError, OSError) as err:
        report.status = "unreadable"
        report.notes.append(open_error(err))
        return report
    if report.violations:
        report.status = "violations"
    elif any(n.startswith("unreadable") for n in report.notes):
        report.status = "unreadable"
    elif any(n.startswith(WRONG_SCHEMA) for n in report.notes):
        report.status = WRONG_SCHEMA
    return report


def _foreign_columns(container: FileIndexContainer, types: Schema) -> list[str]:
    """The container's columns where none of them is a column of the data file (an index built for another
    file, which would check nothing here); else none."""
    columns = container.columns
    return columns if columns and all(column_type(types, column) is None for column in columns) else []


def _indexed_columns(report: FileReport, container: FileIndexContainer, reader: DataFileReader, types: Schema,
                     wanted: Callable[[IndexEntry], bool] = lambda entry: True,
                     ) -> Iterator[tuple[IndexEntry, DataType, pa.Table]]:
    """Each ``wanted`` entry of the container on a column of the data file, with the column's type and
    the data of its source column (read once per source column); a column the file lacks is a note."""
    tables: dict[str, pa.Table] = {}  # source column → its data
    for entry in container:
        data_type = column_type(types, entry.column)
        if data_type is None:
            report.notes.append(f"{entry.column}: not a column of the data file")
            continue
        if not wanted(entry):
            continue
        source = split_column(entry.column)[0]
        if source not in tables:
            tables[source] = reader.read([source])
        yield entry, data_type, tables[source]


def _checkable(entry: IndexEntry) -> bool:
    """Whether every row can be checked against the entry (an index type this package does not know
    answers REMAIN: nothing to check)."""
    return entry.is_empty or exhaustive.checkable(entry.index_type)


def _unreadable(report: FileReport, entry: IndexEntry, err: Exception, what: str = "") -> None:
    report.notes.append(f"unreadable {entry.column}/{entry.index_type}: {what}{err}")


def _undecodable(report: FileReport, container: FileIndexContainer, entry: IndexEntry, data_type: DataType,
                 err: DecodeError | SchemaMisfitError) -> None:
    """A body that failed to decode as ``data_type``: a schema that does not fit it, or an unreadable body."""
    failure = err if isinstance(err, SchemaMisfitError) else body_failure(container, entry, data_type, err)
    if isinstance(failure, SchemaMisfitError):
        _misfit(report, failure)
    else:
        _unreadable(report, entry, err)


def _misfit(report: FileReport, err: SchemaMisfitError) -> None:
    report.notes.append(f"{WRONG_SCHEMA}: {err}; the types here are the data file's unless --schema overrides "
                        "them: give verify the --schema build was given")


def _check_generated(report: FileReport, container: FileIndexContainer, reader: DataFileReader, types: Schema,
                     witnesses: int, seed: int) -> None:
    rng = random.Random(f"{seed}:{Path(report.file).name}")  # (a file's probes, wherever its folder is)
    columns: dict[str, tuple[ColumnTruth, list[Leaf]]] = {}  # container column → truth and probes
    for entry, data_type, table in _indexed_columns(report, container, reader, types):
        if entry.column not in columns:
            truth = ColumnTruth(column_values(table, entry.column), data_type)
            columns[entry.column] = (truth, probe_predicates(truth, entry.column, rng))
        truths, leaves = columns[entry.column]
        try:
            index_reader = open_entry(container, entry, data_type)
        except (DecodeError, SchemaMisfitError) as err:
            _undecodable(report, container, entry, data_type, err)
            continue
        if index_reader is None:
            continue
        for leaf in leaves:
            try:
                answer = leaf.function.visit(index_reader, leaf.literals)
            except DecodeError as err:
                _undecodable(report, container, entry, data_type, err)
                break
            _judge(report, entry.index_type, leaf, answer, _truth_bitmap(truths.matches(leaf)), reader.row_count,
                   table, witnesses, types)


def _check_every_row(report: FileReport, container: FileIndexContainer, reader: DataFileReader, types: Schema,
                     witnesses: int) -> None:
    for entry, data_type, table in _indexed_columns(report, container, reader, types, _checkable):
        values = column_values(table, entry.column)
        try:
            if entry.is_empty:
                outcome = exhaustive.check_empty(values)
            else:
                index_reader = open_entry(container, entry, data_type)
                assert index_reader is not None  # a checkable index type is a registered one
                outcome = exhaustive.check_index(entry.index_type, index_reader, values, data_type, reader.row_count)
        except (DecodeError, SchemaMisfitError) as err:
            _undecodable(report, container, entry, data_type, err)
            continue
        except (FileIndexError, OverflowError) as err:  # values no index of this type can hold (Java refuses them)
            _unreadable(report, entry, err, "the data's values: ")
            continue
        tally = report.tally(entry.index_type, "every row")
        tally.checks += outcome.checks
        for found in outcome.disagreements:
            tally.violations += 1
            shown = []
            for i, witness in enumerate(_witness_rows(table, found.rows, witnesses)):
                witness["index says"] = found.says(i)
                shown.append(witness)
            report.violations.append({
                "column": entry.column, "index_type": entry.index_type, "kind": found.kind, "predicate": found.check,
                "answer": f"{len(found.rows)} rows differ", "true_rows": outcome.checks, "checked_rows": outcome.checks,
                "wrong_rows": len(found.rows), "witnesses": shown})


def _designed_fpps(report: FileReport, task: DataFileTask, container, types) -> None:
    """Each bloom filter's fpp as configured (a table's options, when they size it exactly), else estimated
    from its bits and hash functions (which Java rounds: fpp 0.1 looks like 0.125)."""
    for entry in container:
        sizing = _filter_sizing(entry.index_type)
        if sizing is None or entry.is_empty or column_type(types, entry.column) is None:
            continue
        payload = container.body(entry)
        options = _index_options(task, entry.column, entry.index_type)
        fpp = None if options is None else sizing.configured_fpp(payload, options)
        if fpp is None:
            fpp = sizing.diagnose(payload).design_fpp
            report.fpp_estimated.append(entry.column)
        report.designed_fpp[entry.column] = fpp


def _filter_sizing(index_type: str):
    """How a probabilistic index type judges its false-positive rate; None for an exact one."""
    index = INDEX_TYPES.get(index_type)
    return None if index is None else index.filter_sizing


def _index_options(task: DataFileTask, column: str, index_type: str) -> dict | None:
    """The options of one index of a table's data file, as its schema's table options give them."""
    import warnings

    from fileindex.writing.options import parse_options

    if task.table is None:
        return None
    schema = task.table.data_schema(task.table_entry())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            requests = parse_options(schema.options, schema.types()).requests
    except FileIndexError:
        return None
    return next((r.options for r in requests if (r.column, r.index_type) == (column, index_type)), None)


def _check_given(report: FileReport, task: DataFileTask, container, reader, types, predicates, witnesses) -> None:
    evaluator = FileIndexEvaluator(types)
    for predicate in predicates:
        if task.table is not None:
            remapped = remap_predicate(predicate, task.table.schema, task.table.data_schema(task.table_entry()))
            if remapped.predicate is None:
                report.tally(WHOLE_FILE, "given").checks += 1
                continue  # nothing of it applies to this file: REMAIN
            predicate = remapped.predicate
        table = reader.read(source_columns(predicate))
        try:
            answer = evaluator.evaluate(container, predicate)
        except SchemaMisfitError as err:
            _misfit(report, err)
            return
        except DecodeError as err:
            report.notes.append(f"unreadable: {err}")
            return
        truth = _truth_bitmap(matches(table, predicate, types))
        _judge(report, WHOLE_FILE, predicate, answer, truth, reader.row_count, table, witnesses, types)


def _exact(index_type: str) -> frozenset[str]:
    """The predicate functions an index type answers with exactly the matching rows."""
    index = INDEX_TYPES.get(index_type)
    return frozenset() if index is None else index.exact


def _truth_bitmap(mask: np.ndarray) -> BitMap:
    return roaring.bitmap_of(np.flatnonzero(mask))


def _judge(report: FileReport, index_type: str, predicate: Predicate, answer: FileIndexResult, truth: BitMap,
           row_count: int, table: pa.Table, witnesses: int, types) -> None:
    leaf = predicate if isinstance(predicate, Leaf) else None
    kind = "given" if index_type == WHOLE_FILE or leaf is None else leaf.function
    tally = report.tally(index_type, kind)
    tally.checks += 1
    if answer is SKIP:
        kept = BitMap()
    elif answer is REMAIN:
        kept = BitMap(range(row_count))
    else:
        assert isinstance(answer, Rows)  # the third kind of result
        kept = roaring.mutable(answer.bitmap)
    missing = truth - kept
    problem = None
    if missing:
        problem, rows = "unsound", missing
    elif isinstance(answer, Rows) and leaf is not None and leaf.function in _exact(index_type):
        extra = kept - truth
        if extra:
            problem, rows = "inexact", extra
    if _filter_sizing(index_type) is not None and not truth and leaf is not None and leaf.function in (Operator.EQ,
                                                                                                     Operator.IN):
        tally.absent_probes += 1
        tally.false_positives += answer is REMAIN
    if problem is None:
        return
    tally.violations += 1
    report.violations.append({
        "column": ", ".join(predicate_columns(predicate)), "index_type": index_type, "kind": problem,
        "predicate": to_sql(predicate, types), "answer": _answer_text(answer), "true_rows": len(truth),
        "wrong_rows": len(rows), "witnesses": _witness_rows(table, rows, witnesses),
    })


def _answer_text(answer: FileIndexResult) -> str:
    return f"ROWS {answer.cardinality}" if isinstance(answer, Rows) else repr(answer)


def _witness_rows(table: pa.Table, rows: BitMap | np.ndarray, limit: int) -> list[dict]:
    out = []
    for row in [int(r) for r in rows[:limit]]:
        values = {name: _json_value(table.column(name)[row].as_py()) for name in table.column_names}
        out.append({"row": row, **values})
    return out


def _json_value(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return sql_literal(value) if value != value or value in (float("inf"), float("-inf")) else value
    if isinstance(value, (bytes, bytearray)):
        return sql_literal(bytes(value))
    return str(value)
