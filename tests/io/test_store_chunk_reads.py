"""A Parquet data file on S3 (moto behind the counting proxy) read through ``DataFileReader``: a row group's column
chunks are fetched together ahead of pyarrow's reads (``ObjectInputFile.prefetch``), so a dense read sends no
more requests and no more bytes than pyarrow's own read of the whole file; a selective read fetches the chunks it
reads and nothing between them; an object replaced after it was opened is still an error."""
from __future__ import annotations

import io
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from parquet_forgery import with_footer

from fileindex.arrow.data_files import DataFileError, DataFileReader, chunk_ranges
from fileindex.io.object_store import TAIL, ObjectChangedError

ROWS = 60_000
COLUMNS = ["a", "b", "c", "d"]


def parquet_bytes() -> bytes:
    """Four columns of random numbers (no codec: each chunk over 64 KiB), one row group."""
    draw = random.Random(7)
    table = pa.table({name: pa.array([draw.getrandbits(62) for _ in range(ROWS)], pa.int64()) for name in COLUMNS})
    out = io.BytesIO()
    pq.write_table(table, out, compression="none", row_group_size=ROWS)
    return out.getvalue()


def data_gets(store, key: str) -> list:
    return [r for r in store.proxy.requests if r.method == "GET" and r.key and r.key.endswith(key)]


def whole_file_read(store, uri: str) -> tuple[int, int]:
    """pyarrow's own read of the whole file over S3 through the same proxy: (GETs, bytes)."""
    from pyarrow import fs

    options = store.options()
    s3 = fs.S3FileSystem(access_key=options["s3.access-key"], secret_key=options["s3.secret-key"],
                         region="us-east-1", endpoint_override=store.proxy.url.removeprefix("http://"),
                         scheme="http")
    store.proxy.clear()
    assert pq.read_table(uri.removeprefix("s3://"), filesystem=s3).num_rows == ROWS
    gets = data_gets(store, "data.parquet")
    return len(gets), sum(r.sent for r in gets)


def test_a_dense_read_sends_no_more_requests_or_bytes_than_a_whole_file_read(s3_store):
    data = parquet_bytes()
    uri = s3_store.put("bucket-0/data.parquet", data)
    requests, sent = whole_file_read(s3_store, uri)
    s3_store.proxy.clear()
    reader = DataFileReader(s3_store.file_io().open_input(uri))
    rows = pa.array(range(0, ROWS, 3), pa.int64())  # (a third of the rows: every page, every column)
    table = reader.read_rows(rows, COLUMNS)
    assert table.num_rows == len(rows)
    assert table.column("d")[5].as_py() == pq.read_table(io.BytesIO(data))["d"][15].as_py()
    ours = data_gets(s3_store, "data.parquet")
    # the footer's GET (the object's last 64 KiB), then one GET for the row group's four chunks
    assert len(ours) == 2 and len(ours) <= requests
    assert sum(r.sent for r in ours) <= min(sent, len(data))


def test_a_selective_read_fetches_its_chunks_and_nothing_between_them(s3_store):
    data = parquet_bytes()
    uri = s3_store.put("bucket-0/data.parquet", data)
    s3_store.proxy.clear()
    reader = DataFileReader(s3_store.file_io().open_input(uri))
    table = reader.read_rows(pa.array([10, 20_000], pa.int64()), ["a", "c"])
    assert table.num_rows == 2
    metadata = pq.ParquetFile(io.BytesIO(data)).metadata
    chunks = sum(length for _, length in chunk_ranges(metadata, [0], ["a", "c"]))
    fetched = data_gets(s3_store, "data.parquet")
    # the chunks of b and d (each over 64 KiB) are not fetched: a and c are two GETs beside the footer's
    assert len(fetched) == 3 and sum(r.sent for r in fetched) == min(TAIL, len(data)) + chunks


def test_an_object_replaced_between_its_footer_and_its_chunks_is_an_error(s3_store):
    data = parquet_bytes()
    uri = s3_store.put("bucket-0/data.parquet", data)
    reader = DataFileReader(s3_store.file_io().open_input(uri))
    s3_store.put("bucket-0/data.parquet", data[:-8] + b"\0\0\0\0PAR1")
    with pytest.raises(ObjectChangedError, match="data.parquet changed since it was opened"):
        reader.read_rows(pa.array(range(0, ROWS, 2), pa.int64()), COLUMNS)


