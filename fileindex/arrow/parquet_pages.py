"""A few rows of a Parquet row group read page by page, through the column chunks' offset indexes.

pyarrow reads whole row groups: one row of a 1M-row group decodes a million values of every column.
Writers that keep page indexes (parquet-mr, and so Java Paimon; arrow-rs, and so pypaimon-rust) say
in each column chunk's offset index where every data page starts and which row it starts with. For
each column this module copies the pages holding a wanted row (after the chunk's dictionary page)
into a small Parquet file, one row group with a footer of its own (the columns whose chosen pages cover
the same rows share one copy: a pyarrow read each copy), and lets pyarrow decode that; the wanted rows
are then taken from it. The PLAIN pages of fixed-width numbers (``plain_pages``: integers, floats,
timestamps and decimals stored as integers; required, or optional on a page without a null) are decoded
here instead, page by page: the page decompressed by Arrow's codec, its values' bytes the values. A writer
goes on in PLAIN once its dictionary is full (arrow-rs and parquet-mr after 1 MiB), so a 1M-row chunk of
distinct BIGINTs or timestamps is a few dictionary-encoded pages and many PLAIN ones. Dictionary-encoded
pages of such numbers are decoded here as well (``dictionary_pages``: the indices up to the last wanted row, then
those entries of the dictionary page, which is read only for them); those of other types are copied, with the
dictionary page. A column of such numbers is decoded here on every page holding a wanted row, however many (a
bitmap's OR of two categories keeps a twelfth of the rows, on every page): pyarrow would decompress those pages
too, then decode every value of them to take a few. The pages of other columns, and those not decoded here,
are read with the whole row group instead where they hold most of the chunk's bytes.

The exit: pyarrow cannot read chosen rows of a row group. Arrow C++ selects pages by row ranges
(``RowRanges``) inside its reader, and apache/arrow#48635 asks for that in pyarrow; the day pyarrow
reads row ranges, this module goes.

An offset index is a claim, and the file is the truth about itself: what a whole row group read decodes
is the chunk's pages one after another from its first, each header saying how many rows it holds. So
before a chunk's pages are copied, every page the index names is checked against that: the chunk lies
inside the file's pages, the index has no more entries than the group has rows (refused before it is read
where it is longer than so many entries take, and from the list's declared length before its entries are
decoded), the pages lie back to back from the chunk's first data page to
within its end, and each page's header is a data page (v1 or v2) whose size is the index's and whose row
count is the index's (a v1 page counts its values, nulls included: a row each in the flat columns this
module reads; a v2 page its rows, and as many values). The dictionary page, where one is copied, is
checked the same way, and the copy must decode to the rows it should hold. Anything unexpected (no
offset index, a nested or repeated column, a chunk or page that does not check out, a tree of an unknown
shape) raises Unreadable: the caller reads the row group whole.

A column's column index (each page's min and max, as the writer claims them) tells a filter which pages may
hold a matching row (``page_bounds``: signed integers, floating point and byte arrays): a claim like a row
group's statistics, used as Java uses those; one that does not decode, or does not bound each page of the
offset index, is Unreadable.

The footer, offset and column indexes and page headers are decoded into the classes generated from
specs/parquet.thrift (``fileindex.generated.parquet_thrift``) by Thrift's C-accelerated compact protocol,
with every string and list bounded by the bytes decoded. A copy's footer carries the schema element and
column order of its column and the writer's name as the file holds them; the footer is refused unless
those encode back to its own bytes (a field this module does not declare would otherwise be lost).
"""
from __future__ import annotations

import bisect
import functools
import itertools
import os
import struct
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

import pyarrow as pa
from thrift.Thrift import TException
from thrift.transport.TTransport import TMemoryBuffer

from fileindex.arrow import compute
from fileindex.arrow.parquet_file import ParquetFile
from fileindex.arrow.plain_pages import (
    DATA_PAGE,
    DATA_PAGE_V2,
    DICTIONARY_ENCODINGS,
    DICTIONARY_PAGE,
    PlainType,
    Undecodable,
    codec_of,
    plain_type,
)
from fileindex.arrow.plain_pages import page_values as plain_values
from fileindex.frozen import field, frozen
from fileindex.lazy import numpy as np
from fileindex.generated.parquet_thrift.ttypes import (
    ColumnChunk,
    ColumnIndex,
    ColumnMetaData,
    FileMetaData,
    OffsetIndex,
    PageHeader,
    RowGroup,
)


REPEATED = 2  # parquet.thrift's FieldRepetitionType (PageType and Encoding: plain_pages')
BYTE_ARRAY = 6  # Type
FIRST_PAGE_AT = 4  # after the magic
INT32_MAX = (1 << 31) - 1
# an offset index entry takes at most 29 bytes (three field headers, varints of 10, 5 and 10 bytes, a stop), and
# another 10 where the index lists each page's unencoded bytes; the list and struct framing, 32 at most
LOCATION_BYTES, INDEX_FRAMING = 40, 32
# a column index entry of a flat INT32 or INT64 column: a bool, a min and a max (a length varint and at most 8
# bytes each), a null count, and the level histograms later writers add (skipped here: a repetition level and
# two definition levels a page, varints of at most 10 bytes each)
BOUND_BYTES = 64
HISTOGRAM_ENTRIES = 3  # (the longest list of a page's entries: its levels' histograms, as many a page)
# parquet.thrift's Type INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY: what their column index bounds are, of how many bytes
BOUND_KINDS = {1: ("integer", 4), 2: ("integer", 8), 4: ("floating", 4), 5: ("floating", 8), 6: ("bytes", 0)}
UNSIGNED_CONVERTED = range(11, 15)  # ConvertedType UINT_8 .. UINT_64 (their bounds order unsigned)
HEADER_BYTES = 256  # read for a page header at first (more where it carries long statistics)

