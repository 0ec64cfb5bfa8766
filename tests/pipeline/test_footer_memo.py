"""Data-file footers read once while the file is unchanged, and scans that read only the selected columns."""
import os
import pickle
import shutil
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT
from generated_data import write_dataset

import fileindex.arrow.data_files as data_files
from fileindex.arrow.data_files import DataFileReader, Footer, FooterMemo
from fileindex.errors import UsageError
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.reader import evaluate_file, output_schema, read_matching, read_verdict, selected_schema
from fileindex.predicate.parser import parse_predicate


@pytest.fixture
def footer_reads(monkeypatch):
    """Counts the footers parsed (every DataFileReader that the memo could not serve)."""
    data_files.FOOTERS.clear()
    reads = []
    original = DataFileReader._read_footer
    monkeypatch.setattr(DataFileReader, "_read_footer", lambda self: reads.append(self.path) or original(self))
    yield reads
    data_files.FOOTERS.clear()


def test_a_footer_is_parsed_once_and_rows_read_with_it(tmp_path, footer_reads):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"x": np.arange(100, dtype=np.int64)}), path, row_group_size=10)
    for _ in range(3):
        reader = DataFileReader(path)
        assert reader.row_count == 100 and reader.group_rows == [10] * 10
    assert footer_reads == [str(path)]
    assert reader.read_rows(np.array([3, 57], dtype=np.int64), ["x"]).column("x").to_pylist() == [3, 57]
    assert footer_reads == [str(path)]


def test_a_file_rewritten_in_place_with_the_same_size_and_mtime_is_read_again(tmp_path, footer_reads):
    path, other = tmp_path / "t.parquet", tmp_path / "other.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    pq.write_table(pa.table({"b": [4, 5, 6]}), other)
    assert path.stat().st_size == other.stat().st_size  # the same bytes but one letter of the column name
    assert DataFileReader(path).arrow_schema.names == ["a"]
    before = path.stat()
    time.sleep(0.02)  # past the kernel's timestamp granularity
    with open(path, "r+b") as file:  # same inode, same size
        file.write(other.read_bytes())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the mtime put back: only the ctime moved
    reader = DataFileReader(path)
    assert reader.arrow_schema.names == ["b"] and reader.read(["b"]).column(0).to_pylist() == [4, 5, 6]
    os.replace(other, path)  # a new inode
    assert DataFileReader(path).arrow_schema.names == ["b"]
    assert len(footer_reads) == 3


def test_the_memo_is_bounded_by_files_and_footer_bytes():
    def footer(size):
        return Footer(pa.schema([]), 0, (), None, size)

    memo = FooterMemo(files=2, footer_bytes=100)
    for name in "abc":
        memo.put((name,), footer(10))
    assert len(memo) == 2 and memo.get(("a",)) is None and memo.get(("b",)) is not None
    memo.put(("d",), footer(10))  # b was used last, so c goes
    assert memo.get(("c",)) is None and memo.get(("b",)) is not None
    memo.put(("e",), footer(95))  # over the bytes: the oldest go until it fits (or only it is left)
    assert len(memo) == 1 and memo.get(("e",)) is not None
    memo.put(("f",), footer(500))
    assert len(memo) == 1 and memo.get(("f",)) is not None


def test_tasks_pickle_without_the_memo(tmp_path):
    write_dataset(tmp_path, files=1)
    task = resolve_inputs([str(tmp_path)]).tasks[0]
    task.open()
    blob = pickle.dumps(task)
    assert b"FooterMemo" not in blob and b"FileMetaData" not in blob
    assert pickle.loads(blob).open().row_count == task.open().row_count


def scan_parts(folder, where):
    task = resolve_inputs([str(folder)]).tasks[0]
    reader = task.open()
    types = task.types(reader)
    return task, reader, types, parse_predicate(where, types)


