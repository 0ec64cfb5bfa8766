"""The per-file side of a primary-key read: a key filter reads only the row groups whose key statistics may
hold a matching key (never dropping one that does), and buckets read ahead on threads come out in order and
stop when the consumer stops."""
from __future__ import annotations

import datetime
import decimal
import threading

import numpy as np

import pyarrow as pa
import pytest
import pyarrow.parquet as pq

from fileindex import PaimonTable
from fileindex.arrow.data_files import DataFileReader
from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Leaf, or_
from fileindex.scan.primary_keys import (
    _candidate_type,
    _groups_keys_may_match,
    _rows_keys_match,
    read_buckets,
)
from fileindex.scan.truth import matches, python_values
from fileindex.types import parse_type

from conftest import ROOT


def test_row_groups_are_kept_where_their_keys_may_match(tmp_path):
    path = tmp_path / "kv.parquet"
    pq.write_table(pa.table({"_KEY_id": pa.array(range(10_000), pa.int64())}), path, row_group_size=1000)
    reader = DataFileReader(path)
    types = {"id": parse_type("BIGINT NOT NULL")}
    for where, groups, truth in [("id = 4321", {4}, [4321]), ("id >= 8500 OR id < 10", {0, 8, 9},
                                                                [*range(10), *range(8500, 10_000)]),
                                 ("id IN (1, 9999)", {0, 9}, [1, 9999]), ("id = -5", set(), []),
                                 ("id IS NULL", set(), [])]:
        predicate = parse_predicate(where, types)
        assert set(_groups_keys_may_match(reader, {"id": "_KEY_id"}, predicate, types) or ()) == groups, where
        rows = _rows_keys_match(reader, {"id": "_KEY_id"}, predicate, types)
        assert rows.tolist() == truth, where


def test_buckets_read_ahead_come_out_in_order_and_stop_with_the_consumer():
    table = PaimonTable(ROOT / "tests" / "tables" / "primary-keys" / "deduplicate")
    scan = table.scan()
    reads = [f for f in scan.plan() if f.to_read]
    assert len(reads) > 2
    one = [t.to_pylist() for t in read_buckets(reads, scan.read_schema, None, scan.types, 1)]
    assert [t.to_pylist() for t in read_buckets(reads, scan.read_schema, None, scan.types, 3)] == one
    stream = read_buckets(reads, scan.read_schema, None, scan.types, 3)
    assert next(stream).to_pylist() == one[0]
    before = set(threading.enumerate())
    stream.close()  # the readers ahead stop, and are waited for: no file is opened once it returns
    assert not [t for t in before if t.is_alive() and t.name == "fileindex-read-ahead"]


def test_the_consumer_merges_the_bucket_it_is_at(monkeypatch):
    """No consumer blocked on a reader thread for work it could do itself: the first bucket is merged by the
    consumer, and a bucket read ahead is taken over when the consumer reaches it."""
    import fileindex.scan.primary_keys as primary_keys

    table = PaimonTable(ROOT / "tests" / "tables" / "primary-keys" / "deduplicate")
    scan = table.scan()
    reads = [f for f in scan.plan() if f.to_read]
    assert len(reads) > 2
    one = [t.to_pylist() for t in read_buckets(reads, scan.read_schema, None, scan.types, 1)]
    made: list[tuple[int, str]] = []  # per table merged: its bucket and thread
    read_bucket = primary_keys.read_bucket

    def recording(item, *args):
        for found in read_bucket(item, *args):
            made.append((reads.index(item), threading.current_thread().name))
            yield found

    monkeypatch.setattr(primary_keys, "read_bucket", recording)
    assert [t.to_pylist() for t in read_buckets(reads, scan.read_schema, None, scan.types, 2)] == one
    consumer = threading.current_thread().name
    assert {name for bucket, name in made if bucket == 0} == {consumer}
    assert {name for _, name in made} <= {consumer, "fileindex-read-ahead"}


def sorted_keys_file(path, page_index: bool = True, required: bool = True) -> DataFileReader:
    """A key-value file's key column sorted, 20,000 keys in one row group of about 40 pages (``required``: NOT
    NULL, as Java writes a key, whose PLAIN pages are decoded page by page; else read by rows)."""
    keys = pa.array(range(0, 40_000, 2), pa.int64())
    schema = pa.schema([pa.field("_KEY_id", pa.int64(), nullable=not required), pa.field("v", pa.int32())])
    pq.write_table(pa.table({"_KEY_id": keys, "v": pa.array(range(20_000), pa.int32())}, schema=schema), path,
                   row_group_size=1_000_000, data_page_size=4096, write_page_index=page_index, use_dictionary=False)
    return DataFileReader(path)