# a column whose wanted pages to copy hold more than this share of its bytes is read whole: the pages left out save
# too little decoding to pay for the copy (40 rows of a 1M-row group lie on about two thirds of its pages, and
# reading those alone took 0.046 s against 0.054 s for the whole group)
WHOLE_SHARE = 0.8

# without numpy (a cold read's first pages: see _decoded_rows), a column whose wanted rows lie on more pages than
# this has them all copied for pyarrow: its PLAIN pages' values taken by an Arrow kernel call a page (40 rows on
# 28 pages of each of a 1M-row file's four columns: 138 ms against 119; 1 to 3 rows: 0.80-0.86x)
DECODED_PAGES = 8

Decoded = TypeVar("Decoded")


class Unreadable(Exception):
    """The pages cannot be read this way (the caller reads the row group instead)."""


def decode(kind: type[Decoded], data: bytes, limit: int) -> tuple[Decoded, int]:
    """A ``kind`` decoded from the start of ``data``, and the bytes it took; a string or list longer than
    ``limit`` is refused from its declared length."""
    buffer = TMemoryBuffer(data)
    limit = min(limit, INT32_MAX)  # (the protocol's limits are i32)
    found = kind()
    try:
        found.read(_compact_input(buffer, limit))  # type: ignore[attr-defined]
    except (TException, EOFError, RecursionError, struct.error, ValueError, KeyError, TypeError, IndexError,
            OverflowError) as err:  # (what the C and pure-Python protocols raise on damaged input)
        raise Unreadable(f"undecodable {kind.__name__}: {err or type(err).__name__}") from None
    return found, buffer.cstringio_buf.tell()


def encode(value: Any) -> bytes:
    fast = _fastbinary()
    if fast is not None:
        return fast.encode_compact(value, [type(value), value.thrift_spec])
    from thrift.protocol.TCompactProtocol import TCompactProtocolAccelerated

    buffer = TMemoryBuffer()
    value.write(TCompactProtocolAccelerated(buffer))
    return buffer.getvalue()


class _CompactInput:
    """All that a generated struct's ``read`` and Thrift's C compact decoder take from a protocol: its transport,
    its limits and the decoder. (Not ``TCompactProtocolAccelerated``: its module imports ``uuid``, and that
    ``platform``, for a cold read that decodes no UUID.)"""

    __slots__ = ("trans", "string_length_limit", "container_length_limit", "_fast_decode")

    def __init__(self, buffer: TMemoryBuffer, limit: int, decoder: Callable):
        self.trans, self.string_length_limit, self.container_length_limit = buffer, limit, limit
        self._fast_decode = decoder


def _compact_input(buffer: TMemoryBuffer, limit: int) -> Any:
    """The protocol ``decode`` reads with: the C decoder's inputs, or the pure-Python protocol without it."""
    fast = _fastbinary()
    if fast is not None:
        return _CompactInput(buffer, limit, fast.decode_compact)
    from thrift.protocol.TCompactProtocol import TCompactProtocolAccelerated

    return TCompactProtocolAccelerated(buffer, string_length_limit=limit, container_length_limit=limit)


@functools.cache
def _fastbinary() -> Any:
    """Thrift's C extension (None where the thrift wheel was built without it)."""
    try:
        from thrift.protocol import fastbinary
    except ImportError:
        return None
    return fastbinary


@frozen
class PageTable:
    """A column chunk's data pages as its offset index gives them, checked against the chunk: where each
    starts, its size (header included), its first row (and the group's row count after the last); and where
    the chunk's dictionary page lies (start, size), if it has one."""

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    firsts: tuple[int, ...]
    dictionary: tuple[int, int] | None

    @functools.cached_property
    def bytes(self) -> int:
        """The data pages' bytes, headers included."""
        return sum(self.sizes)


@frozen
class CheckedHeaders:
    """A chunk's page headers as checked against its page table, each with its length (the page's body follows
    it), and whether each data page is dictionary-encoded."""

    pages: tuple[tuple[PageHeader, int], ...]
    dictionary: tuple[PageHeader, int] | None
    encoded: tuple[bool, ...]


@frozen
class PagedFooter:
    """A Parquet footer decoded, with what page reads need of it."""

    meta: FileMetaData
    leaves: dict[str, int]  # a flat schema's column name -> its position among the leaves
    pages_end: int  # where the footer starts: every page and page index lies before it
    # (group, leaf) -> its page table; its pages' headers, once checked against it
    _pages: dict[tuple[int, int], PageTable] = field(default_factory=dict, compare=False, repr=False)
    _headers: dict[tuple[int, int], CheckedHeaders] = field(default_factory=dict, compare=False, repr=False)
    # (group, leaf) -> an integer column's page bounds, once decoded (a point lookup asks them at every read)
    _bounds: dict[tuple[int, int], PageBounds] = field(default_factory=dict, compare=False, repr=False)

    def pages(self, fd: int, group: int, leaf: int) -> PageTable:
        found = self._pages.get((group, leaf))
        if found is None:
            found = self._pages[group, leaf] = _page_table(fd, self, group, leaf)
        return found

    def dictionary_encoded(self, fd: int, group: int, leaf: int) -> tuple[bool, ...]:
        """Whether each page is dictionary-encoded, once every page's header (and the dictionary page's) is
        checked against the page table: before any page is copied."""
        return self.headers(fd, group, leaf).encoded

    def headers(self, fd: int, group: int, leaf: int) -> CheckedHeaders:
        """The chunk's page headers, each checked against the page table (once per footer)."""
        found = self._headers.get((group, leaf))
        if found is None:
            found = self._headers[group, leaf] = _checked_pages(fd, self.pages(fd, group, leaf))
        return found

    @property
    def row_groups(self) -> list[RowGroup]:
        return self.meta.row_groups or []

    @classmethod
    def read(cls, path: str) -> PagedFooter:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size < 12:
                raise Unreadable("too short for a Parquet file")
            tail = os.pread(file.fileno(), 8, size - 8)
            length = int.from_bytes(tail[:4], "little")
            if tail[4:] != b"PAR1" or length > size - 12:
                raise Unreadable("no plain Parquet footer")
            raw = _read_exactly(file.fileno(), size - 8 - length, length)
        meta, _ = decode(FileMetaData, raw, len(raw))
        schema = meta.schema or []
        leaves = {element.name: i for i, element in enumerate(schema[1:])}
        if not schema or schema[0].num_children != len(schema) - 1 or len(leaves) != len(schema) - 1 or any(
                e.num_children is not None or e.repetition_type == REPEATED or e.type is None for e in schema[1:]):
            raise Unreadable("not a flat schema of distinct names")
        if not written_back_verbatim(meta, raw):
            raise Unreadable("the footer's schema or column orders hold what this module does not declare")
        return cls(meta, leaves, size - 8 - length)


