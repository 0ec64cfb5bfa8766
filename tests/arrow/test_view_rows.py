"""A row selection of a file whose columns are views (``string_view``, ``binary_view``, nested too): pyarrow has no
take kernel for views, so ``DataFileReader.read_rows`` failed ('array_take has no kernel matching input types
(string_view, int64)'); the rows are taken as large strings and cast back."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fileindex.arrow import compute
from fileindex.arrow.data_files import DataFileReader

ROWS = 3000


def _views_convert() -> bool:
    try:
        pa.array(["x"], pa.string_view()).cast(pa.large_string())
        return True
    except pa.ArrowNotImplementedError:
        return False


# pyarrow before 17 casts no view to another type and reads or writes none in Parquet: no file read through it has
# view columns (the lowest-versions job's pyarrow 16)
pytestmark = pytest.mark.skipif(not _views_convert(), reason=f"pyarrow {pa.__version__} converts no views")


def view_table() -> pa.Table:
    names = [f"name-{n % 7}" for n in range(ROWS)]
    return pa.table({
        "s": pa.array(names, pa.string_view()),
        "b": pa.array([name.encode() for name in names], pa.binary_view()),
        "l": pa.array([[name] if n % 5 else None for n, name in enumerate(names)], pa.list_(pa.string_view())),
        "t": pa.array([{"x": name} for name in names], pa.struct([("x", pa.string_view())])),
        "n": pa.array(range(ROWS), pa.int64()),
    })


def test_rows_of_view_columns_are_taken_in_their_types():
    table = view_table()
    taken = compute.take_rows(table, [2999, 0, 1234])
    assert taken.schema == table.schema
    assert taken.to_pylist() == [table.slice(n, 1).to_pylist()[0] for n in (2999, 0, 1234)]


def test_a_row_selection_of_a_file_of_views_reads_them(tmp_path):
    path = tmp_path / "views.parquet"
    pq.write_table(view_table().select(["s", "b", "n"]), path, row_group_size=1000)  # (no nested views written)
    reader = DataFileReader(path)
    whole = reader.read(["s", "b", "n"])
    rows = [1, 1500, 2999]
    got = reader.read_rows(pa.array(rows, pa.int64()), ["s", "b", "n"])
    assert got.schema == whole.schema
    assert got.to_pylist() == [whole.slice(n, 1).to_pylist()[0] for n in rows]
