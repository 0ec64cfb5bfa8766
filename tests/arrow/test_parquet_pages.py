"""Candidate rows read page by page (``fileindex.arrow.parquet_pages``): the same rows, in the same types, as
a read of the whole row group, for every writer setting pyarrow has; files without page indexes, and
offset indexes that lie (checked against the pages' headers), are read whole."""
import datetime as dt
import decimal
import math
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parquet_forgery import (
    data_page,
    footer_of,
    locations,
    raw_offset_index,
    read_of_a_damaged_page,
    with_footer,
    with_offset_indexes,
)

from fileindex.arrow import data_files, parquet_pages
from fileindex.arrow.data_files import DataFileError, DataFileReader
from fileindex.generated.parquet_thrift.ttypes import FileMetaData, PageHeader, PageLocation


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
    table = pa.table({
        "id": ids,
        "key": pa.array(ids * 3, pa.int64()),
        "count": pa.array(ids % 1000, pa.int32()),
        "weight": pa.array(rng.random(rows), pa.float64()),
        "name": pa.array([None if n else f"name-{i % 97}" for i, n in zip(ids, nulls, strict=True)]),
        "ts": pa.array([start + dt.timedelta(seconds=int(i)) for i in ids], pa.timestamp("us")),
        "zoned": pa.array([start + dt.timedelta(minutes=int(i)) for i in ids], pa.timestamp("ms", tz="UTC")),
        "amount": pa.array([decimal.Decimal(int(i) % 10_000) / 100 for i in ids], pa.decimal128(12, 2)),
        "ratio": pa.array(np.where(nulls, np.nan, rng.random(rows))),
        "flag": pa.array(ids % 3 == 0),
        "day": pa.array([dt.date(2026, 1, 1) + dt.timedelta(days=int(i) % 400) for i in ids], pa.date32()),
        "blob": pa.array([bytes([int(i) % 256]) * (int(i) % 5) for i in ids], pa.binary()),
    })
    return table.cast(pa.schema([field.with_nullable(field.name not in REQUIRED) for field in table.schema]))


REQUIRED = ("key", "count", "weight")  # required numbers: their PLAIN pages are decoded without pyarrow


def decimals_as_integers() -> bool:
    """Can this pyarrow's writer store decimals as INT32/INT64, as parquet-mr does (pyarrow 16 cannot)?"""
    try:
        pq.write_table(pa.table({"d": pa.array([], pa.decimal128(5, 2))}), pa.BufferOutputStream(),
                       store_decimal_as_integer=True)
    except TypeError:
        return False
    return True


DECIMALS_AS_INTEGERS = decimals_as_integers()


def write(path, table, **options) -> str:
    """``table`` written to ``path`` with its page index (decimals as integers only where this pyarrow can)."""
    options.setdefault("write_page_index", True)
    if not DECIMALS_AS_INTEGERS:
        options.pop("store_decimal_as_integer", None)
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


def test_pages_written_after_the_dictionary_overflowed_are_read_without_it(tmp_path, ranges):
    """A writer goes on in PLAIN once its dictionary is full: rows on those pages are read without reading
    (and decoding) the dictionary page; rows on dictionary-encoded pages still get it."""
    table = sample_table(40_000, seed=4)
    path = write(tmp_path / "f.parquet", table, data_page_size=4096, row_group_size=40_000,
                 dictionary_pagesize_limit=8192, compression="none")
    footer = parquet_pages.PagedFooter.read(path)
    with open(path, "rb") as file:
        dictionary = footer.pages(file.fileno(), 0, footer.leaves["id"]).dictionary
    for rows, with_dictionary in ((np.array([1, 2]), True), (np.array([30_000, 39_999]), False)):
        data_files.FOOTERS.clear()
        ranges.clear()
        got = DataFileReader(path).read_rows(rows, ["id"])
        assert same(got, expected(table, rows, ["id"]))
        assert (dictionary in ranges) == with_dictionary