def written_back_verbatim(meta: FileMetaData, raw: bytes) -> bool:
    """Do the schema, writer name and column orders a copy's footer carries encode back to the footer's own
    bytes? (The footer's first fields are its version and schema; its last, the writer and column orders.)"""
    head = encode(FileMetaData(version=meta.version, schema=meta.schema))[:-1]  # (without the closing stop)
    if not raw.startswith(head):
        return False
    if meta.created_by is None and meta.column_orders is None:
        return True
    tail = encode(FileMetaData(created_by=meta.created_by, column_orders=meta.column_orders))[1:-1]
    return raw[:-1].endswith(tail)  # (after the first field's header, which counts from the field before it)


def read_rows(path: str, footer: PagedFooter, group: int, rows: pa.Int64Array | np.ndarray,
              columns: list[str]) -> dict[str, pa.Array | None]:
    """``rows`` (ascending positions within row group ``group``) of each of ``columns``, in the type pyarrow
    infers from the Parquet schema alone; None for a column where they lie on most of the pages (read it
    whole). Raises Unreadable when the pages cannot be read this way.

    The pages of fixed-width numbers, PLAIN or dictionary-encoded, are decoded here (``_decoded_rows``); the
    others are copied, the columns whose copied pages cover the same rows into one copy, read by pyarrow at once
    (each read of a copy costs a footer's parse and a reader's setup), and each column's rows put back in page
    order."""
    if not 0 <= group < len(footer.row_groups):
        raise Unreadable(f"no row group {group}")
    positions = compute.int64_array(rows)
    found: dict[str, pa.Array | None] = {}
    with open(path, "rb") as file:
        fd = file.fileno()
        copies: dict[tuple[int, ...], list[_Chosen]] = {}
        decoded: dict[str, tuple[_Chosen, list[pa.Array | np.ndarray | None]]] = {}  # pages decoded here (None: copied)
        for name in columns:
            read_here = _read_here(fd, footer, group, footer.leaves[name], positions)
            if read_here is None:
                found[name] = None
                continue
            chosen, pages = decoded[name] = read_here
            copied = [i for i, values in enumerate(pages) if values is None]
            if copied:
                part = chosen if len(copied) == len(chosen.pages) else _part(chosen, copied)
                copies.setdefault(part.spans, []).append(part)
        for together in copies.values():
            found.update(_copied_rows(fd, footer, together))
        for name, (chosen, pages) in decoded.items():
            found[name] = _merged(chosen, pages, found.get(name), _plain_column(footer, group, chosen.leaf)[0])
    return {name: found[name] for name in columns}


@frozen
class PageBounds:
    """A column chunk's data pages with the bounds its column index claims for each (as a row group's
    statistics are claims): where each page's rows start (and the group's row count after the last), each
    page's min and max (None for a page of nulls only) and null count (None: not recorded). ``kind`` says what
    the bounds are: ``integer`` (int: a signed INT32 or INT64), ``floating`` (float: FLOAT or DOUBLE, a bound
    NaN or a zero of either sign as the writer left it) or ``bytes`` (a BYTE_ARRAY's, in unsigned byte order:
    the writer may have cut a minimum to a prefix and rounded a maximum up, still bounds)."""

    firsts: tuple[int, ...]
    bounds: list[tuple[Any, Any, int | None]]
    kind: str = "integer"
    memo: dict = field(default_factory=dict, compare=False, repr=False)  # (what a caller derives)


def page_bounds(path: str, footer: PagedFooter, group: int, leaf: int) -> PageBounds:
    """The pages of a signed INT32 or INT64, FLOAT, DOUBLE or BYTE_ARRAY column chunk ordered as its type orders
    and their bounds, from its offset and column indexes; Unreadable (naming the file and the column index's
    offset) where the chunk has no column index, it does not describe the offset index's pages or a bound is
    not one. Decoded once per footer."""
    found = footer._bounds.get((group, leaf))
    if found is None:
        found = footer._bounds[group, leaf] = _page_bounds(path, footer, group, leaf)
    return found


