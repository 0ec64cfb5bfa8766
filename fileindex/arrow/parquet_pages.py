"""A few rows of a Parquet row group read page by page, through the column chunks' offset indexes.

pyarrow reads whole row groups: one row of a 1M-row group decodes a million values of every column.
Writers that keep page indexes (parquet-mr, and so Java Paimon; arrow-rs, and so pypaimon-rust) say
in each column chunk's offset index where every data page starts and which row it starts with. For
each column this module copies the pages holding a wanted row (after the chunk's dictionary page)
into a small Parquet file of that one column, one row group with a footer of its own, and lets
pyarrow decode that; the wanted rows are then taken from it. Where the rows lie on most of a chunk's
pages, the row group is read whole instead.

The footers are Thrift compact structures, read and written as generic trees (the field ids of
parquet.thrift, below) with Apache Thrift's compact protocol. Only flat schemas are handled, and
anything unexpected (no offset index, pages that do not start where the chunk says, a tree of an
unknown shape) answers None: the caller reads the row group as before.
"""
from __future__ import annotations

import os
import struct
import dataclasses
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from thrift.protocol.TCompactProtocol import TCompactProtocol
from thrift.Thrift import TException, TType
from thrift.transport.TTransport import TMemoryBuffer

# parquet.thrift field ids
FILE_VERSION, FILE_SCHEMA, FILE_NUM_ROWS, FILE_ROW_GROUPS, FILE_CREATED_BY, FILE_COLUMN_ORDERS = 1, 2, 3, 4, 6, 7
SCHEMA_NUM_CHILDREN = 5
GROUP_COLUMNS, GROUP_TOTAL_BYTE_SIZE, GROUP_NUM_ROWS, GROUP_FILE_OFFSET, GROUP_TOTAL_COMPRESSED_SIZE = 1, 2, 3, 5, 6
CHUNK_FILE_PATH, CHUNK_FILE_OFFSET, CHUNK_META_DATA = 1, 2, 3
CHUNK_OFFSET_INDEX_OFFSET, CHUNK_OFFSET_INDEX_LENGTH, CHUNK_CRYPTO_METADATA = 4, 5, 8
META_NUM_VALUES, META_TOTAL_COMPRESSED_SIZE, META_DATA_PAGE_OFFSET, META_DICTIONARY_PAGE_OFFSET = 5, 7, 9, 11
META_KEPT = (1, 2, 3, 4, 6)  # type, encodings, path_in_schema, codec, total_uncompressed_size (an upper bound)
PAGE_OFFSET, PAGE_COMPRESSED_SIZE, PAGE_FIRST_ROW = 1, 2, 3
HEADER_DATA_PAGE, HEADER_DATA_PAGE_V2 = 5, 8  # PageHeader's data_page_header, data_page_header_v2
DATA_PAGE_ENCODING, DATA_PAGE_V2_ENCODING = 2, 4
DICTIONARY_ENCODINGS = {2, 8}  # PLAIN_DICTIONARY, RLE_DICTIONARY
LOCATIONS = 1

# a column whose wanted pages hold more than this share of its bytes is read whole: the pages left out save
# too little decoding to pay for the copy (40 rows of a 1M-row group lie on about two thirds of its pages, and
# reading those alone took 0.046 s against 0.054 s for the whole group)
WHOLE_SHARE = 0.8
_LIMIT = 1 << 24  # strings and containers in a footer: a bound for a damaged one, far above real ones


class Unreadable(Exception):
    """The pages cannot be read this way (the caller reads the row group instead)."""


Tree = dict  # field id -> (thrift type, value); lists are (element type, [values])


def decode(data: bytes) -> Tree:
    protocol = TCompactProtocol(TMemoryBuffer(data), string_length_limit=_LIMIT, container_length_limit=_LIMIT)
    try:
        return _read_struct(protocol)
    except (TException, EOFError, AssertionError, RecursionError, struct.error, ValueError, KeyError, TypeError,
            IndexError, OverflowError) as err:  # (what the pure-Python protocol raises on damaged input)
        raise Unreadable(f"undecodable footer structure: {err}") from None


