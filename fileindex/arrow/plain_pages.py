"""The values of a Parquet data page of fixed-width numbers in PLAIN encoding, decoded without pyarrow's reader.

A PLAIN page of INT32, INT64, FLOAT or DOUBLE values is, once decompressed by Arrow's codec, the values'
bytes as Arrow holds them: ``parquet_pages`` reads a few rows of such pages from them, where a copy of the
pages for pyarrow would decode every value. A column may be required, or optional with no null on the page:
its definition levels (``RLE``) must then say so in one run of ones covering the page's rows, which is what
parquet-mr and arrow-rs write for a page without nulls; any other page (a null, levels written otherwise, a
size that is not its values') is left to pyarrow. The types are those pyarrow infers from the Parquet schema
alone: a signed integer of the physical width, a timestamp (``TIMESTAMP`` logical type, INT64) or a decimal
(``DECIMAL`` logical type on INT32 or INT64, read as a 128-bit decimal of that precision and scale).

Headers are those of ``fileindex.generated.parquet_thrift`` (decoded and checked by ``parquet_pages``); this
module decodes no Thrift.
"""
from __future__ import annotations

import functools
from typing import Any

import pyarrow as pa

from fileindex.arrow import compute
from fileindex.frozen import frozen

DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3  # parquet.thrift's PageType
PLAIN, PLAIN_DICTIONARY, RLE, RLE_DICTIONARY = 0, 2, 3, 8  # Encoding
DICTIONARY_ENCODINGS = (PLAIN_DICTIONARY, RLE_DICTIONARY)
REQUIRED, OPTIONAL = 0, 1  # FieldRepetitionType
STORAGE = {1: pa.int32(), 2: pa.int64(), 4: pa.float32(), 5: pa.float64()}  # Type INT32, INT64, FLOAT, DOUBLE
SIGNED_INTEGERS = {(1, 17): 32, (2, 18): 64}  # (Type, ConvertedType INT_32 / INT_64): its width
TIMESTAMP_UNITS = {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}  # (TimeUnit's fields)
DECIMAL_STORAGE = {1: pa.decimal128(10, 0), 2: pa.decimal128(19, 0)}  # every INT32 / INT64 as a whole decimal
# the definition levels of an optional page with no null, and their 4-byte length: one RLE run (a ULEB128 header of
# at most 5 bytes and one byte of value)
LEVELS_AT_MOST = 4 + 5 + 1
CODECS = {0: None, 1: "snappy", 2: "gzip", 4: "brotli", 6: "zstd", 7: "lz4_raw"}  # parquet.thrift's CompressionCodec


@frozen
class PlainType:
    """A column whose PLAIN pages are decoded here: the values' type as stored, the Arrow type pyarrow reads them
    as, and whether the column is optional (its pages carry definition levels)."""

    storage: pa.DataType
    arrow: pa.DataType
    optional: bool

    @property
    def width(self) -> int:
        return self.storage.bit_width // 8

    def as_arrow(self, values: pa.Array) -> pa.Array:
        """``values`` of the storage type in the Arrow type (a view; a decimal's unscaled integers widened)."""
        if self.arrow == self.storage:
            return values
        if pa.types.is_decimal(self.arrow):
            return compute.cast(values, DECIMAL_STORAGE[1 if self.storage == pa.int32() else 2]).view(self.arrow)
        return values.view(self.arrow)


def plain_type(element: Any) -> PlainType | None:
    """How a flat column of the schema ``element`` is decoded here; None where it is not a fixed-width number
    read from its bytes as they are."""
    storage = STORAGE.get(element.type)
    if storage is None or element.repetition_type not in (REQUIRED, OPTIONAL):
        return None
    arrow = _arrow_type(element, storage)
    return None if arrow is None else PlainType(storage, arrow, element.repetition_type == OPTIONAL)


def _arrow_type(element: Any, storage: pa.DataType) -> pa.DataType | None:
    logical, converted = element.logicalType, element.converted_type
    if logical is None:
        if converted is None:
            return storage
        return storage if SIGNED_INTEGERS.get((element.type, converted)) == storage.bit_width else None
    named = [name for name in logical.__slots__ if getattr(logical, name) is not None]
    if named == ["INTEGER"]:
        integer = logical.INTEGER
        width = SIGNED_INTEGERS.get((element.type, converted)) if converted is not None else storage.bit_width
        fits = integer.isSigned and integer.bitWidth == storage.bit_width == width
        return storage if fits else None
    if named == ["TIMESTAMP"] and storage == pa.int64():
        stamp = logical.TIMESTAMP
        units = [unit for name, unit in TIMESTAMP_UNITS.items() if stamp.unit is not None
                 and getattr(stamp.unit, name) is not None]
        if len(units) != 1 or stamp.isAdjustedToUTC is None:
            return None
        return pa.timestamp(units[0], tz="UTC" if stamp.isAdjustedToUTC else None)
    if named == ["DECIMAL"] and storage in (pa.int32(), pa.int64()):
        decimal = logical.DECIMAL
        digits = 9 if storage == pa.int32() else 18
        if decimal.precision is None or decimal.scale is None or not 0 <= decimal.scale <= decimal.precision <= digits \
                or decimal.precision < 1:
            return None
        return pa.decimal128(decimal.precision, decimal.scale)
    return None