def _page_bounds(path: str, footer: PagedFooter, group: int, leaf: int) -> PageBounds:
    if not 0 <= group < len(footer.row_groups):
        raise Unreadable(f"no row group {group}")
    with open(path, "rb") as file:
        fd = file.fileno()
        table = footer.pages(fd, group, leaf)
        _, chunk, meta = _chunk(footer, group, leaf)
        kind, width = _bounds_kind(footer, leaf, meta.type)
        at, length, pages = chunk.column_index_offset, chunk.column_index_length, len(table.offsets)
        if at is None or not length:
            raise Unreadable("no column index")
        if not (FIRST_PAGE_AT <= at and 0 < length <= footer.pages_end - at) \
                or (width and length > INDEX_FRAMING + BOUND_BYTES * pages):
            raise Unreadable(f"{path}: a column index of {length} bytes at {at} for {pages} pages")
        raw = _read_exactly(fd, at, length)
    try:
        index, _ = decode(ColumnIndex, raw, limit=max(HISTOGRAM_ENTRIES * pages, width) if width else length)
    except Unreadable as err:
        raise Unreadable(f"{path}: the column index at {at}: {err}") from None
    where = f"{path}: the column index at {at}"
    return PageBounds(table.firsts, _checked_bounds(index, table.firsts, kind, width, where), kind)


def _bounds_kind(footer: PagedFooter, leaf: int, physical: int) -> tuple[str, int]:
    """What a column chunk's bounds are (``PageBounds.kind``) and their width in bytes (0: any); Unreadable for a
    column whose bounds are not so (another physical type, unsigned integers, an order not its type's)."""
    found = BOUND_KINDS.get(physical)
    element = footer.meta.schema[1 + leaf]
    logical = element.logicalType
    unsigned = element.converted_type in UNSIGNED_CONVERTED or (
        logical is not None and logical.INTEGER is not None and logical.INTEGER.isSigned is False)
    orders = footer.meta.column_orders
    order = orders[leaf] if orders is not None and leaf < len(orders) else None
    if found is None or unsigned or (orders is not None and (order is None or order.TYPE_ORDER is None)):
        raise Unreadable("no column index bounds of signed integers, floating point or bytes in their type's order")
    return found


def _checked_bounds(index: ColumnIndex, firsts: tuple[int, ...], kind: str, width: int,
                    where: str) -> list[tuple[Any, Any, int | None]]:
    """Each page's (min, max, null count) of a decoded column index, checked against the pages it must describe
    (a bound each, null counts within the pages' rows, a minimum not above its maximum)."""
    pages = len(firsts) - 1
    nulls, lows, highs, counts = index.null_pages, index.min_values, index.max_values, index.null_counts
    if nulls is None or lows is None or highs is None or not len(nulls) == len(lows) == len(highs) == pages \
            or (counts is not None and len(counts) != pages):
        raise Unreadable(f"{where}: not a bound for each of the offset index's {pages} pages")
    bounds: list[tuple[Any, Any, int | None]] = []
    for page in range(pages):
        count, rows = counts[page] if counts is not None else None, firsts[page + 1] - firsts[page]
        if count is not None and not 0 <= count <= rows or nulls[page] and count not in (None, rows):
            raise Unreadable(f"{where}: page {page} of {rows} rows said to hold {count} nulls")
        if nulls[page]:
            bounds.append((None, None, count))
            continue
        low, high = (_bound(value, kind, width, page, where) for value in (lows[page], highs[page]))
        if low > high:  # (False where a bound is NaN)
            raise Unreadable(f"{where}: page {page}'s minimum is above its maximum")
        bounds.append((low, high, count))
    return bounds


def _bound(value: bytes, kind: str, width: int, page: int, where: str) -> Any:
    if kind == "bytes":
        return value
    if len(value) != width:
        raise Unreadable(f"{where}: page {page}'s bounds are not {width}-byte values")
    if kind == "integer":
        return int.from_bytes(value, "little", signed=True)
    return struct.unpack("<f" if width == 4 else "<d", value)[0]


def _read_exactly(fd: int, at: int, length: int) -> bytes:
    data = os.pread(fd, length, at)
    if len(data) != length:
        raise Unreadable(f"the file ends before byte {at + length}")
    return data


def _chunk(footer: PagedFooter, group: int, leaf: int) -> tuple[RowGroup, ColumnChunk, ColumnMetaData]:
    row_group = footer.row_groups[group]
    columns = row_group.columns or []
    if len(columns) != len(footer.leaves) or not isinstance(row_group.num_rows, int) or row_group.num_rows <= 0:
        raise Unreadable(f"row group {group} has no rows or not a chunk for each column")
    chunk = columns[leaf]
    meta = chunk.meta_data
    if meta is None or chunk.crypto_metadata is not None or chunk.encrypted_column_metadata is not None \
            or chunk.file_path is not None:
        raise Unreadable("an encrypted or external column chunk")
    if any(value is None for value in (meta.type, meta.encodings, meta.path_in_schema, meta.codec, meta.num_values,
                                       meta.total_compressed_size, meta.data_page_offset)):
        raise Unreadable("a column chunk without its required fields")
    return row_group, chunk, meta


def _page_table(fd: int, footer: PagedFooter, group: int, leaf: int) -> PageTable:
    row_group, chunk, meta = _chunk(footer, group, leaf)
    rows = row_group.num_rows
    data_at, dictionary_at = meta.data_page_offset, meta.dictionary_page_offset
    start = dictionary_at if dictionary_at is not None and 0 < dictionary_at < data_at else data_at
    end = start + meta.total_compressed_size
    if not FIRST_PAGE_AT <= start <= data_at < end <= footer.pages_end:
        raise Unreadable("a column chunk outside the file's pages")
    if meta.num_values != rows:
        raise Unreadable("a column chunk with another number of values than rows (not flat)")
    index_at, index_length = chunk.offset_index_offset, chunk.offset_index_length
    if index_at is None or not index_length:
        raise Unreadable("no offset index")
    if not (FIRST_PAGE_AT <= index_at and 0 < index_length <= footer.pages_end - index_at):
        raise Unreadable("an offset index outside the file")
    # each page holds a row at least: an index longer than a row each can make, or a list of more entries
    # (refused from its declared length), is not one of this group
    if index_length > INDEX_FRAMING + LOCATION_BYTES * rows:
        raise Unreadable(f"an offset index of {index_length} bytes for {rows} rows")
    index, _ = decode(OffsetIndex, _read_exactly(fd, index_at, index_length), limit=rows)
    locations = index.page_locations or []
    fields = [(p.offset, p.compressed_page_size, p.first_row_index) for p in locations]
    if not fields or any(None in page for page in fields):
        raise Unreadable("an offset index without its page locations")
    offsets, sizes, firsts = (tuple(column) for column in zip(*fields, strict=True))
    firsts += (rows,)
    if offsets[0] != data_at or firsts[0] != 0 or any(b <= a for a, b in itertools.pairwise(firsts)) \
            or any(size <= 0 for size in sizes) \
            or any(offsets[i] + sizes[i] != offsets[i + 1] for i in range(len(offsets) - 1)) \
            or offsets[-1] + sizes[-1] > end:
        raise Unreadable("the offset index does not describe the chunk's pages back to back")
    return PageTable(offsets, sizes, firsts, (start, data_at - start) if start < data_at else None)


