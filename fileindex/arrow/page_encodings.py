"""Which Parquet column chunks hold dictionary-encoded data pages only, as the footer says.

pyarrow reads a column of strings or bytes as a dictionary (``read_dictionary``) for the price of its dictionary
pages and indices where every data page is dictionary-encoded, and the dictionary then decodes to strings at the
cost of a take (a third of what building the strings page by page costs). A page a writer wrote PLAIN once its
dictionary filled (arrow-rs, parquet-mr and Arrow C++ after 1 MiB of dictionary) would instead be hashed into a
dictionary string by string: such a chunk is read as strings. A chunk's ``encoding_stats`` count its pages of
each encoding; a writer that leaves them out says it by the chunk's ``encodings`` only where PLAIN is not among
them (a writer of v2 pages lists PLAIN for the dictionary page itself, whether a data page fell back or not).

Either is a claim: a chunk said to be dictionary-only that is not still reads right, only slower.

pyarrow's FileMetaData keeps no ``encoding_stats``, so the footer's Thrift bytes are walked here for those two
fields of each chunk's ColumnMetaData and nothing else (every other field skipped by its wire type): the full
decode into the classes generated from ``parquet.thrift`` (``parquet_pages``) would load that module, several
MiB, into a streamed full scan that reads no page by itself.
"""
# (no ``from __future__ import annotations``: typing.NamedTuple would compile its fields' string annotations, #54)
from collections.abc import Callable
from typing import Any, NamedTuple

from fileindex.arrow.plain_pages import DATA_PAGE, DATA_PAGE_V2, DICTIONARY_ENCODINGS, RLE
from fileindex.errors import DecodeError

BIT_PACKED = 4  # parquet.thrift's Encoding (of levels, as RLE is of the columns read here)
LEVEL_ENCODINGS = (RLE, BIT_PACKED)
DictionaryChunks = tuple[tuple[bool, ...], ...]  # per row group, per leaf column in file order

# the compact protocol's wire types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT, _UUID = range(1, 14)
_FIXED = {_TRUE: 0, _FALSE: 0, _BYTE: 1, _DOUBLE: 8, _UUID: 16}  # (in a struct, a bool is its field's type)
_MAX_DEPTH = 64  # nesting, as Thrift's own decoders bound it


class ChunkEncodings(NamedTuple):
    """What a ColumnMetaData says of its pages' encodings: ``encodings`` (field 2) and ``encoding_stats`` (field
    13: (page type, encoding, count) per kind of page; None where the writer left them out)."""

    encodings: tuple[int, ...]
    encoding_stats: tuple[tuple[int, int, int], ...] | None = None


def dictionary_chunks(footer: bytes) -> DictionaryChunks:
    """Per row group, per leaf column: does the chunk hold dictionary-encoded data pages only? ``footer``: the
    file's Thrift FileMetaData. Bytes that do not decode raise a DecodeError at their offset in ``footer``."""
    return tuple(tuple(chunk is not None and dictionary_only(chunk) for chunk in group)
                 for group in chunk_encodings(footer))


def decoded_dictionary_chunks(meta: Any) -> DictionaryChunks:
    """:func:`dictionary_chunks` of a footer decoded already (``parquet_pages``' FileMetaData)."""
    return tuple(tuple(chunk.meta_data is not None and dictionary_only(ChunkEncodings(
        tuple(chunk.meta_data.encodings or ()), None if chunk.meta_data.encoding_stats is None else tuple(
            (stats.page_type, stats.encoding, stats.count) for stats in chunk.meta_data.encoding_stats)))
        for chunk in group.columns or ()) for group in meta.row_groups or ())


def dictionary_only(chunk: ChunkEncodings) -> bool:
    """Is every data page of the chunk dictionary-encoded, and is there one?"""
    if chunk.encoding_stats is not None:
        data = [(encoding, count) for page_type, encoding, count in chunk.encoding_stats
                if page_type in (DATA_PAGE, DATA_PAGE_V2) and count]
        return bool(data) and all(encoding in DICTIONARY_ENCODINGS for encoding, _ in data)
    encodings = chunk.encodings
    return any(encoding in DICTIONARY_ENCODINGS for encoding in encodings) and all(
        encoding in DICTIONARY_ENCODINGS or encoding in LEVEL_ENCODINGS for encoding in encodings)


def chunk_encodings(footer: bytes) -> list[list[ChunkEncodings | None]]:
    """Per row group (FileMetaData field 4), per column chunk (RowGroup field 1): its ColumnMetaData's
    encodings (ColumnChunk field 3; None for a chunk without one)."""
    wire = _Wire(footer)

    def row_group() -> list[ChunkEncodings | None]:
        return wire.struct({1: (_LIST, lambda: wire.list_of(_STRUCT, "columns", column_chunk))}).get(1, [])

    def column_chunk() -> ChunkEncodings | None:
        return wire.struct({3: (_STRUCT, lambda: _column_metadata(wire))}).get(3)

    return wire.struct({4: (_LIST, lambda: wire.list_of(_STRUCT, "row_groups", row_group))}).get(4, [])