def test_a_selection_reads_only_its_columns_and_the_predicates(tmp_path, monkeypatch):
    write_dataset(tmp_path, files=1)
    task, reader, types, predicate = scan_parts(tmp_path, "amount > 10 AND m['k'] = 3")
    schema = selected_schema(reader.arrow_schema, ["day", "id"], predicate)
    assert schema.names == ["day", "id", "amount", "m"]
    asked = []
    original = DataFileReader.read_rows
    monkeypatch.setattr(DataFileReader, "read_rows",
                        lambda self, rows, columns: asked.append(list(columns)) or original(self, rows, columns))
    got = read_matching(task, None, schema, predicate, types)
    assert asked == [["amount", "m"], ["day", "id"]]  # the predicate's columns first, each column once
    assert got.schema.names == schema.names and "category" not in {c for a in asked for c in a}
    full = pq.read_table(task.path)
    ids = set(got.column("id").to_pylist())
    assert ids and ids <= set(full.column("id").to_pylist())
    asked.clear()
    verdict = evaluate_file(task, parse_predicate("category = 'a'", types))  # the bitmap's row set
    only = selected_schema(reader.arrow_schema, ["id"], parse_predicate("category = 'a'", types))
    rows = read_verdict(task, verdict, only, None, types)
    assert asked == [["id", "category"]] and rows.num_rows == full.column("category").to_pylist().count("a")


def test_a_bad_selection_is_a_usage_error_naming_the_closest_column(tmp_path):
    write_dataset(tmp_path, files=1)
    _, reader, _, predicate = scan_parts(tmp_path, "id = 1")
    with pytest.raises(UsageError, match="cannot select unknown column 'amout'.*did you mean amount"):
        selected_schema(reader.arrow_schema, ["id", "amout"], predicate)
    with pytest.raises(UsageError, match="did you mean id\\? column names are case-sensitive"):
        selected_schema(reader.arrow_schema, ["ID"], predicate)
    with pytest.raises(UsageError, match="m\\['k'\\].*the schema has"):  # a map is selected whole, by its name
        selected_schema(reader.arrow_schema, ["m['k']"], predicate)
    with pytest.raises(UsageError, match="selected twice"):
        selected_schema(reader.arrow_schema, ["id", "id"], predicate)
    with pytest.raises(UsageError, match="at least one column"):
        selected_schema(reader.arrow_schema, [], predicate)


def test_a_table_read_with_a_selection_reads_only_those_columns(tmp_path, monkeypatch):
    table = tmp_path / "t"
    shutil.copytree(ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap", table)
    inputs = resolve_inputs([str(table)])
    task = inputs.tasks[0]
    types = inputs.table.schema.types()
    predicate = parse_predicate("f0 = 'Alice'", types)
    schema = selected_schema(output_schema(inputs), ["f1"], predicate)
    asked = []
    original = DataFileReader.read_rows
    monkeypatch.setattr(DataFileReader, "read_rows",
                        lambda self, rows, columns: asked.append(list(columns)) or original(self, rows, columns))
    got = read_matching(task, None, schema, predicate, types)
    assert {c for a in asked for c in a} == {"f0", "f1"} and got.schema.names == ["f1", "f0"]
    assert len(inputs.table.schema.fields) > 2


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_a_selection_of_only_columns_added_later_keeps_the_old_files_rows(tmp_path, fmt):
    table = tmp_path / "t"
    name = "append_with_bitmap_alter_table"
    shutil.copytree(ROOT / "tests" / "tables" / fmt / f"{name}.db" / name, table)
    inputs = resolve_inputs([str(table)])
    types = inputs.table.schema.types()
    schema = selected_schema(output_schema(inputs), ["f5"], parse_predicate("f5 IS NULL", types))
    for task in inputs.tasks:
        rows = task.open().row_count
        got = read_matching(task, None, schema, None, types)
        assert got.num_rows == rows
        picked = read_matching(task, np.array([0, rows - 1], dtype=np.int64), schema, None, types)
        assert picked.num_rows == 2


def test_orc_stripe_sizes_are_counted_once(tmp_path, footer_reads, monkeypatch):
    import pyarrow.orc as orc

    path = tmp_path / "t.orc"
    orc.write_table(pa.table({"x": np.arange(5000, dtype=np.int64)}), path, stripe_size=4096)
    stripes = []
    original = orc.ORCFile.read_stripe
    monkeypatch.setattr(orc.ORCFile, "read_stripe", lambda self, i, columns=None: stripes.append(i)
                        or original(self, i, columns=columns))
    first = DataFileReader(path).read_rows(np.array([1, 4999], dtype=np.int64), ["x"])
    counted = len(stripes)
    assert counted > 2  # every stripe counted, then the two holding the rows read
    stripes.clear()
    again = DataFileReader(path).read_rows(np.array([1, 4999], dtype=np.int64), ["x"])
    assert first.column("x").to_pylist() == again.column("x").to_pylist() == [1, 4999]
    assert len(stripes) == 2 and footer_reads == [str(path)]  # only the two stripes holding the rows