@pytest.mark.parametrize(("store_fixture", "whole"), [("s3_store", "bytes=-{size}"),  # (S3: a suffix range)
                                                    ("azure_store", "bytes=0-{last}")])  # (Azure has none)
def test_a_file_opened_whole_is_one_get_and_every_read_is_served_from_it(request, store_fixture, whole):
    store = request.getfixturevalue(store_fixture)
    data = parquet_bytes()
    uri = store.put("bucket-0/data.parquet", data)
    store.proxy.clear()
    reader = DataFileReader(store.file_io().open_whole(uri, len(data)))
    assert reader.read_rows(pa.array(range(0, ROWS, 3), pa.int64()), COLUMNS).num_rows == ROWS // 3
    sent = [r for r in store.proxy.requests if r.key and r.key.endswith("data.parquet")]
    assert [(r.method, r.range) for r in sent] == [("GET", whole.format(size=len(data), last=len(data) - 1))]
    assert sent[0].sent == len(data)


def test_a_chunk_a_footer_puts_before_the_files_start_is_a_data_file_error(s3_store, tmp_path: Path):
    """Every chunk's data page said to start at byte -5: the prefetch asked the store for that range, and the
    store's refusal ('Unexpected input for byte range') was a StoreError, as if the store had failed; the reader
    refuses the chunk as it does on a local disk."""
    path = tmp_path / "data.parquet"
    path.write_bytes(parquet_bytes())

    def before_the_start(meta):
        for chunk in meta.row_groups[0].columns:
            chunk.meta_data.data_page_offset = -5
            chunk.meta_data.dictionary_page_offset = None

    with_footer(path, before_the_start)
    uri = s3_store.put("bucket-0/data.parquet", path.read_bytes())
    for reader in (DataFileReader(path), DataFileReader(s3_store.file_io().open_input(uri))):
        with pytest.raises(DataFileError, match=f"{reader.path}: Invalid column metadata"):
            reader.read(COLUMNS)


def test_on_azure_a_data_file_of_known_size_is_opened_by_a_plain_range_not_a_head(azure_store):
    data = parquet_bytes()
    uri = azure_store.put("bucket-0/data.parquet", data)
    azure_store.proxy.clear()
    opened = azure_store.file_io().open_sized(uri, len(data))
    assert pq.ParquetFile(opened.native()).metadata.num_rows == ROWS  # (the footer: served from what was fetched)
    sent = [r for r in azure_store.proxy.requests if r.key and r.key.endswith("data.parquet")]
    assert [(r.method, r.range) for r in sent] == [("GET", f"bytes={len(data) - TAIL}-{len(data) - 1}")]


def test_on_azure_an_object_of_another_size_than_its_manifest_says_is_read_as_it_is(azure_store):
    data = parquet_bytes()
    uri = azure_store.put("bucket-0/data.parquet", data)
    for claimed in (len(data) - 100, len(data) + 100):
        opened = azure_store.file_io().open_sized(uri, claimed)
        assert opened.size == len(data) and pq.ParquetFile(opened.native()).metadata.num_rows == ROWS


def test_a_streamed_read_fetches_each_row_group_in_one_get_and_holds_one_at_a_time(s3_store):
    draw = random.Random(5)
    table = pa.table({name: pa.array([draw.getrandbits(62) for _ in range(ROWS)], pa.int64()) for name in COLUMNS})
    out = io.BytesIO()
    pq.write_table(table, out, compression="none", row_group_size=ROWS // 3)
    uri = s3_store.put("bucket-0/data.parquet", out.getvalue())
    s3_store.proxy.clear()
    opened = s3_store.file_io().open_input(uri)
    held = []
    batches = []
    for batch in DataFileReader(opened).iter_batches(COLUMNS, batch_rows=7_000):
        held.append(sum(len(data) for _, data in opened._blocks))
        batches.append(batch)
    assert pa.Table.from_batches(batches).equals(table)
    # the footer's GET, then one a row group (its four chunks side by side), never one a chunk
    assert len(data_gets(s3_store, "data.parquet")) == 1 + 3
    assert max(held) <= len(out.getvalue()) // 3 + 1024  # (one group's chunks at a time)