def counting_reads(monkeypatch, paged: list[int] | None = None) -> list[int]:
    """How many rows each ``read_rows`` or ``page_values`` of the keys asks for (or gets), and -1 for each row
    group read whole; ``paged``: the rows each ``page_values`` decoded."""
    counts: list[int] = []
    read_rows, read_groups, page_values = DataFileReader.read_rows, DataFileReader.read_groups, \
        DataFileReader.page_values

    def counted_pages(self, column, group, pages):
        found = page_values(self, column, group, pages)
        counts.append(len(found) if found is not None else 0)
        if found is not None and paged is not None:
            paged.append(len(found))
        return found

    monkeypatch.setattr(DataFileReader, "read_rows",
                        lambda self, rows, columns: counts.append(len(rows)) or read_rows(self, rows, columns))
    monkeypatch.setattr(DataFileReader, "read_groups",
                        lambda self, groups, columns: counts.append(-1) or read_groups(self, groups, columns))
    monkeypatch.setattr(DataFileReader, "page_values", counted_pages)
    return counts


KEY_CASES = [("id = 4322", [2161]), ("id = 4321", []), ("id >= 39990 OR id < 6", [0, 1, 2, *range(19995, 20_000)]),
             ("id IN (2, 39998)", [1, 19999]), ("id = -5", []), ("id BETWEEN 100 AND 104", [50, 51, 52])]


@pytest.mark.parametrize("required", [True, False])
def test_pages_are_read_where_their_keys_may_match(tmp_path, monkeypatch, required):
    """A group's key column has a column index (as Java's and pypaimon-rust's writers keep): only the pages
    whose bounds may hold a matching key are read (decoded page by page: a nullable key's too, its pages holding
    no null), and the positions are those of a whole read."""
    reader = sorted_keys_file(tmp_path / "kv.parquet", required=required)
    types = {"id": parse_type("BIGINT NOT NULL")}
    bounds = reader.page_bounds("_KEY_id", 0)
    assert bounds is not None and len(bounds.bounds) > 10
    keys = reader.read(["_KEY_id"]).column(0).to_numpy()
    for page, (low, high, _) in enumerate(bounds.bounds):  # (the claims are the pages' own keys)
        assert (low, high) == (keys[bounds.firsts[page]], keys[bounds.firsts[page + 1] - 1])
    paged: list[int] = []
    counts = counting_reads(monkeypatch, paged)
    for where, truth in KEY_CASES:
        counts.clear()
        paged.clear()
        rows = _rows_keys_match(reader, {"id": "_KEY_id"}, parse_predicate(where, types), types)
        assert rows.tolist() == truth, where
        assert -1 not in counts and sum(counts) <= 3 * max(np.diff(bounds.firsts)), (where, counts)
        assert bool(paged) == (where != "id = -5"), (where, paged)  # (no page may hold -5)


def test_keys_without_a_usable_column_index_are_read_by_row_group(tmp_path, monkeypatch):
    """No column index, or one that does not decode or does not give each page its bounds: the row group's
    keys are read whole, and the positions are the same."""
    from parquet_forgery import footer_of

    types = {"id": parse_type("BIGINT NOT NULL")}
    plain = sorted_keys_file(tmp_path / "plain.parquet", page_index=False)
    assert plain.page_bounds("_KEY_id", 0) is None
    damaged = tmp_path / "damaged.parquet"
    sorted_keys_file(damaged)
    data = bytearray(damaged.read_bytes())
    chunk = footer_of(bytes(data))[0].row_groups[0].columns[0]
    at, length = chunk.column_index_offset, chunk.column_index_length
    data[at:at + length] = bytes([0x19]) + b"\xff" * (length - 1)  # (a list header claiming too many entries)
    damaged.write_bytes(bytes(data))
    counts = counting_reads(monkeypatch)
    for reader in (plain, DataFileReader(damaged)):
        assert reader.page_bounds("_KEY_id", 0) is None
        for where, truth in KEY_CASES:
            counts.clear()
            assert _rows_keys_match(reader, {"id": "_KEY_id"}, parse_predicate(where, types), types).tolist() == truth
            assert counts == [-1] or not truth and counts in ([], [-1]), (where, counts)


