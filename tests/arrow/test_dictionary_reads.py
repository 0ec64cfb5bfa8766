"""Strings and bytes read as dictionaries where every data page is dictionary-encoded, with the rows, types and
nulls of a plain read (``page_encodings``, ``DataFileReader._reading``)."""
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fileindex.arrow import page_encodings
from fileindex.arrow.data_files import DataFileError, DataFileReader
from fileindex.arrow.parquet_file import ParquetFile
from fileindex.arrow.plain_pages import DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE, PLAIN, PLAIN_DICTIONARY, RLE, \
    RLE_DICTIONARY

ROWS = 3000
WORDS = ["red", "green", None, "blue", "é", ""]


def _table(rows: int = ROWS, distinct_from: int | None = None) -> pa.Table:
    """``cat``: few strings with nulls; ``blob``: few byte strings; ``wide``: strings all distinct from row
    ``distinct_from`` on (a dictionary that overflows there); ``n``: numbers."""
    wide = [WORDS[i % 6] if distinct_from is None or i < distinct_from else f"distinct-{i:08d}" * 4
            for i in range(rows)]
    return pa.table({
        "n": pa.array(range(rows), pa.int64()),
        "cat": pa.array([WORDS[i % 6] for i in range(rows)], pa.string()),
        "blob": pa.array([None if i % 9 == 0 else bytes([i % 3]) * 3 for i in range(rows)], pa.binary()),
        "wide": pa.array(wide, pa.string()),
    })


def _write(path, table, **options):
    pq.write_table(table, path, **{"row_group_size": 1000, "data_page_size": 256, **options})
    return path


def _opened_dictionaries(reader, monkeypatch) -> list[list[str]]:
    opened: list[list[str]] = []
    original = reader._open
    monkeypatch.setattr(reader, "_open", lambda metadata, read_dictionary=None:
                        (read_dictionary and opened.append(read_dictionary)) or original(metadata, read_dictionary))
    return opened


def _every_read(reader: DataFileReader, columns: list[str]) -> list[pa.Table]:
    rows = reader.row_count
    return [reader.read(columns), pa.Table.from_batches(list(reader.iter_batches(columns, 700)), reader.arrow_schema
                                                        .empty_table().select(columns).schema),
            reader.read_rows(None, columns), reader.read_rows(np.arange(0, rows, 2, dtype=np.int64), columns)]


@pytest.mark.parametrize("version", ["1.0", "2.6"])
@pytest.mark.parametrize("page_version", ["1.0", "2.0"])
def test_a_dictionary_column_reads_as_its_strings_through_a_dictionary(tmp_path, monkeypatch, version, page_version):
    table = _table()
    path = _write(tmp_path / "d.parquet", table, version=version, data_page_version=page_version)
    reader = DataFileReader(path)
    opened = _opened_dictionaries(reader, monkeypatch)
    columns = ["n", "cat", "blob", "wide"]
    plain = ParquetFile(str(path)).read(columns)
    for got in _every_read(reader, columns):
        assert got.schema == plain.schema == table.schema
        assert got.column("cat").null_count == plain.column("cat").null_count > 0
    assert _every_read(reader, columns)[0].equals(plain)
    assert _every_read(reader, columns)[1].equals(plain)
    assert _every_read(reader, columns)[3].equals(plain.take(pa.array(range(0, ROWS, 2))))
    assert opened == [["cat", "blob", "wide"]]  # once, its reader kept


def test_a_column_that_fell_back_to_plain_mid_file_is_read_as_strings(tmp_path, monkeypatch):
    table = _table(distinct_from=1200)  # row group 0 stays a dictionary; 1 overflows its 4 KiB into PLAIN pages
    path = _write(tmp_path / "f.parquet", table, dictionary_pagesize_limit=4096, write_batch_size=100)
    chunks = [pq.ParquetFile(path).metadata.row_group(g).column(3) for g in range(3)]
    assert all(chunk.has_dictionary_page for chunk in chunks)  # (what the decision was once made by)
    reader = DataFileReader(path)
    assert [(group[1], group[2], group[3]) for group in reader._dictionary_chunks()] == [
        (True, True, True), (True, True, False), (True, True, False)]  # "cat", "blob", "wide" per row group
    opened = _opened_dictionaries(reader, monkeypatch)
    for got in _every_read(reader, ["wide", "cat"]):
        assert got.schema == table.select(["wide", "cat"]).schema
    assert reader.read(["wide", "cat"]).equals(table.select(["wide", "cat"]))
    assert reader.read_rows(np.arange(0, 1000, dtype=np.int64), ["wide"]).equals(table.select(["wide"]).slice(0, 1000))
    assert reader.read_rows(np.arange(1000, 1600, dtype=np.int64), ["wide"]).equals(
        table.select(["wide"]).slice(1000, 600))
    # the whole file and any read touching a later group read "wide" as strings; group 0 alone as a dictionary
    assert opened == [["cat"], ["wide"]]