def encode(tree: Tree) -> bytes:
    buffer = TMemoryBuffer()
    _write_struct(TCompactProtocol(buffer), tree)
    return buffer.getvalue()


def _read_struct(protocol: TCompactProtocol) -> Tree:
    tree: Tree = {}
    protocol.readStructBegin()
    while True:
        _, kind, field = protocol.readFieldBegin()
        if kind == TType.STOP:
            break
        tree[field] = (kind, _read(protocol, kind))
        protocol.readFieldEnd()
    protocol.readStructEnd()
    return tree


def _read(protocol: TCompactProtocol, kind: int):
    if kind == TType.STRUCT:
        return _read_struct(protocol)
    if kind in (TType.LIST, TType.SET):
        element, size = protocol.readListBegin()
        items = [_read(protocol, element) for _ in range(size)]
        protocol.readListEnd()
        return element, items
    if kind == TType.MAP:
        key, value, size = protocol.readMapBegin()
        pairs = [(_read(protocol, key), _read(protocol, value)) for _ in range(size)]
        protocol.readMapEnd()
        return key, value, pairs
    reader = _SCALARS.get(kind)
    if reader is None:
        raise Unreadable(f"unknown thrift type {kind}")
    return getattr(protocol, reader)()


def _write_struct(protocol: TCompactProtocol, tree: Tree) -> None:
    protocol.writeStructBegin(None)
    for field in sorted(tree):
        kind, value = tree[field]
        protocol.writeFieldBegin(None, kind, field)
        _write(protocol, kind, value)
        protocol.writeFieldEnd()
    protocol.writeFieldStop()
    protocol.writeStructEnd()


def _write(protocol: TCompactProtocol, kind: int, value) -> None:
    if kind == TType.STRUCT:
        _write_struct(protocol, value)
    elif kind in (TType.LIST, TType.SET):
        element, items = value
        protocol.writeListBegin(element, len(items))
        for item in items:
            _write(protocol, element, item)
        protocol.writeListEnd()
    elif kind == TType.MAP:
        key, value_kind, pairs = value
        protocol.writeMapBegin(key, value_kind, len(pairs))
        for k, v in pairs:
            _write(protocol, key, k)
            _write(protocol, value_kind, v)
        protocol.writeMapEnd()
    else:
        getattr(protocol, "write" + _SCALARS[kind][4:])(value)


_SCALARS = {TType.BOOL: "readBool", TType.BYTE: "readByte", TType.I16: "readI16", TType.I32: "readI32",
            TType.I64: "readI64", TType.DOUBLE: "readDouble", TType.STRING: "readBinary"}


def _value(tree: Tree, field: int, default=None):
    found = tree.get(field)
    return default if found is None else found[1]