def test_rows_on_two_thirds_of_the_pages_are_still_read_from_them(tmp_path, page_reads):
    """Decoding a third of a column less pays for the copy (parquet_pages.WHOLE_SHARE)."""
    table = sample_table(30_000, seed=5)
    path = write(tmp_path / "f.parquet", table, data_page_size=2048, row_group_size=30_000, use_dictionary=False)
    with open(path, "rb") as file:
        pages = parquet_pages.PagedFooter.read(path).pages(file.fileno(), 0, 0)
    offsets, sizes, firsts = (np.array(column) for column in (pages.offsets, pages.sizes, pages.firsts))
    pages = np.arange(0, len(offsets), 3)
    rows = np.sort(np.concatenate([firsts[pages], firsts[pages + 1]]))  # the first row of 2 pages in 3
    assert 0.5 < sizes[np.unique(np.searchsorted(firsts, rows, side="right") - 1)].sum() / sizes.sum() < 0.8
    got = DataFileReader(path).read_rows(rows, ["id"])
    assert same(got, expected(table, rows, ["id"]))
    assert page_reads == {"paged": 1, "whole": 0}


def test_rows_on_most_pages_read_strings_whole_and_numbers_from_their_pages(tmp_path, page_reads):
    """Strings whose wanted rows lie on most of their pages are read whole; numbers are decoded here from every page
    holding a wanted row (``parquet_pages._read_here``)."""
    table = sample_table(8_000, seed=2)
    path = write(tmp_path / "f.parquet", table, data_page_size=1 << 20)  # one page a column
    rows = np.array([5, 500], dtype=np.int64)
    got = DataFileReader(path).read_rows(rows, ["id", "name"])
    assert same(got, expected(table, rows, ["id", "name"]))
    assert page_reads == {"paged": 1, "whole": 1}


def test_a_file_without_page_indexes_is_read_by_row_group(tmp_path, page_reads):
    table = sample_table(5_000, seed=3)
    path = write(tmp_path / "f.parquet", table, write_page_index=False, data_page_size=2048)
    rows = np.array([1, 4_000], dtype=np.int64)
    assert same(DataFileReader(path).read_rows(rows, ["id", "ts"]), expected(table, rows, ["id", "ts"]))
    assert page_reads == {"paged": 0, "whole": 0}  # no footer for page reads: never asked


def test_a_damaged_offset_index_reads_the_group_whole(tmp_path, page_reads):
    table = sample_table(20_000, seed=5)
    path = write(tmp_path / "f.parquet", table, data_page_size=4096)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
    data = bytearray((tmp_path / "f.parquet").read_bytes())
    index_at = parquet_pages.PagedFooter.read(path).row_groups[0].columns[0].offset_index_offset
    data[index_at:index_at + 8] = b"\xff" * 8  # the offset index of column id: garbage
    (tmp_path / "f.parquet").write_bytes(bytes(data))
    rows = np.array([2, 19_000], dtype=np.int64)
    assert chunk.has_offset_index
    assert same(DataFileReader(path).read_rows(rows, ["id", "name"]), expected(table, rows, ["id", "name"]))
    assert page_reads == {"paged": 0, "whole": 0}  # (a column that cannot be read so: the group read whole)


WRITERS = [{}, {"compression": "zstd"}, {"data_page_version": "2.0"}, {"use_dictionary": False},
           {"store_schema": False, "write_statistics": False}]


@pytest.mark.parametrize("options", WRITERS, ids=str)
def test_what_a_copy_carries_of_the_footer_is_its_own_bytes(tmp_path, options):
    """A copied column's footer carries its schema element, its column order and the writer's name: each
    encodes back to the very bytes of the file's footer."""
    path = write(tmp_path / "f.parquet", sample_table(3_000, 1), data_page_size=1024, **options)
    data = (tmp_path / "f.parquet").read_bytes()
    raw = data[-8 - int.from_bytes(data[-8:-4], "little"):-8]
    meta = parquet_pages.PagedFooter.read(path).meta
    assert parquet_pages.written_back_verbatim(meta, raw)
    for element in meta.schema:
        assert parquet_pages.encode(element) in raw
    assert meta.column_orders and all(parquet_pages.encode(order) in raw for order in meta.column_orders)
    assert meta.created_by.encode() in raw


def test_a_footer_holding_what_the_classes_do_not_declare_is_read_by_row_group(tmp_path, page_reads):
    """A schema element with a field of a later Parquet version would lose it in the copy's footer: the file is
    read by row group (pyarrow skips the field)."""
    table = sample_table(20_000, seed=6)
    path = write(tmp_path / "f.parquet", table, data_page_size=4096)
    data = (tmp_path / "f.parquet").read_bytes()
    meta, footer_at = footer_of(data)
    raw = data[footer_at:-8]
    head = parquet_pages.encode(FileMetaData(version=meta.version, schema=meta.schema))[:-1]
    # field 99 (i32, the long field header: no delta) before the last schema element's stop
    forged = head[:-1] + b"\x05\xc6\x01\x02" + head[-1:] + raw[len(head):]
    (tmp_path / "f.parquet").write_bytes(data[:footer_at] + forged + len(forged).to_bytes(4, "little") + b"PAR1")
    with pytest.raises(parquet_pages.Unreadable, match="does not declare"):
        parquet_pages.PagedFooter.read(path)
    rows = np.array([5, 17_000], dtype=np.int64)
    assert same(DataFileReader(path).read_rows(rows, ["id", "blob"]), expected(table, rows, ["id", "blob"]))
    assert page_reads == {"paged": 0, "whole": 0}


