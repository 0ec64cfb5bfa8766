"""The per-file side of a primary-key read: a key filter reads only the row groups whose key statistics may
hold a matching key (never dropping one that does), and buckets read ahead on threads come out in order and
stop when the consumer stops."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from fileindex import PaimonTable
from fileindex.arrow.data_files import DataFileReader
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.primary_keys import _groups_keys_may_match, _rows_keys_match, read_buckets
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
    stream.close()  # the readers ahead stop (daemon threads, polling the stop flag)