@functools.cache
def codec_of(number: int) -> pa.Codec | None | bool:
    """Arrow's codec of a chunk's CompressionCodec; None: uncompressed; False: not one decoded here."""
    name = CODECS.get(number, False)
    if not name:
        return name
    return pa.Codec(name) if pa.Codec.is_available(name) else False


class Undecodable(ValueError):
    """A page that claims to be PLAIN values of a size and does not decompress to it."""


def page_values(header: Any, body: bytes | memoryview, rows: int, plain: PlainType,
                codec: pa.Codec | None) -> pa.Array | None:
    """The ``rows`` values (storage type) of a PLAIN data page whose header the caller has checked (``body``:
    what follows the header); None for another encoding, a page with nulls or levels written otherwise, or
    one whose size is not its values'. Raises Undecodable for a page that does not decompress as it says."""
    size = rows * plain.width
    values = encoded_values(header, body, rows, plain.optional, codec, (PLAIN,), size, size)
    return None if values is None else pa.Array.from_buffers(plain.storage, rows, [None, values])


def encoded_values(header: Any, body: bytes | memoryview, rows: int, optional: bool, codec: pa.Codec | None,
                   encodings: tuple[int, ...], low: int, high: int) -> pa.Buffer | None:
    """The encoded values of a data page (v1 or v2) of ``rows`` rows in one of ``encodings``, decompressed, where
    they take ``low`` to ``high`` bytes: checked against the header before anything is decompressed, and after.
    None for another encoding, a page with nulls or levels written otherwise, or values of another size (left to
    pyarrow; never a size a header claims). Raises Undecodable for a page that does not decompress as it says."""
    v1, v2 = header.data_page_header, header.data_page_header_v2
    if header.type == DATA_PAGE and v1 is not None and v1.encoding in encodings:
        if not low <= (header.uncompressed_page_size or 0) <= high + (LEVELS_AT_MOST if optional else 0):
            return None  # (not values alone, or with levels of nulls)
        whole = decompressed(body, header.uncompressed_page_size, codec)
        if whole is None:
            return None
        start = 0
        if optional:  # the definition levels, behind their length, then the values
            if v1.definition_level_encoding != RLE or whole.size < 4:
                return None
            length = int.from_bytes(whole[:4].to_pybytes(), "little")
            if not _all_present(whole[4:4 + length].to_pybytes() if length <= whole.size - 4 else b"", rows):
                return None
            start = 4 + length
        values = whole[start:]
    elif header.type == DATA_PAGE_V2 and v2 is not None and v2.encoding in encodings and not v2.num_nulls \
            and not v2.repetition_levels_byte_length:
        levels = v2.definition_levels_byte_length or 0
        if levels > len(body) or optional != bool(levels) or levels and not _all_present(body[:levels], rows):
            return None
        if header.uncompressed_page_size is None or not low <= header.uncompressed_page_size - levels <= high:
            return None
        values = decompressed(body[levels:], header.uncompressed_page_size - levels,
                               codec if v2.is_compressed is not False else None)
        if values is None:
            return None
    else:
        return None
    return values if low <= values.size <= high else None


def decompressed(body: bytes | memoryview, size: int | None, codec: pa.Codec | None) -> pa.Buffer | None:
    if size is None or size < 0:
        return None
    if codec is None:
        return pa.py_buffer(body) if len(body) == size else None
    try:
        found = codec.decompress(body, size)
    except (pa.ArrowException, ValueError, OSError) as err:  # (a codec's failure is an OSError in pyarrow 26)
        raise Undecodable(f"a page that does not decompress: {err}") from None
    if found.size != size:
        raise Undecodable(f"a page that decompresses to {found.size} bytes, not {size}")
    return found


def _all_present(levels: bytes | memoryview, rows: int) -> bool:
    """Are ``levels`` (the RLE/bit-packed hybrid of an optional flat column: bit width 1) one run of ``rows``
    ones, and nothing else?"""
    header, at = 0, 0
    for shift in range(0, 35, 7):  # (a ULEB128 of at most five bytes)
        if at >= len(levels):
            return False
        byte = levels[at]
        at += 1
        header |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
    else:
        return False
    return header & 1 == 0 and header >> 1 == rows and levels[at:] == b"\x01"