def _checked_pages(fd: int, table: PageTable) -> CheckedHeaders:
    """The chunk's page headers; Unreadable where a header is not what the table says."""
    dictionary = None
    if table.dictionary is not None:
        dictionary = _page_header(fd, *table.dictionary)
        if dictionary[0].type != DICTIONARY_PAGE or dictionary[0].dictionary_page_header is None:
            raise Unreadable("the chunk's dictionary page is not one")
    offsets, sizes, firsts = table.offsets, table.sizes, table.firsts
    pages = tuple(_page_header(fd, offsets[i], sizes[i]) for i in range(len(offsets)))
    encoded = tuple(_checked_data_page(header, firsts[i + 1] - firsts[i], i) for i, (header, _) in enumerate(pages))
    return CheckedHeaders(pages, dictionary, encoded)


def _checked_data_page(header: PageHeader, rows: int, number: int) -> bool:
    """Is ``header`` that of a data page of ``rows`` rows, as the offset index says? (Unreadable if not.) Returns
    whether it is dictionary-encoded."""
    v1, v2 = header.data_page_header, header.data_page_header_v2
    if header.type == DATA_PAGE and v1 is not None:
        counts, encoding = (v1.num_values, v1.num_values), v1.encoding
    elif header.type == DATA_PAGE_V2 and v2 is not None:
        counts, encoding = (v2.num_rows, v2.num_values), v2.encoding
    else:
        raise Unreadable(f"page {number} of the offset index is not a data page")
    if counts != (rows, rows):
        raise Unreadable(f"page {number} holds {counts[0]} rows ({counts[1]} values); its offset index says {rows}")
    return encoding is None or encoding in DICTIONARY_ENCODINGS


def _page_header(fd: int, at: int, size: int) -> tuple[PageHeader, int]:
    """The header of the page of ``size`` bytes at ``at``, which must end where the page's data makes it end, and
    its length."""
    length = min(size, HEADER_BYTES)
    while True:
        try:
            header, taken = decode(PageHeader, _read_exactly(fd, at, length), limit=length)
            break
        except Unreadable:
            if length == size:
                raise
            length = min(size, 16 * length)  # (a header with long statistics)
    if header.compressed_page_size is None or taken + header.compressed_page_size != size:
        raise Unreadable(f"the page at {at} is not {size} bytes long, as the offset index says")
    return header, taken


@frozen
class _Chosen:
    """The pages of a column chunk that hold the wanted rows, and each page's wanted rows (from its first)."""

    name: str
    group: int
    leaf: int
    table: PageTable
    pages: list[int]
    on_pages: list[pa.Int64Array]

    @functools.cached_property
    def spans(self) -> tuple[int, ...]:
        """The first row of each page and the row after it: columns alike share a copy."""
        firsts = self.table.firsts
        return tuple(row for page in self.pages for row in (firsts[page], firsts[page + 1]))

    @functools.cached_property
    def positions(self) -> pa.Int64Array:
        """The wanted rows' positions among the pages' rows, the pages taken one after another."""
        positions, base, firsts = [], 0, self.table.firsts
        for page, rows in zip(self.pages, self.on_pages, strict=True):
            positions.append(compute.shifted(rows, base))
            base += firsts[page + 1] - firsts[page]
        return pa.concat_arrays(positions)

    @property
    def rows(self) -> int:
        return sum(high - low for low, high in zip(self.spans[::2], self.spans[1::2], strict=True))


def _part(chosen: _Chosen, which: list[int]) -> _Chosen:
    """The chosen pages numbered ``which`` (ascending, among ``chosen.pages``) alone."""
    return _Chosen(chosen.name, chosen.group, chosen.leaf, chosen.table, [chosen.pages[i] for i in which],
                   [chosen.on_pages[i] for i in which])


def _merged(chosen: _Chosen, pages: list[pa.Array | np.ndarray | None], copied: pa.Array | None,
            plain: PlainType | None) -> pa.Array:
    """A column's wanted rows, page after page: those decoded here (``pages``, in the storage type of ``plain``),
    the others (None) from ``copied`` (the rows of those pages, one page after another)."""
    if plain is None or all(values is None for values in pages):  # (none decoded here)
        assert copied is not None
        return copied
    if copied is None:  # (once a column: a decimal's is a cast)
        if not any(isinstance(values, pa.Array) for values in pages):  # (numpy's: one array made)
            return plain.as_arrow(compute.from_numpy(np.concatenate(cast(list[np.ndarray], pages)), plain.storage))
        return plain.as_arrow(pa.concat_arrays([_arrow(values, plain) for values in pages]))
    decoded = [None if values is None else plain.as_arrow(_arrow(values, plain)) for values in pages]
    if any(values is not None and values.type != copied.type for values in decoded):
        raise Unreadable(f"column {chosen.name}: pages decoded here and by pyarrow in other types")
    parts, at = [], 0
    for values, rows in zip(decoded, chosen.on_pages, strict=True):
        if values is None:
            values, at = copied.slice(at, len(rows)), at + len(rows)
        parts.append(values)
    return pa.concat_arrays(parts)