def test_undecodable_structures_are_a_typed_error():
    """Truncated, garbage or nested past any real footer (a field the classes skip, nested 200,000 deep,
    overflowed the C stack of thrift before 0.25: a crash)."""
    for garbage in (b"", b"\x19\xfc", b"\x1c" * 5000, b"\xff" * 64, b"\x19\x1c" * 5000, b"\x6c" * 200_000):
        for kind in (FileMetaData, PageHeader):
            with pytest.raises(parquet_pages.Unreadable):
                parquet_pages.decode(kind, garbage, len(garbage))



def test_the_c_decoder_without_the_protocol_module_decodes_as_the_pure_python_protocol(tmp_path, monkeypatch):
    """``decode`` hands Thrift's C decoder its inputs without ``TCompactProtocolAccelerated`` (whose module imports
    uuid): a footer and its re-encoding equal the pure-Python protocol's, and garbage is the same
    typed error both ways."""
    write(tmp_path / "f.parquet", sample_table(3_000, 2), data_page_size=1024, compression="zstd")
    data = (tmp_path / "f.parquet").read_bytes()
    raw = data[-8 - int.from_bytes(data[-8:-4], "little"):-8]
    fast, taken = parquet_pages.decode(FileMetaData, raw, len(raw))
    assert isinstance(parquet_pages._compact_input(None, 1), parquet_pages._CompactInput)
    fast_bytes = parquet_pages.encode(fast)
    monkeypatch.setattr(parquet_pages, "_fastbinary", lambda: None)
    slow, slow_taken = parquet_pages.decode(FileMetaData, raw, len(raw))
    assert (fast, taken) == (slow, slow_taken) and taken == len(raw)
    assert fast_bytes == parquet_pages.encode(slow) and raw.startswith(fast_bytes[:200])
    for garbage in (b"\x19\xfc", b"\xff" * 64):
        with pytest.raises(parquet_pages.Unreadable):
            parquet_pages.decode(FileMetaData, garbage, len(garbage))


# --- offset indexes that lie: the rows are a whole read's, whatever the index says

def small_pages(tmp_path, rows: int = 30, **options) -> tuple[str, pa.Table]:
    """A file of ``rows`` rows (k: 0, 1, ...; v: 'v0', 'v1', ...) in pages of 5 rows, with page indexes."""
    table = pa.table({"k": pa.array(range(rows), pa.int64()), "v": [f"v{i}" for i in range(rows)]})
    path = write(tmp_path / "t.parquet", table, data_page_size=1, write_batch_size=5, **options)
    assert len(locations((tmp_path / "t.parquet").read_bytes(), 0, 0)) == rows // 5
    return path, table


def whole(path: str, rows, columns: list[str]) -> pa.Table:
    """``rows`` of a read of the whole file, as the truth to compare page reads with."""
    return pq.read_table(path, columns=columns).take(pa.array(rows, type=pa.int64()))


def each_row(path: str, table: pa.Table, columns: list[str]):
    for row in range(table.num_rows):
        data_files.FOOTERS.clear()
        yield row, DataFileReader(path).read_rows(np.array([row], dtype=np.int64), columns)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_pages_said_to_start_early_are_not_believed(tmp_path, page_reads, version):
    """Two pages said to start 2 rows early (the first rows still increasing): each page's header says how many
    rows it holds, and a page whose count is not the index's is not read from."""
    path, table = small_pages(tmp_path, data_page_version=version)

    def early(group, leaf, pages):
        for page in pages[3:5]:
            page.first_row_index -= 2
        return pages

    with_offset_indexes(Path(path), early)
    for row, got in each_row(path, table, ["k", "v"]):
        assert got.to_pylist() == [{"k": row, "v": f"v{row}"}]
    assert page_reads["paged"] == 0


