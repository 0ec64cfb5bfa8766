"""fileindex.arrow.parquet_file.ParquetFile answers as pyarrow.parquet.ParquetFile does (the class it stands in for
to keep pyarrow.fs out of a read): the same tables for every way this package reads, nested columns selected by a
name as that one selects them, in every pyarrow the package declares (the lowest-versions job runs this too)."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fileindex.arrow.parquet_file import ParquetFile

# a struct "s" beside a top-level column named "s.b": pyarrow selects both leaves "s.b" and the column by that name
TABLE = pa.table({
    "id": pa.array(range(10), pa.int64()),
    "s": pa.array([{"a": i, "b": str(i)} for i in range(10)], pa.struct([("a", pa.int32()), ("b", pa.string())])),
    "s.b": pa.array([f"top {i}" for i in range(10)]),
    "tags": pa.array([[str(i)] * (i % 3) for i in range(10)], pa.list_(pa.string())),
    "name": pa.array(["x", "y"] * 5).dictionary_encode(),
})
SELECTIONS = [None, ["id"], ["s"], ["s.b"], ["s.a"], ["tags", "id"], ["name"], ["missing"], []]


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    written = tmp_path_factory.mktemp("parquet") / "nested.parquet"
    pq.write_table(TABLE, written, row_group_size=4)
    return str(written)


@pytest.mark.parametrize("columns", SELECTIONS)
def test_reads_as_pyarrow_parquet_does(path, columns):
    ours, theirs = ParquetFile(path), pq.ParquetFile(path)
    assert ours.schema_arrow == theirs.schema_arrow and ours.num_row_groups == theirs.num_row_groups == 3
    assert ours.metadata.equals(theirs.metadata)
    assert ours.read(columns).equals(theirs.read(columns))
    assert ours.read_row_group(1, columns=columns).equals(theirs.read_row_group(1, columns=columns))
    assert [b.to_pydict() for b in ours.iter_batches(batch_size=3, columns=columns)] == \
        [b.to_pydict() for b in theirs.iter_batches(batch_size=3, columns=columns)]


def test_options_as_pyarrow_parquet_has_them(path):
    """Dictionaries read as such, a footer passed in, an in-memory file: as ParquetFile reads them."""
    footer = pq.ParquetFile(path).metadata
    with open(path, "rb") as file:
        data = file.read()
    for source in (path, pa.BufferReader(data)):
        ours = ParquetFile(source, metadata=footer, read_dictionary=["name"], pre_buffer=False)
        theirs = pq.ParquetFile(source, metadata=footer, read_dictionary=["name"], pre_buffer=False)
        assert ours.read(["name"]).equals(theirs.read(["name"]))
        assert pa.types.is_dictionary(ours.read(["name"]).schema.field("name").type)


def test_a_bad_file_raises_what_pyarrow_parquet_raises(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 not a footer PAR1")
    for opened in (pq.ParquetFile, ParquetFile):
        with pytest.raises(pa.ArrowInvalid):
            opened(str(bad))
