"""Exact answers on the Java-written tables: for every live data file and drawn predicate (NULLs, NOT, OR across
bitmap, bsi and bloom-filter columns; deletion vectors), wherever ``evaluate_exact`` calls the file's rows exact
they are the rows a brute-force filter of the file keeps, and ``exact_count`` past the file's deletion vector is
what a scan of it returns; a Java index of a file written under an older schema counts only where the predicate
was remapped without loss."""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pytest
from drawn_predicates import SHARED_TABLES, Subject, predicates
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_answers import kept_rows
from pyroaring import FrozenBitMap

import fileindex
from fileindex.arrow.data_files import DataFileReader
from fileindex.arrow.types import arrow_type
from fileindex.container.file import FileIndexContainer
from fileindex.indexes.result import REMAIN, Answer, exact_count
from fileindex.scan.truth import matches
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.table.evolution import remap_predicate

TABLES = [p for p in SHARED_TABLES if "data_evolution" not in str(p)]
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@dataclass
class File:
    row_count: int
    deleted: FrozenBitMap
    schema: object  # the schema the file was written under
    container: FileIndexContainer
    rows: pa.Table


@dataclass
class Table:
    table: object  # fileindex.PaimonTable
    subject: Subject
    files: list[File]


def opened(path) -> Table:
    table = fileindex.PaimonTable(path)
    files, current = [], []
    for entry, vector in table.live():
        reader = DataFileReader(table.data_path(entry))
        rows = reader.read(reader.arrow_schema.names)
        schema = table.data_schema(entry)
        if schema.id == table.schema.id:
            current.append(rows)
        _, container, _ = table.container(entry)
        if container is not None:
            deleted = FrozenBitMap() if vector is None or vector.rows is None else vector.rows
            files.append(File(entry.row_count, deleted, schema, container, rows))
    return Table(table, Subject(str(path), table.schema.types(), pa.concat_tables(current)), files)


@pytest.fixture(scope="module")
def tables() -> dict[str, Table]:
    return {str(path): opened(path) for path in TABLES}


def as_table_rows(rows: pa.Table, table_schema, file_schema) -> pa.Table:
    """A file's rows under the table's schema, columns matched by field id: a column the file lacks is null."""
    by_id = file_schema.by_id()
    columns = {}
    for field in table_schema.fields:
        target = arrow_type(field.type)
        old = by_id.get(field.id)
        columns[field.name] = pa.nulls(rows.num_rows, target) if old is None else rows[old.name].cast(target)
    return pa.table(columns)


@pytest.mark.parametrize("path", TABLES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
@SETTINGS
@given(data=st.data())
def test_exact_answers_and_counts_of_every_file(tables, path, data):
    table = tables[str(path)]
    assert table.files or path.name == "timestamp_index", "every shared table indexes its files"  # (its blob lost)
    wheres = [data.draw(predicates(table.subject)) for _ in range(4)]
    for where in wheres:
        predicate = parse_predicate(where, table.subject.types)
        for file in table.files:
            rows = as_table_rows(file.rows, table.table.schema, file.schema)
            truth = {row for row, hit in enumerate(matches(rows, predicate, table.subject.types)) if hit}
            for extended in (False, True):  # extended: a column the file lacks is answered as all null
                remapped = remap_predicate(predicate, table.table.schema, file.schema, absent_as_null=extended)
                if remapped.matches_nothing:
                    assert not truth
                    continue
                types = file.schema.types()
                if remapped.predicate is None:
                    answer = None if remapped.lossless else Answer(REMAIN, False)
                else:
                    file_truth = {row for row, hit in enumerate(matches(file.rows, remapped.predicate, types)) if hit}
                    assert truth <= file_truth and (file_truth == truth or not remapped.lossless), where
                    answer = FileIndexEvaluator(types, extended=extended).evaluate_exact(
                        file.container, remapped.predicate, row_count=file.row_count)
                    kept = kept_rows(answer.result, file.row_count)
                    assert file_truth <= kept, where
                    if answer.exact:
                        assert kept == file_truth, (where, extended)
                    if not remapped.lossless:
                        answer = Answer.of(answer.result, False)
                count = exact_count(answer, file.row_count, file.deleted)
                if count is not None:
                    assert count == len(truth - set(file.deleted)), (where, extended)


@pytest.mark.parametrize("name, where, exact, count", [
    ("append_with_bsi_bitmap_bloomfilter", "f1 > 100", True, 3),  # bsi
    ("append_with_bsi_bitmap_bloomfilter", "f0 = 'Bob'", True, 2),  # bitmap (and a bloom filter's REMAIN)
    ("append_with_bsi_bitmap_bloomfilter", "f2 <> 1", True, 5),  # bsi's rows; the bitmap's hold the null row too
    ("append_with_bsi_bitmap_bloomfilter", "f3 = 11.1", False, None),  # a bloom filter alone
    ("append_with_bsi_bitmap_bloomfilter", "f0 = 'Bob' OR f3 = 11.1", False, None),
    ("append_with_bsi_bitmap_bloomfilter", "NOT (f1 <= 100 OR f2 = 1)", True, 2),  # bsi: Bob and Lucy
    ("append_with_bsi_bitmap_bloomfilter", "NOT (f1 <= 100 OR f0 = 'Lucy')", False, None),  # f0 <>: a bitmap
    ("append_with_bitmap", "f2 <> 1", False, None),  # a bitmap's <> holds the null rows
    ("pk_with_bitmap_dv", "f0 = 'Bob'", True, None),  # past the deletion vector: checked below
])
def test_exact_answers_of_each_index_type(tables, name, where, exact, count):
    table = tables[str(next(p for p in TABLES if p.name == name and p.parent.parent.name == "parquet"))]
    predicate = parse_predicate(where, table.subject.types)
    [file] = table.files
    answer = FileIndexEvaluator(file.schema.types()).evaluate_exact(file.container, predicate, row_count=file.row_count)
    assert answer.exact is exact
    truth = {row for row, hit in enumerate(matches(file.rows, predicate, file.schema.types())) if hit}
    counted = exact_count(answer, file.row_count, file.deleted)
    if exact:
        assert counted == len(truth - set(file.deleted))
        assert count is None or counted == count
    else:
        assert counted is None