def test_a_lie_on_one_column_does_not_mix_rows(tmp_path, page_reads):
    path, table = small_pages(tmp_path)
    with_offset_indexes(Path(path), lambda group, leaf, pages: [
        PageLocation(p.offset, p.compressed_page_size, p.first_row_index - (2 if i in (3, 4) else 0))
        for i, p in enumerate(pages)] if leaf == 1 else None)
    for row, got in each_row(path, table, ["k", "v"]):
        assert got.to_pylist() == [{"k": row, "v": f"v{row}"}]
    assert page_reads["paged"] == 0


def test_pages_of_two_gigabytes_are_refused_in_bounded_memory(tmp_path, page_reads):
    """Every page said to be 2^31-1 bytes, back to back from the first: outside the chunk, never read."""
    path, table = small_pages(tmp_path)

    def huge(group, leaf, pages):
        return [PageLocation(pages[0].offset + i * (2**31 - 1), 2**31 - 1, p.first_row_index)
                for i, p in enumerate(pages)]

    with_offset_indexes(Path(path), huge)
    tracemalloc.start()
    try:
        got = [table for _, table in each_row(path, table, ["k", "v"])]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [t.to_pylist() for t in got] == [[{"k": row, "v": f"v{row}"}] for row in range(table.num_rows)]
    assert peak < 16 << 20 and page_reads["paged"] == 0


def empty_entries(count: int, present: int) -> bytes:
    """An offset index declaring ``count`` page locations, ``present`` of them there (empty: a stop byte each)."""
    varint = bytearray()
    while True:
        varint.append(count & 0x7F | (0x80 if count > 0x7F else 0))
        count >>= 7
        if not count:
            break
    return b"\x19\xfc" + bytes(varint) + b"\x00" * present + b"\x00"  # field 1: a list of structs; the stop


@pytest.mark.parametrize("count, present, reason", [(2_000_000, 2_000_000, "bytes for 30 rows"),
                                                    (2_000_000, 20, "limit"), (31, 31, "limit")])
