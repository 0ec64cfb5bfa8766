"""Candidate rows read page by page (``fileindex.arrow.parquet_pages``): the same rows, in the same types, as
a read of the whole row group, for every writer setting pyarrow has; files without page indexes, and
offset indexes that lie, are read whole."""
import datetime as dt
import decimal
import math
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fileindex.arrow import data_files, parquet_pages
from fileindex.arrow.data_files import DataFileReader


@pytest.fixture(autouse=True)
def fresh_footers():
    data_files.FOOTERS.clear()
    yield
    data_files.FOOTERS.clear()


def sample_table(rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(rows).astype(np.int64)
    nulls = rng.random(rows) < 0.2
    start = dt.datetime(2026, 1, 1)
    return pa.table({
        "id": ids,
        "name": pa.array([None if n else f"name-{i % 97}" for i, n in zip(ids, nulls, strict=True)]),
        "ts": pa.array([start + dt.timedelta(seconds=int(i)) for i in ids], pa.timestamp("us")),
        "zoned": pa.array([start + dt.timedelta(minutes=int(i)) for i in ids], pa.timestamp("ms", tz="UTC")),
        "amount": pa.array([decimal.Decimal(int(i) % 10_000) / 100 for i in ids], pa.decimal128(12, 2)),
        "ratio": pa.array(np.where(nulls, np.nan, rng.random(rows))),
        "flag": pa.array(ids % 3 == 0),
        "day": pa.array([dt.date(2026, 1, 1) + dt.timedelta(days=int(i) % 400) for i in ids], pa.date32()),
        "blob": pa.array([bytes([int(i) % 256]) * (int(i) % 5) for i in ids], pa.binary()),
    })


def write(path, table, **options) -> str:
    options.setdefault("write_page_index", True)
    pq.write_table(table, path, **options)
    return str(path)


def expected(table: pa.Table, rows: np.ndarray, columns: list[str]) -> pa.Table:
    return table.select(columns).take(pa.array(rows, type=pa.int64()))


def same(got: pa.Table, want: pa.Table) -> bool:
    """Equal schemas and values, NaN equal to NaN (which ``Table.equals`` denies)."""
    def values(table):
        return [["NaN" if isinstance(v, float) and math.isnan(v) else v for v in column.to_pylist()]
                for column in table.columns]
    return got.schema == want.schema and values(got) == values(want)


@pytest.fixture
def page_reads(monkeypatch):
    """The columns read page by page (the row group reads of the others are counted apart)."""
    seen = {"paged": 0, "whole": 0}
    original = parquet_pages.read_rows

    def counted(*args):
        columns = original(*args)
        seen["paged"] += sum(column is not None for column in columns.values())
        seen["whole"] += sum(column is None for column in columns.values())
        return columns

    monkeypatch.setattr(parquet_pages, "read_rows", counted)
    return seen


def test_a_few_rows_of_a_large_group_are_read_from_their_pages_only(tmp_path, page_reads):
    table = sample_table(40_000, seed=1)
    path = write(tmp_path / "f.parquet", table, data_page_size=4096, row_group_size=40_000)
    rows = np.array([3, 17_000, 39_999], dtype=np.int64)
    columns = [name for name in table.column_names if name != "flag"]  # (40,000 booleans fill two pages)
    got = DataFileReader(path).read_rows(rows, columns)
    assert same(got, expected(table, rows, columns))
    assert page_reads == {"paged": len(columns), "whole": 0}


def test_pages_written_after_the_dictionary_overflowed_are_read_without_it(tmp_path, monkeypatch):
    """A writer goes on in PLAIN once its dictionary is full: rows on those pages are read without copying
    (and decoding) the dictionary page; rows on dictionary-encoded pages still get it."""
    table = sample_table(40_000, seed=4)
    path = write(tmp_path / "f.parquet", table, data_page_size=4096, row_group_size=40_000,
                 dictionary_pagesize_limit=8192, compression="none")
    copies = []
    original = parquet_pages._needs_dictionary
    monkeypatch.setattr(parquet_pages, "_needs_dictionary", lambda *a: copies.append(original(*a)) or copies[-1])
    for rows, with_dictionary in ((np.array([1, 2]), True), (np.array([30_000, 39_999]), False)):
        copies.clear()
        got = DataFileReader(path).read_rows(rows, ["id"])
        assert same(got, expected(table, rows, ["id"]))
        assert copies == [with_dictionary]


def test_rows_on_two_thirds_of_the_pages_are_still_read_from_them(tmp_path, page_reads):
    """Decoding a third of a column less pays for the copy (parquet_pages.WHOLE_SHARE)."""
    table = sample_table(30_000, seed=5)
    path = write(tmp_path / "f.parquet", table, data_page_size=2048, row_group_size=30_000, use_dictionary=False)
    with open(path, "rb") as file:
        offsets, sizes, firsts = parquet_pages.PagedFooter.read(path).pages(file.fileno(), 0, 0)
    pages = np.arange(0, len(offsets), 3)
    rows = np.sort(np.concatenate([firsts[pages], firsts[pages + 1]]))  # the first row of 2 pages in 3
    assert 0.5 < sizes[np.unique(np.searchsorted(firsts, rows, side="right") - 1)].sum() / sizes.sum() < 0.8
    got = DataFileReader(path).read_rows(rows, ["id"])
    assert same(got, expected(table, rows, ["id"]))
    assert page_reads == {"paged": 1, "whole": 0}


def test_rows_on_most_pages_read_the_column_whole(tmp_path, page_reads):
    table = sample_table(8_000, seed=2)
    path = write(tmp_path / "f.parquet", table, data_page_size=1 << 20)  # one page a column
    rows = np.array([5, 500], dtype=np.int64)
    got = DataFileReader(path).read_rows(rows, ["id", "name"])
    assert same(got, expected(table, rows, ["id", "name"]))
    assert page_reads == {"paged": 0, "whole": 2}


def test_a_file_without_page_indexes_is_read_by_row_group(tmp_path, page_reads):
    table = sample_table(5_000, seed=3)
    path = write(tmp_path / "f.parquet", table, write_page_index=False, data_page_size=2048)
    rows = np.array([1, 4_000], dtype=np.int64)
    assert same(DataFileReader(path).read_rows(rows, ["id", "ts"]), expected(table, rows, ["id", "ts"]))
    assert page_reads == {"paged": 0, "whole": 0}  # no footer for page reads: never asked


def test_an_offset_index_that_lies_is_not_believed(tmp_path):
    """Pages said to lie elsewhere than the chunk's pages (shifted, or not back to back): Unreadable."""
    from thrift.Thrift import TType

    for shift in ([1, 0], [0, 1]):  # the first page moved; the second page not where the first ends
        path = write(tmp_path / f"f{shift}.parquet", sample_table(20_000, seed=4), data_page_size=4096)
        footer = parquet_pages.PagedFooter.read(path)
        chunk = footer.row_groups[0][parquet_pages.GROUP_COLUMNS][1][1][0]
        with open(path, "rb") as file:
            index = parquet_pages.decode(os.pread(file.fileno(), chunk[parquet_pages.CHUNK_OFFSET_INDEX_LENGTH][1],
                                                  chunk[parquet_pages.CHUNK_OFFSET_INDEX_OFFSET][1]))
        for page, by in zip(index[parquet_pages.LOCATIONS][1][1], shift, strict=False):
            page[parquet_pages.PAGE_OFFSET] = (TType.I64, page[parquet_pages.PAGE_OFFSET][1] + by)
        lying = parquet_pages.encode(index)
        with open(path, "ab") as file:
            at = file.tell()
            file.write(lying)
        chunk[parquet_pages.CHUNK_OFFSET_INDEX_OFFSET] = (TType.I64, at)
        chunk[parquet_pages.CHUNK_OFFSET_INDEX_LENGTH] = (TType.I32, len(lying))
        with pytest.raises(parquet_pages.Unreadable, match="back to back"):
            parquet_pages.read_rows(path, footer, 0, np.array([5], dtype=np.int64), ["id"])


def test_a_damaged_offset_index_reads_the_group_whole(tmp_path, page_reads):
    table = sample_table(20_000, seed=5)
    path = write(tmp_path / "f.parquet", table, data_page_size=4096)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
    data = bytearray((tmp_path / "f.parquet").read_bytes())
    footer = parquet_pages.PagedFooter.read(path)
    index_at = footer.row_groups[0][1][1][1][0][parquet_pages.CHUNK_OFFSET_INDEX_OFFSET][1]
    data[index_at:index_at + 8] = b"\xff" * 8  # the offset index of column id: garbage
    (tmp_path / "f.parquet").write_bytes(bytes(data))
    rows = np.array([2, 19_000], dtype=np.int64)
    assert chunk.has_offset_index
    assert same(DataFileReader(path).read_rows(rows, ["id", "name"]), expected(table, rows, ["id", "name"]))


def test_the_footer_tree_writes_back_byte_for_byte(tmp_path):
    for seed, options in enumerate([{}, {"compression": "zstd"}, {"data_page_version": "2.0"},
                                    {"use_dictionary": False}]):
        write(tmp_path / f"f{seed}.parquet", sample_table(3_000, seed), data_page_size=1024, **options)
        data = (tmp_path / f"f{seed}.parquet").read_bytes()
        length = int.from_bytes(data[-8:-4], "little")
        footer = data[-8 - length:-8]
        assert parquet_pages.encode(parquet_pages.decode(footer)) == footer


def test_an_undecodable_footer_structure_is_a_typed_error():
    for garbage in (b"", b"\x19\xfc", b"\x1c" * 5000, b"\xff" * 64):
        with pytest.raises(parquet_pages.Unreadable):
            parquet_pages.decode(garbage)


WRITER_OPTIONS = st.fixed_dictionaries({
    "compression": st.sampled_from(["none", "snappy", "zstd", "gzip"]),
    "use_dictionary": st.booleans(),
    "data_page_version": st.sampled_from(["1.0", "2.0"]),
    "data_page_size": st.sampled_from([512, 2048, 16_384]),
    "row_group_size": st.sampled_from([1_000, 4_000, 10_000]),
    "dictionary_pagesize_limit": st.sampled_from([256, 4096, 1 << 20]),  # small: PLAIN pages after a dictionary
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=WRITER_OPTIONS, seed=st.integers(0, 10_000), data=st.data())
def test_page_reads_equal_row_group_reads(tmp_path_factory, options, seed, data):
    table = sample_table(10_000, seed)
    path = write(tmp_path_factory.mktemp("pages") / "f.parquet", table, **options)
    columns = data.draw(st.lists(st.sampled_from(table.column_names), min_size=1, max_size=4, unique=True))
    count = data.draw(st.integers(1, 60))
    rows = np.unique(np.array(data.draw(st.lists(st.integers(0, 9_999), min_size=count, max_size=count)),
                              dtype=np.int64))
    data_files.FOOTERS.clear()
    got = DataFileReader(path).read_rows(rows, columns)
    assert got.schema == table.select(columns).schema
    assert same(got, expected(table, rows, columns))