def _arrow(values: pa.Array | np.ndarray, plain: PlainType) -> pa.Array:
    return values if isinstance(values, pa.Array) else compute.from_numpy(values, plain.storage)


def _chosen_pages(fd: int, footer: PagedFooter, group: int, leaf: int, rows: pa.Int64Array, *,
                  whole_share: float | None = WHOLE_SHARE) -> _Chosen | None:
    """The pages of the chunk holding ``rows``; None where they hold more than ``whole_share`` of its bytes (read it
    whole; None: never)."""
    table = footer.pages(fd, group, leaf)
    offsets, sizes, firsts = table.offsets, table.sizes, table.firsts
    view = compute.int64_view(rows)
    if not len(view) or view[0] < 0 or view[-1] >= firsts[-1]:
        raise Unreadable(f"rows outside row group {group}")
    # the pages holding the ascending rows (Python ints: a chunk has tens of pages): fewer rows than pages (a
    # point lookup's) are each looked up among the pages, more cut where the pages start
    if len(view) < len(offsets):
        wanted = sorted({bisect.bisect_right(firsts, row) - 1 for row in view})
        cuts = {page: bisect.bisect_left(view, firsts[page]) for page in {*wanted, *(page + 1 for page in wanted)}}
    else:
        every = [bisect.bisect_left(view, first) for first in firsts]
        wanted = [page for page in range(len(offsets)) if every[page + 1] > every[page]]
        cuts = dict(enumerate(every))
    if whole_share is not None and sum(sizes[page] for page in wanted) > whole_share * table.bytes:
        return None
    return _Chosen(footer.meta.schema[1 + leaf].name, group, leaf, table, wanted,
                   _on_pages(rows, view, wanted, cuts, firsts))


def _on_pages(rows: pa.Int64Array, view: memoryview, pages: list[int], cuts: dict[int, int],
              firsts: tuple[int, ...]) -> list[pa.Int64Array]:
    """The wanted rows on each of ``pages`` (``rows[cuts[page]:cuts[page + 1]]``) from the page's first row: by numpy
    where it is imported (an Arrow kernel call and a scalar a page: 0.09 s of a 1.0 s profile of an OR's reads)."""
    if "numpy" not in sys.modules:
        return [compute.shifted(rows.slice(cuts[page], cuts[page + 1] - cuts[page]), -firsts[page]) for page in pages]
    values = np.asarray(view)
    return [compute.from_numpy(values[cuts[page]:cuts[page + 1]] - firsts[page], pa.int64()) for page in pages]


def _read_here(fd: int, footer: PagedFooter, group: int, leaf: int,
               positions: pa.Int64Array) -> tuple[_Chosen, list[pa.Array | np.ndarray | None]] | None:
    """The chunk's pages holding ``positions``, and each one's wanted rows decoded here (None: to copy for
    pyarrow); None where the column is read whole instead. A column of fixed-width numbers (where numpy is
    imported already, see ``_decoded_rows``) is decoded on every page holding a wanted row: pyarrow would
    decompress each of those pages too, then decode and take every value of them; the
    pages of another column, or those not decoded here, are read whole where they hold most of its bytes."""
    if "numpy" in sys.modules and _decoded_here(footer, group, leaf):
        chosen = _chosen_pages(fd, footer, group, leaf, positions, whole_share=None)
        assert chosen is not None  # (no share to exceed)
        pages = _decoded_rows(fd, footer, chosen, every=True)
        copied = sum(chosen.table.sizes[page] for page, values in zip(chosen.pages, pages, strict=True)
                     if values is None)
        return None if copied > WHOLE_SHARE * chosen.table.bytes else (chosen, pages)
    found = _chosen_pages(fd, footer, group, leaf, positions)
    return None if found is None else (found, _decoded_rows(fd, footer, found))


def _decoded_rows(fd: int, footer: PagedFooter, chosen: _Chosen, *,
                  every: bool = False) -> list[pa.Array | np.ndarray | None]:
    """Each chosen page's wanted rows (in the storage type: numpy where it is imported) where the page holds
    fixed-width numbers decoded here (data pages v1 or v2 whose headers were checked against the page table):
    PLAIN (``plain_pages``) or dictionary-encoded (``dictionary_pages``: the pages' indices first, then the
    dictionary page, read once for them and decoded only up to the highest index); None for a page that is not so
    (one with nulls, a dictionary not of PLAIN numbers: copied for pyarrow instead), and for every page where they
    are more than ``DECODED_PAGES`` (unless ``every``). The pages are read at once, each run of adjacent ones."""
    plain, codec = _plain_column(footer, chosen.group, chosen.leaf)
    if plain is None or codec is False or (len(chosen.pages) > DECODED_PAGES and not every):
        return [None] * len(chosen.pages)
    checked = footer.headers(fd, chosen.group, chosen.leaf)
    bodies = _page_bodies(fd, chosen.table, checked, chosen.pages)
    # (decoded by numpy where it is imported already: for a new process's first such page, importing it cost more
    # than pyarrow's decoding the page copied for it, a third of a cold one-id read's instructions, #54)
    numbers = "numpy" in sys.modules
    found: list[pa.Array | np.ndarray | None] = []
    indices: dict[int, np.ndarray] = {}  # (the number of a dictionary-encoded page among found -> its indices)
    for page, rows in zip(chosen.pages, chosen.on_pages, strict=True):
        header, body = checked.pages[page][0], bodies[page]
        if checked.encoded[page]:
            taken = _dictionary_indices(header, body, chosen.table, page, plain, codec, rows) if numbers else None
            if taken is not None:
                indices[len(found)] = taken
            found.append(None)
        else:
            values = _page_values(header, body, chosen.table, page, plain, codec)
            found.append(None if values is None else _taken(values, rows, plain) if numbers
                         else compute.call("take", values, rows))
    needed = max((int(taken.max()) + 1 for taken in indices.values() if len(taken)), default=0)
    entries = _dictionary_entries(fd, chosen.table, checked, plain, codec, needed) if indices else None
    if entries is not None:
        for at, taken in indices.items():
            found[at] = entries[taken]
    return found