def test_nulls_and_an_all_null_group_keep_their_nulls(tmp_path):
    values = [None] * 1000 + [WORDS[i % 6] for i in range(1000)]
    table = pa.table({"s": pa.array(values, pa.string())})
    path = _write(tmp_path / "n.parquet", table)
    reader = DataFileReader(path)
    assert reader.read(["s"]).equals(table)
    assert pa.Table.from_batches(list(reader.iter_batches(["s"], 300))).equals(table)


def test_an_empty_file_reads_as_an_empty_table_of_its_schema(tmp_path):
    table = _table(rows=0)
    path = _write(tmp_path / "e.parquet", table)
    reader = DataFileReader(path)
    for got in _every_read(reader, ["cat", "n"]):
        assert got.num_rows == 0 and got.schema == table.select(["cat", "n"]).schema


def test_a_large_string_column_stays_large(tmp_path):
    table = pa.table({"s": pa.array([WORDS[i % 6] for i in range(ROWS)], pa.large_string())})
    path = _write(tmp_path / "l.parquet", table)
    reader = DataFileReader(path)
    assert reader._dictionary_leaves(range(3), ["s"]) == ("s",)
    assert reader.read(["s"]).equals(table)


def test_a_footer_the_reader_cannot_decode_is_a_data_file_error_at_its_byte(tmp_path):
    path = _write(tmp_path / "d.parquet", _table())
    reader = DataFileReader(path)  # (pyarrow parsed the footer on opening)
    data = path.read_bytes()
    start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    with open(path, "r+b") as changed:  # the footer's first field header made an unknown wire type (14)
        changed.seek(start)
        changed.write(bytes([data[start] & 0xF0 | 14]))
    with pytest.raises(DataFileError, match=rf"{path}: the Parquet footer at byte {start}: unknown wire type 14"):
        reader.read(["cat"])


def _meta(encodings, stats=None) -> page_encodings.ChunkEncodings:
    return page_encodings.ChunkEncodings(tuple(encodings), None if stats is None else tuple(stats))


@pytest.mark.parametrize("meta, expected", [
    (_meta([PLAIN, RLE, RLE_DICTIONARY], [(DICTIONARY_PAGE, PLAIN, 1), (DATA_PAGE, RLE_DICTIONARY, 8)]), True),
    (_meta([PLAIN, RLE, RLE_DICTIONARY], [(DICTIONARY_PAGE, PLAIN, 1), (DATA_PAGE_V2, RLE_DICTIONARY, 8),
                                         (DATA_PAGE_V2, PLAIN, 2)]), False),
    (_meta([PLAIN, RLE, RLE_DICTIONARY], [(DICTIONARY_PAGE, PLAIN, 1), (DATA_PAGE, RLE_DICTIONARY, 0),
                                         (DATA_PAGE, PLAIN, 3)]), False),
    (_meta([PLAIN], [(DATA_PAGE, PLAIN, 3)]), False),
    (_meta([RLE], []), False),  # (no data page)
    (_meta([PLAIN_DICTIONARY, RLE, 4]), True),  # a v1 writer without stats: its dictionary page is PLAIN_DICTIONARY
    (_meta([PLAIN, RLE, RLE_DICTIONARY]), False),  # without stats, PLAIN may be a data page's
    (_meta([RLE]), False),
])
def test_dictionary_only_reads_the_stats_else_the_encodings(meta, expected):
    assert page_encodings.dictionary_only(meta) is expected


def test_views_and_nested_strings_are_read_plainly(tmp_path, monkeypatch):
    """Only top-level strings and bytes are read as dictionaries: Arrow casts no dictionary to a view type (a CLI
    build of a string_view column failed: 'Unsupported cast from dictionary'), and pyarrow reads no nested column
    as a dictionary into one chunk (a list of strings failed: 'Nested data conversions not implemented')."""
    words = [WORDS[i % 6] for i in range(ROWS)]
    table = pa.table({
        "cat": pa.array(words, pa.string()),
        "sv": pa.array(words, pa.string_view()),
        "bv": pa.array([None if w is None else w.encode() for w in words], pa.binary_view()),
        "listed": pa.array([[w] for w in words], pa.list_(pa.string_view())),
        "strings": pa.array([[w, w] for w in words], pa.list_(pa.string())),
        "nested": pa.array([{"w": w} for w in words], pa.struct([("w", pa.string())])),
    })
    try:
        path = _write(tmp_path / "v.parquet", table)
    except pa.ArrowNotImplementedError:  # (an older pyarrow writes no views: the nested columns alone)
        table = table.select(["cat", "strings", "nested"])
        path = _write(tmp_path / "v.parquet", table)
    reader = DataFileReader(path)
    opened = _opened_dictionaries(reader, monkeypatch)
    columns = table.column_names
    whole = [reader.read(columns), pa.Table.from_batches(list(reader.iter_batches(columns, 700)), table.schema)]
    for got in whole:  # (whole reads: pyarrow takes no rows of views)
        assert got.equals(ParquetFile(str(path)).read(columns)) and got.schema == table.schema
    assert opened and all(leaves == ["cat"] for leaves in opened)
