"""The footer walk of ``page_encodings``: each chunk's ``encodings`` and ``encoding_stats`` as the full Thrift decode
(``parquet_pages``) finds them, every other field skipped by its wire type; bytes that do not follow the compact
protocol raise a DecodeError at their offset."""
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fileindex.arrow import page_encodings
from fileindex.arrow.parquet_pages import decode
from fileindex.errors import DecodeError
from fileindex.generated.parquet_thrift.ttypes import FileMetaData

ROWS = 2000


def _footer(table: pa.Table, **options) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    data = buffer.getvalue()
    length = int.from_bytes(data[-8:-4], "little")
    return data[-8 - length:-8]


def _varied() -> pa.Table:
    """Strings, numbers, a struct of a list of doubles, a list of bools and a map: footers with every wire type
    the writer uses (statistics' binaries, nested schema elements, key-value metadata)."""
    return pa.table({
        "s": pa.array([str(i % 7) for i in range(ROWS)]),
        "n": pa.array(range(ROWS), pa.int64()),
        "d": pa.array([i / 3 for i in range(ROWS)]),
        "st": pa.array([{"k": [1.5, None]}] * ROWS),
        "b": pa.array([[True, False]] * ROWS),
        "m": pa.array([[("x", 1)]] * ROWS, pa.map_(pa.string(), pa.int32())),
    })


def _decoded(footer: bytes) -> list[list]:
    meta, _ = decode(FileMetaData, footer, len(footer))
    return [[None if chunk.meta_data is None else page_encodings.ChunkEncodings(
        tuple(chunk.meta_data.encodings), None if chunk.meta_data.encoding_stats is None else tuple(
            (stats.page_type, stats.encoding, stats.count) for stats in chunk.meta_data.encoding_stats))
        for chunk in group.columns] for group in meta.row_groups]


@pytest.mark.parametrize("options", [
    {}, {"data_page_version": "2.0"}, {"version": "1.0", "write_statistics": False},
    {"write_page_index": True, "row_group_size": 500}, {"use_dictionary": False, "compression": "zstd"},
])
def test_the_walk_finds_what_the_full_decode_finds(options):
    footer = _footer(_varied(), **options)
    found = page_encodings.chunk_encodings(footer)
    assert found == _decoded(footer)
    assert any(chunk.encoding_stats for group in found for chunk in group)  # (pyarrow writes them)
    meta, _ = decode(FileMetaData, footer, len(footer))
    assert page_encodings.dictionary_chunks(footer) == page_encodings.decoded_dictionary_chunks(meta)


@pytest.mark.parametrize("damage, offset, message", [
    (lambda f: f[:len(f) // 2], None, "ends inside"),  # cut short: at its end, or where a string it cuts starts
    (lambda f: bytes([f[0] & 0xF0 | 14]) + f[1:], 0, "unknown wire type 14"),
    (lambda f: b"\x19\xf9" + b"\xff" * 4 + b"\x0f", 1, "a list of"),  # row_groups: a list of ~2^28 elements
    (lambda f: b"\x16" + b"\xff" * 11, 1, "past 64 bits"),  # a 64-bit field's varint that does not end
    (lambda f: b"\x1c" * 70, 64, "nested deeper than 64"),  # structs in structs
    (lambda f: b"\x19" + b"\x19" * 70, 64, "nested deeper than 64"),  # lists of lists
    (lambda f: b"\x18\x80\x08", 1, "a string of 1024 bytes"),
    (lambda f: b"\x1b\x40", 1, "a map of 64 entries in 0 bytes"),
    (lambda f: b"\x1b\x01\xee\x00\x00", 2, "unknown wire type 14"),  # a map's key type
])
def test_bytes_that_do_not_decode_are_a_decode_error_at_their_offset(damage, offset, message):
    footer = damage(_footer(_varied()))
    with pytest.raises(DecodeError, match=message) as raised:
        page_encodings.dictionary_chunks(footer)
    if offset is None:  # (where the cut falls depends on the writer's footer: in a field, a struct or a string)
        assert 0 < raised.value.offset <= len(footer)
    else:
        assert raised.value.offset == offset