def _taken(values: pa.Array, rows: pa.Int64Array, plain: PlainType) -> np.ndarray:
    """``values`` (a page's, storage type) at ``rows``, by numpy (a kernel call a page costs more)."""
    from fileindex.arrow.dictionary_pages import NUMPY_TYPES

    data = np.frombuffer(values.buffers()[1], NUMPY_TYPES[plain.storage], count=len(values), offset=0)
    return data[np.asarray(compute.int64_view(rows))]


def _page_bodies(fd: int, table: PageTable, checked: CheckedHeaders, pages: list[int]) -> dict[int, memoryview]:
    """The bodies (after their checked headers) of the chunk's data pages ``pages``, each run of adjacent pages read
    at once."""
    offsets, sizes = table.offsets, table.sizes
    bodies = {}
    for run in _adjacent(pages):
        first = offsets[run[0]]
        data = memoryview(_read_exactly(fd, first, offsets[run[-1]] + sizes[run[-1]] - first))
        for page in run:
            at = offsets[page] - first
            bodies[page] = data[at + checked.pages[page][1]:at + sizes[page]]
    return bodies


def page_values(path: str, footer: PagedFooter, group: int, name: str, pages: list[int]) -> pa.ChunkedArray | None:
    """Every value of the data pages ``pages`` (ascending) of a row group's column, one page after another,
    where the column's pages are PLAIN fixed-width numbers (decoded here, as :func:`read_rows` decodes them);
    None where they are not so (read its rows otherwise). Raises Unreadable where the pages do not check out."""
    if not 0 <= group < len(footer.row_groups) or name not in footer.leaves:
        raise Unreadable(f"no row group {group} or no column {name}")
    leaf = footer.leaves[name]
    with open(path, "rb") as file:
        fd = file.fileno()
        table = footer.pages(fd, group, leaf)
        if not pages or pages[0] < 0 or pages[-1] >= len(table.offsets):
            raise Unreadable(f"no pages {pages} in row group {group}")
        plain, codec = _plain_column(footer, group, leaf)
        checked = footer.headers(fd, group, leaf)
        if plain is None or codec is False or any(checked.encoded[page] for page in pages):
            return None
        bodies = _page_bodies(fd, table, checked, pages)
        found = []
        for page in pages:
            values = _page_values(checked.pages[page][0], bodies[page], table, page, plain, codec)
            if values is None:
                return None
            found.append(plain.as_arrow(values))
        return pa.chunked_array(found, plain.arrow)


def _plain_column(footer: PagedFooter, group: int, leaf: int) -> tuple[PlainType | None, pa.Codec | None | bool]:
    """How a column chunk's PLAIN pages are decoded here (``plain_pages.plain_type``; None: they are not), and
    Arrow's codec of the chunk (``plain_pages.codec_of``; False: not one decoded here)."""
    return plain_type(footer.meta.schema[1 + leaf]), codec_of(_chunk(footer, group, leaf)[2].codec)


def _decoded_here(footer: PagedFooter, group: int, leaf: int) -> bool:
    """Are the chunk's pages of a kind ``_decoded_rows`` decodes (fixed-width numbers, a codec Arrow has)?"""
    plain, codec = _plain_column(footer, group, leaf)
    return plain is not None and codec is not False


def _page_values(header: PageHeader, body: memoryview, table: PageTable, page: int, plain: PlainType,
                 codec: pa.Codec | None) -> pa.Array | None:
    """Every value of a checked data page, where it is PLAIN (``plain_pages.page_values``), in its storage type."""
    try:
        return plain_values(header, body, table.firsts[page + 1] - table.firsts[page], plain, codec)
    except Undecodable as err:
        raise Unreadable(f"page {page} at {table.offsets[page]}: {err}") from None


def _dictionary_entries(fd: int, table: PageTable, checked: CheckedHeaders, plain: PlainType,
                        codec: pa.Codec | None, needed: int) -> np.ndarray | None:
    """The first ``needed`` entries of the chunk's dictionary page, where it is PLAIN fixed-width numbers
    (``dictionary_pages``); None where the chunk has none or it is not so."""
    if table.dictionary is None or checked.dictionary is None:
        return None
    from fileindex.arrow.dictionary_pages import dictionary_entries

    at, size = table.dictionary
    header, taken = checked.dictionary
    body = memoryview(_read_exactly(fd, at, size))[taken:]
    try:
        return dictionary_entries(header, body, plain, codec, most=table.firsts[-1], needed=needed)
    except Undecodable as err:
        raise Unreadable(f"the dictionary page at {at}: {err}") from None


def _dictionary_indices(header: PageHeader, body: memoryview, table: PageTable, page: int, plain: PlainType,
                        codec: pa.Codec | None, rows: pa.Int64Array) -> np.ndarray | None:
    """The dictionary indices of the wanted ``rows`` of a checked dictionary-encoded data page
    (``dictionary_pages.page_indices``)."""
    from fileindex.arrow.dictionary_pages import page_indices  # (numpy: only where such a page is decoded)

    try:
        return page_indices(header, body, table.firsts[page + 1] - table.firsts[page], plain.optional, codec,
                            compute.int64_view(rows))
    except Undecodable as err:
        raise Unreadable(f"page {page} at {table.offsets[page]}: {err}") from None


