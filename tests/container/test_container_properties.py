"""Random containers round-trip through the writer and both parsers."""
from fileindex.generated.file_index_format import FileIndexFormat
from hypothesis import given, settings
from hypothesis import strategies as st
from structures import construct_tree, kaitai_tree

from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import _VALIDATIONS
from fileindex.container.writer import write_entries
from fileindex.java.utf import encode
from fileindex.reference.construct_parser import parse_with_construct

INDEX_TYPES = st.sampled_from(["bloom-filter", "bitmap", "bsi", "range-bitmap", "future-type"])
NAMES = st.one_of(
    st.text(min_size=0, max_size=40),
    st.text(alphabet=st.sampled_from(["\u0000", "a", "é", "中", "😀", "[", "]"]), max_size=20),
)
PAYLOADS = st.one_of(st.none(), st.binary(max_size=64))
ENTRIES = st.lists(st.tuples(NAMES, INDEX_TYPES, PAYLOADS), max_size=40)


def check_round_trip(entries):
    data = write_entries(entries)
    container = FileIndexContainer.from_bytes(data)
    container.validate_layout()
    decoded = [(e.column, e.index_type, None if e.is_empty else bytes(container.body(e))) for e in container]
    assert decoded == [(c, t, None if p is None else bytes(p)) for c, t, p in entries]
    kaitai = kaitai_tree(kaitai_bridge.parse(FileIndexFormat, data, root="f", validations=_VALIDATIONS))
    assert kaitai == construct_tree(parse_with_construct(data))
    return data


@given(ENTRIES)
def test_random_containers_round_trip(entries):
    check_round_trip(entries)


@given(st.integers(min_value=0, max_value=21845))
@settings(max_examples=20)
def test_names_up_to_65535_encoded_bytes(extra):
    # 3-byte characters plus ASCII padding reach exactly 65535 encoded bytes.
    name = "中" * extra + "x" * (65535 - 3 * extra)
    assert len(encode(name)) == 65535
    check_round_trip([(name, "bitmap", b"\x01\x02"), ("m[k]", "bloom-filter", None)])


def test_many_columns():
    entries = [(f"column_{i}", "bloom-filter", i.to_bytes(4, "big")) for i in range(5000)]
    assert len(FileIndexContainer.from_bytes(check_round_trip(entries)).columns) == 5000