def test_an_offset_index_of_more_entries_than_rows_is_refused_before_it_is_decoded(tmp_path, page_reads, count,
                                                                                  present, reason):
    """A page holds a row at least: an index longer than a row each makes is refused before it is read, and a
    list declaring more entries than the group has rows from that length, before its entries are decoded (16M
    empty entries, a 17 MB file, took 81 s and 1.8 GB)."""
    path, table = small_pages(tmp_path)
    raw_offset_index(Path(path), 0, 0, empty_entries(count, present))
    with open(path, "rb") as file, pytest.raises(parquet_pages.Unreadable, match=reason):
        parquet_pages.PagedFooter.read(path).pages(file.fileno(), 0, 0)
    tracemalloc.start()
    try:
        data_files.FOOTERS.clear()
        got = DataFileReader(path).read_rows(np.array([7], dtype=np.int64), ["k", "v"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.to_pylist() == [{"k": 7, "v": "v7"}]
    assert peak < 1 << 20 and page_reads == {"paged": 0, "whole": 0}


@pytest.mark.parametrize("dictionary", [False, True])
def test_pages_past_the_end_of_their_chunk_are_not_read(tmp_path, page_reads, dictionary):
    """A chunk whose footer says it ends before its last page: a whole read fails, and so does a page read
    (rather than read what the whole read cannot)."""
    path, table = small_pages(tmp_path, use_dictionary=dictionary)

    def shorter(meta):
        meta.row_groups[0].columns[0].meta_data.total_compressed_size -= 1

    with_footer(Path(path), shorter)
    with pytest.raises(OSError):
        pq.read_table(path)
    with pytest.raises(DataFileError):
        DataFileReader(path).read_rows(np.array([2], dtype=np.int64), ["k"])
    assert page_reads["paged"] == 0


def test_an_offset_index_of_more_pages_than_rows_is_refused(tmp_path, page_reads):
    path, table = small_pages(tmp_path)
    with_offset_indexes(Path(path), lambda group, leaf, pages: [pages[0]] * 31)
    for row, got in each_row(path, table, ["k", "v"]):
        assert got.to_pylist() == [{"k": row, "v": f"v{row}"}]
    assert page_reads["paged"] == 0


FIRST_ROW_LIES = ["first rows", "first row", "first rows onwards"]  # (drawn half the time: the quiet lies)
LIES = [*FIRST_ROW_LIES, "sizes", "offsets", "offsets onwards", "drop", "duplicate", "empty entry", "two gigabytes",
        "swap", "truncate", "merge", "past the end", "one more row"]


def lie(kind: str, pages: list, at: int, by: int, rows: int) -> list:
    """``pages`` (a column chunk's page locations) told otherwise: ``kind`` at page ``at`` by ``by`` (an empty
    entry, from an earlier lie, stays empty)."""
    pages = [PageLocation(p.offset, p.compressed_page_size, p.first_row_index) for p in pages]
    if not pages:
        return pages
    at %= len(pages)
    later = range(at, len(pages))

    def plus(value, more, most=2**63 - 1):
        return None if value is None else min(most, value + more)

    if kind.startswith("first row"):
        for page in pages[at:at + 1] if kind == "first row" else pages[at:at + 2] if kind == "first rows" \
                else pages[at:]:
            page.first_row_index = plus(page.first_row_index, by)
    elif kind == "sizes":
        pages[at].compressed_page_size = plus(pages[at].compressed_page_size, by, 2**31 - 1)
    elif kind == "offsets":
        pages[at].offset = plus(pages[at].offset, by)
    elif kind == "offsets onwards":
        for i in later:
            pages[i].offset = plus(pages[i].offset, by)
    elif kind == "drop":
        del pages[at]
    elif kind == "duplicate":
        pages.insert(at, PageLocation(pages[at].offset, pages[at].compressed_page_size, pages[at].first_row_index))
    elif kind == "empty entry":
        pages.insert(at, PageLocation())
    elif kind == "two gigabytes":
        for i in later:
            pages[i].offset, pages[i].compressed_page_size = plus(pages[at].offset, (i - at) * (2**31 - 1)), 2**31 - 1
    elif kind == "swap" and at + 1 < len(pages):
        pages[at], pages[at + 1] = pages[at + 1], pages[at]
    elif kind == "truncate":
        pages = pages[:at]
    elif kind == "merge" and at + 1 < len(pages):
        pages[at].compressed_page_size = plus(pages[at].compressed_page_size,
                                              pages.pop(at + 1).compressed_page_size or 0, 2**31 - 1)
    elif kind == "past the end":
        pages[at].first_row_index = rows + abs(by)
    elif kind == "one more row":  # a page split in two: an entry more, said to start a row after the page
        pages.insert(at + 1, PageLocation(pages[at].offset, pages[at].compressed_page_size,
                                          plus(pages[at].first_row_index, 1)))
    return pages


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=st.fixed_dictionaries({"data_page_version": st.sampled_from(["1.0", "2.0"]),
                                      "use_dictionary": st.booleans(),
                                      "compression": st.sampled_from(["none", "snappy"]),
                                      "row_group_size": st.sampled_from([1_500, 3_000])}),
       lies=st.lists(st.tuples(st.sampled_from(FIRST_ROW_LIES) | st.sampled_from(LIES), st.integers(-1, 1),
                               st.integers(-6, 6).filter(bool), st.integers(0, 3)), min_size=1, max_size=3),
       data=st.data())
def test_lying_offset_indexes_never_change_the_rows(tmp_path_factory, options, lies, data):
    """Offset indexes that lie (first rows shifted, sizes and offsets changed, entries dropped, duplicated,
    emptied, swapped, merged, cut off or pointing past the group) on the columns read: the rows read are a
    whole read's every time."""
    table = sample_table(3_000, seed=len(lies))
    folder = tmp_path_factory.mktemp("lies")
    path = write(folder / "f.parquet", table, data_page_size=1, write_batch_size=50, **options)  # 50 rows a page
    columns = data.draw(st.lists(st.sampled_from(table.column_names), min_size=1, max_size=4, unique=True))
    leaves = [table.column_names.index(name) for name in columns]
    near = data.draw(st.integers(0, 2_999))  # a few rows close together: on a few pages, read from them
    rows = np.unique(np.clip(near + np.array(data.draw(st.lists(st.integers(-40, 40), min_size=1, max_size=8))),
                             0, 2_999)).astype(np.int64)
    group, row = divmod(near, options["row_group_size"])

    def lying(at_group, leaf, pages):
        told = [(kind, at, by) for kind, at, by, column in lies if leaves[column % len(leaves)] == leaf]
        if at_group != group or not told:
            return None
        page = max(i for i, p in enumerate(pages) if p.first_row_index <= row)  # the lies are told near it
        for kind, at, by in told:
            pages = lie(kind, pages, max(0, page + at), by, options["row_group_size"])
        return pages

    with_offset_indexes(folder / "f.parquet", lying)
    data_files.FOOTERS.clear()
    got = DataFileReader(path).read_rows(rows, columns)
    assert same(got, whole(path, rows, columns))


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


@pytest.fixture
def copies(monkeypatch):
    """The columns of each copy of pages pyarrow decodes (a list of names a copy)."""
    seen: list[list[str]] = []
    original = parquet_pages._copied_rows

    def counted(fd, footer, columns):
        seen.append([column.name for column in columns])
        return original(fd, footer, columns)

    monkeypatch.setattr(parquet_pages, "_copied_rows", counted)
    return seen


@pytest.mark.parametrize("options", [{"compression": codec, "data_page_version": version}
                                     for codec in ("none", "snappy", "zstd", "gzip", "brotli", "lz4")
                                     for version in ("1.0", "2.0")], ids=str)
def test_numbers_are_read_from_their_plain_pages_without_a_copy(tmp_path, copies, options):
    """Required numbers, and optional ones on pages without a null (integers, floats, timestamps, decimals
    stored as integers): decoded from their bytes; strings copied for pyarrow."""
    table = sample_table(12_000, seed=7)
    path = write(tmp_path / "f.parquet", table, data_page_size=1, write_batch_size=500, use_dictionary=False,
                 store_decimal_as_integer=True, **options)
    rows = np.array([0, 1, 499, 500, 7_777, 11_999], dtype=np.int64)
    decimals = ["amount", "ratio"] if DECIMALS_AS_INTEGERS else []  # (else fixed-length bytes: copied)
    columns = [*REQUIRED, "id", "ts", "zoned", *decimals, "name"]
    assert same(DataFileReader(path).read_rows(rows, columns), expected(table, rows, columns))
    assert copies == [["name"]]


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_dictionary_encoded_pages_of_numbers_are_decoded_without_a_copy(tmp_path, copies, version):
    """Required numbers, and optional ones on pages without a null, behind a dictionary page of PLAIN numbers
    (``dictionary_pages``); strings are still copied."""
    table = sample_table(12_000, seed=8)
    path = write(tmp_path / "f.parquet", table, data_page_size=1, write_batch_size=500, data_page_version=version)
    rows = np.array([3, 9_000], dtype=np.int64)
    columns = ["count", "key", "weight", "id", "ts", "name"]
    assert same(DataFileReader(path).read_rows(rows, columns), expected(table, rows, columns))
    assert copies == [["name"]]


def test_columns_whose_pages_cover_the_same_rows_share_one_copy(tmp_path, copies):
    """One pyarrow read for the columns whose chosen pages hold the same rows, one more for each other set."""
    table = sample_table(12_000, seed=9)
    path = write(tmp_path / "f.parquet", table, data_page_size=1, write_batch_size=500, use_dictionary=False)
    rows = np.array([10, 6_001], dtype=np.int64)
    columns = ["name", "day", "amount", "blob"]  # (copied: strings, dates, decimals of 16 bytes)
    assert same(DataFileReader(path).read_rows(rows, columns), expected(table, rows, columns))
    assert copies == [columns]
    copies.clear()
    path = write(tmp_path / "g.parquet", table, data_page_size=2048, write_batch_size=100,  # (pages by size)
                 use_dictionary=False)
    footer = parquet_pages.PagedFooter.read(path)
    with open(path, "rb") as file:
        firsts = {name: footer.pages(file.fileno(), 0, footer.leaves[name]).firsts for name in columns}
    assert len(set(firsts.values())) > 1
    assert same(DataFileReader(path).read_rows(rows, columns), expected(table, rows, columns))
    assert sorted(map(sorted, copies)) == sorted(map(sorted, _alike(firsts, rows)))


def _alike(firsts: dict[str, tuple[int, ...]], rows: np.ndarray) -> list[list[str]]:
    """The columns grouped by the rows their pages holding ``rows`` cover."""
    groups: dict[tuple, list[str]] = {}
    for name, starts in firsts.items():
        pages = sorted({int(np.searchsorted(starts, row, side="right")) - 1 for row in rows})
        groups.setdefault(tuple((starts[p], starts[p + 1]) for p in pages), []).append(name)
    return list(groups.values())


@pytest.fixture
def ranges(monkeypatch):
    """The byte ranges (offset, length) the page reader reads."""
    seen: list[tuple[int, int]] = []
    original = parquet_pages.os.pread

    def counted(fd, length, at):
        seen.append((at, length))
        return original(fd, length, at)

    monkeypatch.setattr(parquet_pages.os, "pread", counted)
    return seen


def overflowing(tmp_path, **options) -> tuple[str, pa.Table, parquet_pages.PageTable, tuple[bool, ...]]:
    """An optional BIGINT and TIMESTAMP written as arrow-rs and parquet-mr write them: dictionary-encoded pages
    until the dictionary is full, PLAIN pages after; its id column's page table and encodings."""
    rng = np.random.default_rng(11)
    ids = rng.permutation(40_000).astype(np.int64)
    table = pa.table({"id": pa.array(ids), "ts": pa.array(ids * 1_000_003, pa.timestamp("us")),
                      "amount": pa.array([decimal.Decimal(int(i) - 20_000) / 100 for i in ids], pa.decimal128(12, 2))})
    path = write(tmp_path / "f.parquet", table, data_page_size=4096, row_group_size=40_000,
                 dictionary_pagesize_limit=16_384, store_decimal_as_integer=True, **options)
    footer = parquet_pages.PagedFooter.read(path)
    with open(path, "rb") as file:
        pages = footer.pages(file.fileno(), 0, footer.leaves["id"])
        encoded = footer.dictionary_encoded(file.fileno(), 0, footer.leaves["id"])
    assert pages.dictionary is not None and any(encoded) and not all(encoded)
    return path, table, pages, encoded


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_a_dictionary_encoded_page_and_a_plain_one_read_that_page_and_the_dictionary_alone(tmp_path, ranges,
                                                                                             copies, version):
    """Rows on one dictionary-encoded page and one PLAIN page of a column: the bytes read are those two pages
    and the dictionary page, each once; both pages are decoded here, nothing is copied."""
    path, table, pages, encoded = overflowing(tmp_path, data_page_version=version)
    dictionary_page, plain_page = encoded.index(True), len(encoded) - 1
    rows = np.array([pages.firsts[dictionary_page] + 1, pages.firsts[plain_page]], dtype=np.int64)
    reader = DataFileReader(path)
    reader.read_rows(rows, ["id"])  # (the footer, offset index and page headers: read and checked once)
    ranges.clear()
    copied_pages = []
    original = parquet_pages._copied_rows
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parquet_pages, "_copied_rows",
                      lambda fd, footer, columns: copied_pages.append([c.pages for c in columns])
                      or original(fd, footer, columns))
        assert same(reader.read_rows(rows, ["id"]), expected(table, rows, ["id"]))
    want = [pages.dictionary, *((pages.offsets[p], pages.sizes[p]) for p in (dictionary_page, plain_page))]
    assert sorted(ranges) == sorted(want)
    assert copied_pages == []


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_plain_pages_of_each_type_with_and_without_dictionary_pages_read_as_the_group(tmp_path, version):
    path, table, pages, _ = overflowing(tmp_path, data_page_version=version, compression="zstd")
    columns = ["id", "ts", "amount"]
    for rows in ([0], [39_999], [5, 20_000, 39_998], list(range(0, 40_000, 997))):
        rows = np.array(rows, dtype=np.int64)
        data_files.FOOTERS.clear()
        assert same(DataFileReader(path).read_rows(rows, columns), expected(table, rows, columns))


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_optional_numbers_on_pages_with_nulls_are_copied(tmp_path, copies, version):
    """A page holding a null is left to pyarrow; the null-free pages of the same column are decoded here."""
    values = np.arange(12_000, dtype=np.int64)
    table = pa.table({"n": pa.array(values, mask=(values >= 6_000) & (values % 7 == 0))})
    path = write(tmp_path / "f.parquet", table, data_page_size=1, write_batch_size=500, use_dictionary=False,
                 data_page_version=version)
    rows = np.array([3, 4_000, 7_000, 7_007], dtype=np.int64)
    assert same(DataFileReader(path).read_rows(rows, ["n"]), expected(table, rows, ["n"]))
    assert copies == [["n"]]  # (one copy: the page of rows 7,000..7,499, which holds nulls)


