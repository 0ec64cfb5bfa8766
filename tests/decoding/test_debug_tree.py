"""The one walk of the debug readers' position records: values tile what was read, failures are placed."""
import pytest
from fileindex.generated.file_index_format import FileIndexFormat
from fileindex.generated.range_bitmap import RangeBitmap

from fileindex.decoding import debug_tree
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.container.head import _VALIDATIONS
from fileindex.container.writer import write_entries
from fileindex.errors import DecodeError
from fileindex.indexes.range_bitmap import build
from fileindex.types import parse_type

ENTRIES = [("a", "bitmap", b"\x01" * 7), ("a", "bsi", None), ("b\u00e9", "bloom-filter", b"\x02" * 3),
           ("c", "range-bitmap", b"")]


@pytest.mark.parametrize("version", [1, 2])
def test_the_finished_values_of_a_container_tile_it(version):
    """Seq fields, elements, sized substreams (the v1 HEAD), instances from the end (the v2 footer and
    trailer) and instances read from the root stream (each entry's body) all land at their offsets."""
    data = write_entries(ENTRIES, version=version)
    root = kaitai_bridge.parse(FileIndexFormat, data, root="f", validations=_VALIDATIONS)
    values = sorted(debug_tree.finished_values(root, 0, "f", root_base=0), key=lambda v: (v.start, v.end))
    position = 0
    for value in values:
        assert value.start == position, value.path
        position = value.end
    assert position == len(data)
    bodies = {v.path: bytes(v.value) for v in values if v.path.endswith("/body")}
    assert sorted(bodies.values()) == sorted(p for _, _, p in ENTRIES if p is not None)
    table = "head" if version == 1 else "footer"
    assert bytes(next(v.value for v in values if v.path == f"f/{table}/columns[1]/name")) == "bé".encode()


def test_a_failure_in_an_element_of_a_repeated_instance_is_placed_in_the_element():
    code = RangeBitmap.KeyKind.i4
    payload = bytearray(build(list(range(300)), parse_type("INT")))
    spec = lambda io: RangeBitmap(code, io)  # noqa: E731
    parsed = kaitai_bridge.parse(spec, bytes(payload), root="r", validations={})
    slices = parsed.bsi._debug["_m_slices"]["arr"] if parsed.bsi.slices else []
    bsi_start = parsed._debug["_m_bsi"]["start"]
    assert len(slices) >= 2
    last = len(slices) - 1
    at = bsi_start + slices[last]["start"]
    payload[at:at + 4] = b"\0\0\0\0"  # the last slice's Roaring cookie
    with pytest.raises(DecodeError) as caught:
        raise kaitai_bridge.place_instance_failure(ValueError("not placed"), spec, bytes(payload), ("bsi/slices",),
                                                   root="r", validations={}, base=1000)
    assert caught.value.field == f"r/bsi/slices[{last}]/cookie"
    assert caught.value.offset == 1000 + at


def test_the_failure_point_is_the_field_being_read_inside_a_sized_part():
    data = bytearray(write_entries(ENTRIES, version=1))
    data[20:22] = b"\xff\xff"  # the first column name's length, inside the HEAD (read from its own substream)
    with pytest.raises(DecodeError) as caught:
        kaitai_bridge.parse(FileIndexFormat, bytes(data), root="f", validations=_VALIDATIONS)
    assert (caught.value.offset, caught.value.field) == (22, "f/head/columns[0]/name")