def _copied_rows(fd: int, footer: PagedFooter, columns: list[_Chosen]) -> dict[str, pa.Array]:
    """The wanted rows of ``columns`` (whose chosen pages cover the same rows), their pages copied into one
    Parquet file of one row group, a chunk a column (its dictionary page where a copied page refers to it, then
    its wanted pages one after another: each page stands alone), decoded by pyarrow."""
    group = columns[0].group
    out = bytearray(b"PAR1")
    chunks: list[tuple[int, int, int, bool]] = []  # (leaf, where its chunk starts, where its pages start, dict)
    dictionaries: list[str] = []
    for column in columns:
        encoded = footer.dictionary_encoded(fd, group, column.leaf)
        prefix = _dictionary_page(fd, column.table, [encoded[page] for page in column.pages])
        chunk_at = len(out)
        out += prefix
        pages_at = len(out)
        offsets, sizes = column.table.offsets, column.table.sizes
        for run in _adjacent(column.pages):  # adjacent pages, read at once
            out += _read_exactly(fd, offsets[run[0]], offsets[run[-1]] + sizes[run[-1]] - offsets[run[0]])
        chunks.append((column.leaf, chunk_at, pages_at, bool(prefix)))
        # strings behind a dictionary page read as a dictionary: a page's 20k strings are not built to take a few
        if prefix and _chunk(footer, group, column.leaf)[2].type == BYTE_ARRAY:
            dictionaries.append(column.name)
    rows = columns[0].rows
    tail = encode(_copy_footer(footer, group, chunks, len(out), rows))
    out += tail + len(tail).to_bytes(4, "little") + b"PAR1"
    try:
        read = ParquetFile(pa.BufferReader(pa.py_buffer(out)), read_dictionary=dictionaries or None).read(
            use_threads=False)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise Unreadable(f"pyarrow cannot read the copied pages: {err}") from None
    if read.num_rows != rows or read.num_columns != len(columns):
        raise Unreadable("the copied pages hold another number of rows")
    found = {}
    for at, column in enumerate(columns):
        taken = compute.call("take", read.column(at), column.positions).combine_chunks()
        # (decoded by the kernel: DictionaryArray.dictionary_decode imports pyarrow.compute, a cold read's tenth)
        found[column.name] = compute.call("take", taken.dictionary, taken.indices) \
            if column.name in dictionaries else taken
    return found


def _adjacent(pages: list[int]) -> list[list[int]]:
    """Ascending page numbers in runs of adjacent ones."""
    runs: list[list[int]] = []
    for page in pages:
        if runs and runs[-1][-1] + 1 == page:
            runs[-1].append(page)
        else:
            runs.append([page])
    return runs


def _dictionary_page(fd: int, table: PageTable, dictionary_encoded: list[bool]) -> bytes:
    """The chunk's dictionary page where a wanted page is dictionary-encoded (else nothing). A writer whose
    dictionary grew too large goes on in PLAIN (parquet-mr and arrow-rs after 1 MiB of dictionary): those
    pages decode without the dictionary page, which would otherwise be decoded whole (128k values of a
    BIGINT) for each read of a few rows."""
    if table.dictionary is None or not any(dictionary_encoded):
        return b""
    return _read_exactly(fd, *table.dictionary)


def _copy_footer(footer: PagedFooter, group: int, chunks: list[tuple[int, int, int, bool]], end: int,
                 rows: int) -> FileMetaData:
    """The footer of a copy of some columns' pages: per (leaf, where its chunk starts, where its data pages
    start, whether a dictionary page starts it), the column's chunk, its schema element and column order as the
    file holds them; one row group of ``rows`` rows, its chunks ending at ``end``."""
    copied = []
    for (leaf, chunk_at, pages_at, with_dictionary), next_at in zip(
            chunks, [chunk_at for _, chunk_at, _, _ in chunks[1:]] + [end], strict=True):
        meta = _chunk(footer, group, leaf)[2]
        size = next_at - chunk_at
        copied.append(ColumnChunk(file_offset=chunk_at, meta_data=ColumnMetaData(
            type=meta.type, encodings=meta.encodings, path_in_schema=meta.path_in_schema, codec=meta.codec,
            num_values=rows, total_uncompressed_size=meta.total_uncompressed_size,  # (an upper bound)
            total_compressed_size=size, data_page_offset=pages_at,
            dictionary_page_offset=chunk_at if with_dictionary else None)))
    size = end - FIRST_PAGE_AT
    row_group = RowGroup(columns=copied, total_byte_size=size, num_rows=rows, file_offset=FIRST_PAGE_AT,
                         total_compressed_size=size)
    schema = footer.meta.schema
    orders = footer.meta.column_orders
    if orders is not None and len(orders) != len(footer.leaves):
        raise Unreadable("column orders not one for each column")
    leaves = [leaf for leaf, _, _, _ in chunks]
    return FileMetaData(version=footer.meta.version,
                        schema=[_replaced(schema[0], num_children=len(leaves)), *(schema[1 + leaf] for leaf in leaves)],
                        num_rows=rows, row_groups=[row_group],
                        created_by=footer.meta.created_by,  # (readers work around known writer bugs by it)
                        column_orders=None if orders is None else [orders[leaf] for leaf in leaves])


def _replaced(value: Any, **changes: Any) -> Any:
    """A copy of a generated Thrift struct with ``changes``."""
    return type(value)(**{**{name: getattr(value, name) for name in value.__slots__}, **changes})