def _column_metadata(wire: "_Wire") -> ChunkEncodings:
    def stats() -> tuple[int, int, int]:  # a PageEncodingStats (a page type of -1 counts as no data page)
        found = wire.struct(dict.fromkeys((1, 2, 3), (_I32, wire.varint_signed)))
        return found.get(1, -1), found.get(2, -1), found.get(3, 0)

    found = wire.struct({2: (_LIST, lambda: wire.list_of(_I32, "encodings", wire.varint_signed)),
                         13: (_LIST, lambda: wire.list_of(_STRUCT, "encoding_stats", stats))})
    listed = found.get(13)
    return ChunkEncodings(tuple(found.get(2, ())), None if listed is None else tuple(listed))


class _Wire:
    """A cursor over Thrift compact-protocol bytes (``at``), every length checked against the bytes left."""

    def __init__(self, data: bytes):
        self.data, self.at, self.depth = data, 0, 0

    def _refuse(self, message: str, at: int | None = None) -> DecodeError:
        return DecodeError(message, offset=self.at if at is None else at, field="parquet footer")

    def struct(self, wanted: dict[int, tuple[int, Callable[[], Any]]]) -> dict[int, Any]:
        """The fields of the struct starting here that ``wanted`` names (id: (wire type, reader)), read by their
        readers; every other field, or one of another wire type, skipped."""
        self._enter()
        data, field = self.data, 0
        found: dict[int, Any] = {}
        while True:
            if self.at >= len(data):
                raise self._refuse("the footer ends inside a struct")
            header = data[self.at]
            self.at += 1
            if not header:
                self.depth -= 1
                return found
            kind = self._known(header & 0x0F)
            field = field + (header >> 4) if header >> 4 else self.varint_signed()
            reader = wanted.get(field)
            if reader is not None and reader[0] == kind:
                found[field] = reader[1]()
            else:
                self.skip(kind)

    def list_of(self, element: int, name: str, read: Callable[[], Any]) -> list:
        """The list starting here, its elements (which must be of wire type ``element``) each by ``read``."""
        start = self.at
        kind, size = self._collection()
        if size and kind != element:
            raise self._refuse(f"{name}: a list of wire type {kind} where {element} belongs", start)
        return [read() for _ in range(size)]

    def varint(self) -> int:
        data, at, value, shift = self.data, self.at, 0, 0
        end = min(len(data), at + 10)
        while at < end:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                self.at = at
                return value
            shift += 7
        raise self._refuse("a variable-length integer runs past 64 bits or the footer's end")

    def varint_signed(self) -> int:
        value = self.varint()
        return (value >> 1) ^ -(value & 1)

    def skip(self, kind: int) -> None:
        if kind in _FIXED:
            self._advance(_FIXED[kind])
        elif kind <= _I64:
            self.varint()
        elif kind == _BINARY:
            start = self.at
            length = self.varint()
            if length > len(self.data) - self.at:
                raise self._refuse(f"the footer ends inside a string of {length} bytes ({len(self.data) - self.at} "
                                   "left)", start)
            self.at += length
        elif kind == _STRUCT:
            self.struct({})
        else:
            self._enter()
            if kind == _MAP:
                self._skip_map()
            else:
                element, size = self._collection()
                for _ in range(size):
                    self._skip_element(element)
            self.depth -= 1

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self._refuse(f"values nested deeper than {_MAX_DEPTH}")

    def _known(self, kind: int) -> int:
        if not _TRUE <= kind <= _UUID:
            raise self._refuse(f"unknown wire type {kind}", self.at - 1)
        return kind

    def _collection(self) -> tuple[int, int]:
        """(element wire type, size) of the list or set starting here."""
        start = self.at
        self._advance(1)
        header = self.data[start]
        size = header >> 4
        if size == 15:
            size = self.varint()
        if size > len(self.data) - self.at:  # (every element takes a byte at least)
            raise self._refuse(f"a list of {size} elements in {len(self.data) - self.at} bytes", start)
        return (self._known(header & 0x0F) if size else 0), size

    def _skip_element(self, kind: int) -> None:
        self._advance(1) if kind in (_TRUE, _FALSE) else self.skip(kind)  # (a bool in a list is a byte)

    def _skip_map(self) -> None:
        start = self.at
        size = self.varint()
        if not size:
            return
        if 2 * size > len(self.data) - self.at:
            raise self._refuse(f"a map of {size} entries in {len(self.data) - self.at} bytes", start)
        self._advance(1)
        types = self.data[self.at - 1]
        key, value = self._known(types >> 4), self._known(types & 0x0F)
        for _ in range(size):
            self._skip_element(key)
            self._skip_element(value)

    def _advance(self, length: int) -> None:
        if length > len(self.data) - self.at:
            raise self._refuse("the footer ends inside a field")
        self.at += length