@pytest.mark.parametrize("optional", [False, True])
def test_a_plain_page_claiming_more_bytes_than_its_values_is_left_to_pyarrow_undecompressed(optional):
    """A header's uncompressed size is never decompressed to unless the page's values (and, optional, levels with no
    null) fit it: a hostile header claiming 2 GiB allocates nothing."""
    from fileindex.arrow.plain_pages import PlainType, page_values
    from fileindex.generated.parquet_thrift.ttypes import DataPageHeader

    plain = PlainType(pa.int64(), pa.int64(), optional)
    body = pa.Codec("zstd").compress(b"\0" * 24, asbytes=True)
    for claimed in (2**31 - 1, 23):
        header = PageHeader(type=0, uncompressed_page_size=claimed, compressed_page_size=len(body),
                            data_page_header=DataPageHeader(num_values=3, encoding=0, definition_level_encoding=3))
        assert page_values(header, body, 3, plain, pa.Codec("zstd")) is None


@pytest.mark.parametrize("options", [{"compression": codec, "data_page_version": version}
                                     for codec in ("none", "snappy", "zstd") for version in ("1.0", "2.0")], ids=str)
def test_rows_on_every_page_of_numbers_are_decoded_here_as_pyarrow_reads_them(tmp_path, page_reads, copies,
                                                                               options):
    """A twelfth of the rows, on every page of each row group (what a bitmap's OR of two categories keeps): the
    numbers are decoded here from each page, dictionary-encoded (until the dictionary is full) and PLAIN after,
    required and optional; a page holding a null is copied for pyarrow, and strings are read whole. The rows are
    those of a read of the whole file, in its types."""
    rng = np.random.default_rng(12)
    ids = rng.permutation(60_000).astype(np.int64)
    gappy = pa.array(ids, mask=(ids % 5 == 0) & (np.arange(60_000) >= 50_000))  # (nulls on the last pages alone)
    table = pa.table({
        "id": pa.array(ids), "count": pa.array(ids % 1_000, pa.int32()), "gappy": gappy,
        "ts": pa.array(ids * 1_000_003, pa.timestamp("us")),
        "amount": pa.array([decimal.Decimal(int(i) - 30_000) / 100 for i in ids], pa.decimal128(12, 2)),
        "weight": pa.array(ids / 7, pa.float64()), "name": pa.array([f"n{i % 13}" for i in ids]),
    })
    table = table.cast(pa.schema([field.with_nullable(field.name != "count") for field in table.schema]))
    path = write(tmp_path / "f.parquet", table, data_page_size=4096, row_group_size=30_000,
                 dictionary_pagesize_limit=16_384, store_decimal_as_integer=True, **options)
    footer = parquet_pages.PagedFooter.read(path)
    with open(path, "rb") as file:
        encoded = footer.dictionary_encoded(file.fileno(), 0, footer.leaves["id"])
    assert len(footer.row_groups) == 2 and any(encoded) and not all(encoded)
    rows = np.sort(rng.choice(60_000, 5_000, replace=False)).astype(np.int64)
    numbers = ["id", "count", "gappy", "ts", *(["amount"] if DECIMALS_AS_INTEGERS else []), "weight"]
    decoded = []  # (column, pages decoded here, pages holding a wanted row), a group's columns after another's
    original = parquet_pages._decoded_rows

    def counted(fd, footer, chosen, **options):
        pages = original(fd, footer, chosen, **options)
        decoded.append((chosen.name, sum(values is not None for values in pages), len(chosen.pages)))
        return pages

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parquet_pages, "_decoded_rows", counted)
        got = DataFileReader(path).read_rows(rows, [*numbers, "name"])
    assert same(got, expected(table, rows, [*numbers, "name"]))
    assert page_reads == {"paged": 2 * len(numbers), "whole": 2}  # (two groups)
    assert [name for name, _, _ in decoded] == numbers * 2
    assert all(pages == chosen for name, pages, chosen in decoded[:len(numbers)])  # (no null in the first group)
    assert all(pages == chosen for name, pages, chosen in decoded[len(numbers):] if name != "gappy")
    assert [0 < pages < chosen for name, pages, chosen in decoded[len(numbers):] if name == "gappy"] == [True]
    assert copies == [["gappy"]]  # (the second group's pages holding a null)


def test_a_damaged_page_among_every_page_read_is_a_typed_error_or_pyarrows_read(tmp_path):
    """Rows on every page, one of them damaged behind a header that checks out (PLAIN values cut short): the read is
    the typed error of the whole group's read by pyarrow (the page is refused here first), or its values."""
    values = np.arange(20_000, dtype=np.int64)
    table = pa.table({"a": pa.array(values)}).cast(pa.schema([pa.field("a", pa.int64(), False)]))
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, write_page_index=True, data_page_size=8_192, compression="zstd",
                   use_dictionary=False)
    data, at, taken, size, _ = data_page(path, 2)
    data[at + taken:at + size] = bytes(size - taken)  # (not a zstd frame)
    path.write_bytes(bytes(data))
    rows = np.arange(0, 20_000, 7, dtype=np.int64)
    read_of_a_damaged_page(path, rows, 2, at)