@dataclass(frozen=True)
class PagedFooter:
    """A Parquet footer as a tree, with what page reads need of it."""

    tree: Tree
    leaves: dict[str, int]  # a flat schema's column name -> its position among the leaves
    # (group, leaf) -> its pages' offsets, sizes and first rows (and the group's row count after them),
    # decoded from the offset index on first use
    _pages: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = dataclasses.field(default_factory=dict,
                                                                                      compare=False, repr=False)

    def pages(self, fd: int, group: int, leaf: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        found = self._pages.get((group, leaf))
        if found is None:
            found = self._pages[group, leaf] = _page_table(fd, self.row_groups[group], leaf)
        return found

    @property
    def row_groups(self) -> list[Tree]:
        return _value(self.tree, FILE_ROW_GROUPS, (TType.STRUCT, []))[1]

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
            tree = decode(os.pread(file.fileno(), length, size - 8 - length))
        schema = _value(tree, FILE_SCHEMA, (TType.STRUCT, []))[1]
        if not schema or any(SCHEMA_NUM_CHILDREN in element for element in schema[1:]):
            raise Unreadable("not a flat schema")
        return cls(tree, {_value(element, 4).decode("utf-8", "replace"): i for i, element in enumerate(schema[1:])})


def read_rows(path: str, footer: PagedFooter, group: int, rows: np.ndarray,
              columns: list[str]) -> dict[str, pa.Array | None]:
    """``rows`` (ascending positions within row group ``group``) of each of ``columns``, in the type pyarrow
    infers from the Parquet schema alone; None for a column where they lie on most of the pages (read it
    whole). Raises Unreadable when the pages cannot be read this way."""
    if not 0 <= group < len(footer.row_groups):
        raise Unreadable(f"no row group {group}")
    with open(path, "rb") as file:
        return {name: _column_rows(file.fileno(), footer, group, footer.leaves[name], rows) for name in columns}


def _chunk_meta(group: Tree, leaf: int) -> tuple[Tree, Tree]:
    chunk = _value(group, GROUP_COLUMNS)[1][leaf]
    meta = _value(chunk, CHUNK_META_DATA)
    if meta is None or CHUNK_CRYPTO_METADATA in chunk or _value(chunk, CHUNK_FILE_PATH) is not None:
        raise Unreadable("an encrypted or external column chunk")
    return chunk, meta


def _page_table(fd: int, group: Tree, leaf: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    chunk, meta = _chunk_meta(group, leaf)
    index_at, index_length = _value(chunk, CHUNK_OFFSET_INDEX_OFFSET), _value(chunk, CHUNK_OFFSET_INDEX_LENGTH)
    if index_at is None or not index_length:
        raise Unreadable("no offset index")
    locations = _value(decode(os.pread(fd, index_length, index_at)), LOCATIONS, (TType.STRUCT, []))[1]
    offsets = np.array([_value(p, PAGE_OFFSET, -1) for p in locations], dtype=np.int64)
    sizes = np.array([_value(p, PAGE_COMPRESSED_SIZE, -1) for p in locations], dtype=np.int64)
    firsts = np.array([_value(p, PAGE_FIRST_ROW) for p in locations] + [_value(group, GROUP_NUM_ROWS)],
                      dtype=np.int64)
    if not len(offsets) or offsets[0] != _value(meta, META_DATA_PAGE_OFFSET) or firsts[0] != 0 \
            or np.any(np.diff(firsts) <= 0) or np.any(sizes <= 0) or np.any(offsets[:-1] + sizes[:-1] != offsets[1:]):
        raise Unreadable("the offset index does not describe the chunk's pages back to back")
    return offsets, sizes, firsts


def _column_rows(fd: int, footer: PagedFooter, group: int, leaf: int, rows: np.ndarray) -> pa.Array | None:
    offsets, sizes, firsts = footer.pages(fd, group, leaf)
    pages = np.searchsorted(firsts, rows, side="right") - 1
    wanted = np.unique(pages)
    if int(sizes[wanted].sum()) > WHOLE_SHARE * int(sizes.sum()):
        return None
    _, meta = _chunk_meta(footer.row_groups[group], leaf)
    page_runs = np.split(wanted, np.flatnonzero(np.diff(wanted) != 1) + 1)  # adjacent pages, read at once
    runs = [os.pread(fd, int(offsets[run[-1]] + sizes[run[-1]] - offsets[run[0]]), int(offsets[run[0]]))
            for run in page_runs]
    data_at, dictionary_at = _value(meta, META_DATA_PAGE_OFFSET), _value(meta, META_DICTIONARY_PAGE_OFFSET)
    prefix = b""
    if dictionary_at and dictionary_at < data_at and _needs_dictionary(runs, page_runs, offsets, sizes):
        prefix = os.pread(fd, data_at - dictionary_at, dictionary_at)
    # one row group: the dictionary page where a copied page refers to it, then the wanted pages one after
    # another (each page stands alone)
    out = bytearray(b"PAR1")
    out += prefix
    pages_at = len(out)
    for run in runs:
        out += run
    counts = firsts[wanted + 1] - firsts[wanted]
    bases = np.concatenate(([0], np.cumsum(counts)[:-1]))  # where each wanted page's rows start in the copy
    positions = bases[np.searchsorted(wanted, pages)] + rows - firsts[pages]
    base = int(counts.sum())
    groups = [_span_group(meta, 4, 4 if prefix else None, pages_at, len(out) - 4, base)]
    schema = _value(footer.tree, FILE_SCHEMA)[1]
    root = {**schema[0], SCHEMA_NUM_CHILDREN: (TType.I32, 1)}
    tree: Tree = {FILE_VERSION: footer.tree[FILE_VERSION],
                  FILE_SCHEMA: (TType.LIST, (TType.STRUCT, [root, schema[1 + leaf]])),
                  FILE_NUM_ROWS: (TType.I64, base),
                  FILE_ROW_GROUPS: (TType.LIST, (TType.STRUCT, groups))}
    if FILE_CREATED_BY in footer.tree:  # readers work around known writer bugs by it
        tree[FILE_CREATED_BY] = footer.tree[FILE_CREATED_BY]
    orders = _value(footer.tree, FILE_COLUMN_ORDERS)
    if orders is not None:
        tree[FILE_COLUMN_ORDERS] = (TType.LIST, (orders[0], [orders[1][leaf]]))
    tail = encode(tree)
    out += tail + len(tail).to_bytes(4, "little") + b"PAR1"
    try:
        column = pq.ParquetFile(pa.BufferReader(bytes(out))).read(use_threads=False).column(0)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise Unreadable(f"pyarrow cannot read the copied pages: {err}") from None
    if len(column) != base:
        raise Unreadable("the copied pages hold another number of rows")
    return column.take(pa.array(positions)).combine_chunks()


def _needs_dictionary(runs: list[bytes], page_runs: list[np.ndarray], offsets: np.ndarray,
                      sizes: np.ndarray) -> bool:
    """Is any of the copied pages dictionary-encoded? A writer whose dictionary grew too large goes on in
    PLAIN (parquet-mr and arrow-rs after 1 MiB of dictionary): those pages decode without the dictionary
    page, which would otherwise be decoded whole (128k values of a BIGINT) for each read of a few rows."""
    for run, pages in zip(runs, page_runs, strict=True):
        for page in pages:
            start = int(offsets[page] - offsets[pages[0]])
            header = decode(run[start:start + int(sizes[page])])
            v1, v2 = _value(header, HEADER_DATA_PAGE), _value(header, HEADER_DATA_PAGE_V2)
            encoding = _value(v1, DATA_PAGE_ENCODING) if v1 is not None else \
                _value(v2, DATA_PAGE_V2_ENCODING) if v2 is not None else None
            if encoding is None or encoding in DICTIONARY_ENCODINGS:
                return True
    return False


def _span_group(meta: Tree, start: int, dictionary_at: int | None, pages_at: int, size: int,
                rows: int) -> Tree:
    """The row group of the copied pages (after a copy of the dictionary page)."""
    kept = {field: meta[field] for field in META_KEPT if field in meta}
    kept.update({META_NUM_VALUES: (TType.I64, rows), META_TOTAL_COMPRESSED_SIZE: (TType.I64, size),
                 META_DATA_PAGE_OFFSET: (TType.I64, pages_at)})
    if dictionary_at is not None:
        kept[META_DICTIONARY_PAGE_OFFSET] = (TType.I64, dictionary_at)
    column = {CHUNK_FILE_OFFSET: (TType.I64, start), CHUNK_META_DATA: (TType.STRUCT, kept)}
    return {GROUP_COLUMNS: (TType.LIST, (TType.STRUCT, [column])), GROUP_TOTAL_BYTE_SIZE: (TType.I64, size),
            GROUP_NUM_ROWS: (TType.I64, rows), GROUP_FILE_OFFSET: (TType.I64, start),
            GROUP_TOTAL_COMPRESSED_SIZE: (TType.I64, size)}