def string_key(number: int) -> str:
    """A long key with a two-byte character inside, where a column index's truncated minimum is cut."""
    return f"{'x' * 70}{number // 100:02d}\u00e9{number % 100:02d}"


def truncated_bounds(index):
    """String bounds cut as parquet-mr cuts them: a minimum to 73 bytes (inside its 'é'), a maximum to 75 bytes
    with its last byte rounded up."""
    index.min_values = [value[:73] for value in index.min_values]
    index.max_values = [value[:74] + bytes([value[74] + 1]) for value in index.max_values]
    return index


def test_a_string_keys_pages_are_read_where_their_truncated_bounds_may_match(tmp_path, monkeypatch):
    """A string key's column index, its bounds truncated (a minimum cut inside a character): only the pages whose
    bounds may hold a matching key are read (in row groups whose string statistics go untested), and the positions are
    those of a whole read."""
    from parquet_forgery import with_column_index

    path = tmp_path / "kv.parquet"
    keys = pa.array([string_key(number) for number in range(4000)], pa.string())
    schema = pa.schema([pa.field("_KEY_id", pa.string(), nullable=False)])
    pq.write_table(pa.table({"_KEY_id": keys}, schema=schema), path, row_group_size=1_000_000,
                   max_rows_per_page=20, write_page_index=True, use_dictionary=False)
    with_column_index(path, 0, 0, truncated_bounds)
    reader = DataFileReader(path)
    types = {"id": parse_type("STRING NOT NULL")}
    bounds = reader.page_bounds("_KEY_id", 0)
    assert bounds is not None and len(bounds.bounds) == 200 and len(bounds.bounds[0][0]) == 73
    whole = pa.table({"id": keys})
    counts = counting_reads(monkeypatch)
    for predicate in [Leaf(Operator.EQ, "id", (string_key(1234),)), Leaf(Operator.EQ, "id", ("x" * 70 + "12",)),
                      Leaf(Operator.IN, "id", (string_key(7), string_key(3999))),
                      or_(Leaf(Operator.GTE, "id", (string_key(3990),)), Leaf(Operator.LT, "id", (string_key(3),))),
                      Leaf(Operator.BETWEEN, "id", (string_key(500), string_key(504)))]:
        counts.clear()
        rows = _rows_keys_match(reader, {"id": "_KEY_id"}, predicate, types)
        assert rows.tolist() == np.flatnonzero(matches(whole, predicate, types)).tolist(), predicate
        assert counts and -1 not in counts and sum(counts) <= 300, (predicate, counts)  # (not the file whole)


@pytest.mark.parametrize("type_text, values", [
    ("DATE", pa.array([datetime.date(2024, 1, 1), datetime.date(1969, 12, 31)], pa.date32())),
    ("DECIMAL(10, 2)", pa.array([decimal.Decimal("1.50"), decimal.Decimal("-3.07")], pa.decimal128(10, 2))),
    ("TIMESTAMP(9)", pa.array([1_700_000_000_123_456_789, 1_700_000_000_123_456_790, -1], pa.timestamp("ns"))),
    ("TIMESTAMP(3)", pa.array([1_700_000_000_123, -1], pa.timestamp("ms"))),
    ("TIMESTAMP(6) WITH LOCAL TIME ZONE", pa.array([1_700_000_000_123_456, 0], pa.timestamp("us", tz="UTC"))),
    ("BYTES", pa.array([b"a", b"\x00b", b"a\x00"], pa.binary())),
    ("INT", pa.array([7, -7], pa.int32())),
])
def test_candidate_key_literals_select_their_own_records_alone(type_text, values):
    """A candidate record's key value as the literal of the key filter's IN (dates as days, timestamps to the
    nanosecond) matches that record and no other: a literal that lost precision would drop a key's records from
    the merge (or keep another's)."""
    kind = parse_type(type_text)
    assert _candidate_type(kind)
    literals = python_values(values, kind)
    table, types = pa.table({"k": values}), {"k": kind}
    for number, literal in enumerate(literals):
        assert list(matches(table, Leaf(Operator.IN, "k", (literal,)), types)) == \
            [row == number for row in range(len(values))], literal


def test_floating_keys_are_merged_whole():
    assert not _candidate_type(parse_type("DOUBLE")) and not _candidate_type(parse_type("FLOAT"))
