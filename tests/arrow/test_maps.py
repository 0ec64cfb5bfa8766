"""map_values agrees with pyarrow's own map_lookup(..., "first") on any map column."""
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given
from hypothesis import strategies as st

from fileindex.arrow.maps import map_values

KEYS = st.sampled_from(["color", "size", "", "é", "colour"])
MAPS = st.one_of(st.none(), st.lists(st.tuples(KEYS, st.one_of(st.none(), st.text(max_size=3))), max_size=4))


def expected(column, key):
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    scalar = pa.scalar(key, type=column.type.key_type)
    return [v for chunk in chunks for v in pc.map_lookup(chunk, scalar, "first").to_pylist()]


@given(st.lists(MAPS, max_size=30), st.integers(0, 10), st.integers(0, 10), KEYS)
def test_sliced_chunked_string_maps(rows, cut_front, cut_back, key):
    array = pa.array(rows, type=pa.map_(pa.string(), pa.string()))
    sliced = array.slice(min(cut_front, len(array)), max(len(array) - cut_front - cut_back, 0))
    chunked = pa.chunked_array([sliced, array, array.slice(0, 0)], type=array.type)
    for column in (array, sliced, chunked):
        got = map_values(column, key)
        assert got.type == pa.string()
        assert got.to_pylist() == expected(column, key)


INT_MAPS = st.one_of(st.none(), st.lists(st.tuples(st.integers(-3, 3), st.integers(-2**63, 2**63 - 1)), max_size=4))


@given(st.lists(INT_MAPS, max_size=30), st.integers(-3, 3))
def test_integer_keys_and_values(rows, key):
    array = pa.array(rows, type=pa.map_(pa.int32(), pa.int64()))
    assert map_values(array, key).to_pylist() == expected(array, key)


def test_a_repeated_key_answers_its_first_value_and_an_empty_column_is_empty():
    array = pa.array([[("k", "a"), ("k", "b")], [], None, [("x", "1"), ("k", "c")]],
                     type=pa.map_(pa.string(), pa.string()))
    assert map_values(array, "k").to_pylist() == ["a", None, None, "c"]
    empty = pa.chunked_array([], type=array.type)
    assert map_values(empty, "k").to_pylist() == [] and map_values(empty, "k").type == pa.string()
