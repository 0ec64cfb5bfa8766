"""The ``bitmap`` index, versions 1 and 2 (spec §6): a byte-identical writer and a lazy reader.

Writer: the column is grouped by value with numpy (or Arrow's dictionary encoding for strings);
each value with two or more rows gets a Roaring bitmap, a value with one row r is stored as the
offset -1 - r. Bodies follow the iteration order of Java's ``HashMap`` (emulated from the
sequence of first occurrences, tree bins included); V2 index entries are sorted and packed into
blocks of at most ``index-block-size`` bytes.

Reader: opening reads nothing. The first query reads the header (V1: the whole dictionary, as
Java does; V2: the block directory), a lookup binary-searches the block and reads only that
index block, then only the bitmaps it needs; everything read is cached.
"""
from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyroaring import BitMap, FrozenBitMap

from . import errors, roaring
from .bitmap_keys import KeyKind, column_keys, key_kind, key_of
from .java_hashmap import compute_if_absent_order, compute_if_absent_order_fast
from .options import check_known, get_int, parse_memory_size
from .payload_cursor import PayloadCursor, PayloadOffsets
from .reader import FileIndexReader
from .result import REMAIN, FileIndexResult, Rows
from .types import DataType

INDEX_TYPE = "bitmap"
OPTIONS = ("version", "index-block-size")
DEFAULT_VERSION = 2
DEFAULT_BLOCK_SIZE = "16kb"
ROOT = "bitmap"
_INT = struct.Struct(">i")


@dataclass(frozen=True)
class BitmapOptions:
    version: int = DEFAULT_VERSION
    index_block_size: int = 16 * 1024

    @classmethod
    def parse(cls, options: Mapping[str, str] | None) -> "BitmapOptions":
        options = options or {}
        check_known(options, OPTIONS, INDEX_TYPE)
        version = get_int(options, "version", DEFAULT_VERSION)
        if version not in (1, 2):
            raise errors.UsageError(f"bitmap option version={options['version']!r}: use 1 or 2 (Java: invalid version)")
        size = parse_memory_size(options.get("index-block-size", DEFAULT_BLOCK_SIZE), option="index-block-size")
        return cls(version, size)


# ------------------------------------------------------------------------------------------ model

@dataclass
class BitmapLayout:
    """Everything a payload holds, in file order: what both encoders (numpy and Construct) write."""

    kind: KeyKind
    version: int
    row_count: int
    null_offset: int | None  # None: no null rows
    null_length: int
    keys: list  # distinct keys, indexed by code
    offsets: np.ndarray  # per code: body offset, or -1 - row for a single-row value
    lengths: np.ndarray  # per code: serialized length, or -1
    entry_order: np.ndarray  # V1: codes in HashMap order; V2: codes sorted by key
    blocks: list[tuple[int, int]] = field(default_factory=list)  # V2: (start, stop) into entry_order
    body: bytes = b""
    key_array: np.ndarray | None = None  # int64 keys by code, for fixed-width kinds


@dataclass
class _Groups:
    """The column grouped by value: code c is the c-th distinct key."""

    distinct: list  # keys by code
    key_array: np.ndarray | None  # int64 keys by code (fixed-width kinds)
    first: np.ndarray  # per code, its first position among the valid rows
    counts: np.ndarray  # rows per code
    starts: np.ndarray  # per code, where its rows start in ``rows``
    rows: np.ndarray  # row numbers grouped by code, ascending within a code
    valid_count: int


def _group(valid: np.ndarray, keys, kind: KeyKind) -> _Groups:
    valid_rows = np.flatnonzero(valid)
    if kind.name != "string":
        order = np.argsort(keys, kind="stable")  # groups equal keys; rows stay ascending inside
        sorted_keys = keys[order]
        starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1]))) if len(keys) else \
            np.empty(0, dtype=np.int64)
        counts = np.diff(np.append(starts, len(keys)))
        distinct = sorted_keys[starts]
        listed = [bool(k) for k in distinct.tolist()] if kind.name == "boolean" else distinct.tolist()
        return _Groups(listed, distinct, order[starts], counts, starts, valid_rows[order], len(keys))
    if isinstance(keys, pa.Array):
        encoded = pc.dictionary_encode(keys)
        codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        distinct = encoded.dictionary.to_pylist()
    else:
        index: dict[bytes, int] = {}
        codes = np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)
        distinct = list(index)
    sortable = codes.astype(np.uint16) if len(distinct) <= 65536 else codes  # 16-bit keys: radix sort
    order = np.argsort(sortable, kind="stable")
    counts = np.bincount(codes, minlength=len(distinct))
    starts = (np.cumsum(counts) - counts).astype(np.int64)
    return _Groups(distinct, None, order[starts], counts, starts, valid_rows[order], len(codes))


def _java_body_order(groups: _Groups, kind: KeyKind) -> list[int]:
    """Codes in the order Java's ``id2bitmap`` HashMap iterates (computeIfAbsent per non-null row)."""
    sequence = np.argsort(groups.first, kind="stable")  # codes by first occurrence
    trailing = groups.valid_count > 0 and groups.valid_count - 1 > int(groups.first.max())
    hashes = [kind.hash_code(k) for k in groups.distinct]
    fast = compute_if_absent_order_fast(np.asarray(hashes, dtype=np.int64)[sequence], trailing)
    if fast is not None:
        return sequence[fast].tolist()
    distinct = groups.distinct
    return compute_if_absent_order(sequence.tolist(), hashes.__getitem__,
                                   lambda a, b: kind.compare(distinct[a], distinct[b]), trailing_call=trailing)


def _serialized_bitmaps(groups: _Groups, codes: list[int]):
    """(code, serialized bitmap) for every code with two or more rows, in the given order."""
    rows = groups.rows.tolist()
    for code in codes:
        start, count = int(groups.starts[code]), int(groups.counts[code])
        if count > 1:
            yield code, roaring.serialize(BitMap(rows[start:start + count]))


def layout(values, data_type: DataType, options: Mapping[str, str] | None = None) -> BitmapLayout:
    """Lay out the payload Java's ``BitmapFileIndex.Writer`` would write for this column."""
    opts = BitmapOptions.parse(options)
    kind = key_kind(data_type)
    valid, keys = column_keys(values, data_type)
    groups = _group(valid, keys, kind)
    null_rows = np.flatnonzero(~valid)
    count = len(groups.distinct)
    java_order = _java_body_order(groups, kind)

    body = []
    position = 0
    null_offset, null_length = None, 0
    if len(null_rows) == 1:
        null_offset, null_length = -1 - int(null_rows[0]), roaring.serialized_size_of_single_row()
    elif len(null_rows) > 1:
        null_bytes = roaring.serialize(roaring.bitmap_of(null_rows))
        body.append(null_bytes)
        null_offset, null_length = 0, len(null_bytes)
        position = len(null_bytes)
    offsets = -1 - groups.rows[groups.starts].astype(np.int64)  # single-row values: -1 - row
    lengths = np.full(count, -1, dtype=np.int64)
    for code, data in _serialized_bitmaps(groups, java_order):
        body.append(data)
        offsets[code], lengths[code] = position, len(data)
        position += len(data)
    if position > 0x7FFFFFFF:
        raise errors.EncodeError(f"bitmap body of {position} bytes exceeds Java's int offsets")

    result = BitmapLayout(kind, opts.version, len(valid), null_offset, null_length, groups.distinct, offsets,
                          lengths, np.array(java_order, dtype=np.int64), body=b"".join(body),
                          key_array=groups.key_array)
    if opts.version == 2:
        result.entry_order = _sorted_codes(kind, groups.distinct, groups.key_array)
        result.blocks = _pack_blocks(kind, groups.distinct, result.entry_order, opts.index_block_size)
    return result


def _sorted_codes(kind: KeyKind, distinct: list, fixed_keys: np.ndarray | None) -> np.ndarray:
    if fixed_keys is not None:
        return np.argsort(kind.sort_keys(np.asarray(fixed_keys, dtype=np.int64)), kind="stable")
    return np.array(sorted(range(len(distinct)), key=distinct.__getitem__), dtype=np.int64)


def _pack_blocks(kind: KeyKind, distinct: list, order: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Java's packing: an entry joins the block if it still fits in ``limit`` bytes, else starts one."""
    if kind.width is not None:
        entry = 8 + kind.width
        if 4 + entry > limit and len(order):
            raise _index_fail(limit, entry)
        per_block = max((limit - 4) // entry, 1)
        return [(start, min(start + per_block, len(order))) for start in range(0, len(order), per_block)]
    blocks, start, used = [], 0, 4
    for position, code in enumerate(order.tolist()):
        size = 8 + 4 + len(distinct[code])
        if position > start and used + size <= limit:
            used += size
            continue
        if position > start:
            blocks.append((start, position))
            start, used = position, 4
        if used + size > limit:
            raise _index_fail(limit, size)
        used += size
    if len(order):
        blocks.append((start, len(order)))
    return blocks


def _index_fail(limit: int, entry: int) -> errors.UsageError:
    return errors.UsageError(
        f"a bitmap index entry of {entry} bytes does not fit an index block of {limit} bytes "
        "(Java fails with 'index fail'): raise index-block-size or index this column with bloom-filter"
    )


# --------------------------------------------------------------------------------------- encoding

def encode(lay: BitmapLayout) -> bytes:
    """The payload bytes (numpy records for fixed-width keys)."""
    kind = lay.kind
    out = [struct.pack(">biib", lay.version, lay.row_count, len(lay.keys), lay.null_offset is not None)]
    if lay.null_offset is not None:
        out.append(struct.pack(">i", lay.null_offset))
        if lay.version == 2:
            out.append(struct.pack(">i", lay.null_length))
    if lay.version == 1:
        out.append(_entries(lay, lay.entry_order, with_length=False))
    else:
        blocks = []
        for start, stop in lay.blocks:
            codes = lay.entry_order[start:stop]
            blocks.append(struct.pack(">i", len(codes)) + _entries(lay, codes, with_length=True))
        directory, position = [], 0
        for (start, _), block in zip(lay.blocks, blocks):
            directory.append(kind.encode(lay.keys[int(lay.entry_order[start])]) + struct.pack(">i", position))
            position += len(block)
        out += [struct.pack(">i", len(blocks)), *directory, struct.pack(">i", position), *blocks]
    out.append(lay.body)
    return b"".join(out)


def _entries(lay: BitmapLayout, codes: np.ndarray, *, with_length: bool) -> bytes:
    kind = lay.kind
    if kind.dtype is None:
        parts = []
        for code in codes.tolist():
            key = lay.keys[code]
            parts.append(struct.pack(">i", len(key)) + key)
            parts.append(struct.pack(">ii", lay.offsets[code], lay.lengths[code]) if with_length
                         else struct.pack(">i", lay.offsets[code]))
        return b"".join(parts)
    fields = [("key", kind.dtype), ("offset", ">i4")] + ([("length", ">i4")] if with_length else [])
    records = np.empty(len(codes), dtype=fields)
    records["key"] = lay.key_array[codes]
    records["offset"] = lay.offsets[codes]
    if with_length:
        records["length"] = lay.lengths[codes]
    return records.tobytes()


def encode_with_construct(lay: BitmapLayout) -> bytes:
    """The same payload built by the Construct schema (slower; the reference for ``encode``)."""
    from .specs.bitmap import bitmap as schema

    def key(code):
        value = lay.keys[code]
        return {"value": {"value": value} if lay.kind.name == "string" else int(value)}

    has_null = lay.null_offset is not None
    data = {"version": lay.version, "row_count": lay.row_count, "num_values": len(lay.keys),
            "has_null_byte": int(has_null), "ofs_null": lay.null_offset if has_null else None,
            "len_null_bitmap": lay.null_length if has_null and lay.version == 2 else None,
            "v1_entries": None, "block_dir": None, "len_index_blocks": None, "index_blocks": None,
            "body": lay.body}
    if lay.version == 1:
        data["v1_entries"] = [{"key": key(c), "ofs_bitmap": int(lay.offsets[c])} for c in lay.entry_order.tolist()]
    else:
        blocks = [{"entries": [{"key": key(c), "ofs_bitmap": int(lay.offsets[c]), "len_bitmap": int(lay.lengths[c])}
                               for c in lay.entry_order[start:stop].tolist()]} for start, stop in lay.blocks]
        sizes = [4 + sum(8 + lay.kind.encoded_size(lay.keys[c]) for c in lay.entry_order[s:e].tolist())
                 for s, e in lay.blocks]
        data["block_dir"] = [{"first_key": key(int(lay.entry_order[s])), "ofs_block": sum(sizes[:i])}
                             for i, (s, _) in enumerate(lay.blocks)]
        data["len_index_blocks"] = sum(sizes)
        data["index_blocks"] = {"blocks": blocks}
    return schema(lay.kind.name).build(data)


def build(values, data_type: DataType, options: Mapping[str, str] | None = None) -> bytes:
    return encode(layout(values, data_type, options))


# ----------------------------------------------------------------------------------------- reader

@dataclass
class _Dictionary:
    """Sorted keys (as comparator sort keys) → (offset, length); one per V1 file or V2 block."""

    sort_keys: object  # numpy int64 array (ascending) or a list of bytes (file order)
    keys: list
    offsets: np.ndarray
    lengths: np.ndarray
    positions: dict | None = None  # string keys: key -> position

    def find(self, sort_key) -> int:
        if self.positions is not None:
            return self.positions.get(sort_key, -1)
        i = int(np.searchsorted(self.sort_keys, sort_key))
        return i if i < len(self.sort_keys) and self.sort_keys[i] == sort_key else -1


class BitmapReader(FileIndexReader, PayloadOffsets):
    """Java's ``BitmapFileIndex.Reader``; ``extended=True`` also answers ranges from the dictionary."""

    def __init__(self, payload, data_type: DataType, *, base_offset: int = 0, extended: bool = False):
        self.kind = key_kind(data_type)
        self.data_type = data_type
        self.extended = extended
        self._view = memoryview(payload).cast("B")
        self._base = base_offset
        self._meta_read = False
        self._bitmaps: dict = {}
        self._blocks: dict[int, _Dictionary] = {}

    # -- metadata ---------------------------------------------------------------------------


    def _cursor(self, position: int = 0) -> PayloadCursor:
        return PayloadCursor(self._view, base=self._base, root=ROOT, position=position)

    def _read_meta(self) -> None:
        if self._meta_read:
            return
        cursor = self._cursor()
        self.version = cursor.u8("version")
        if self.version not in (1, 2):
            raise errors.UnsupportedVersionError(
                f"bitmap version {self.version} (this reader knows 1 and 2)", offset=self._base, field=f"{ROOT}/version")
        self.row_count = cursor.int(4, "row_count")
        if self.row_count < 0:
            raise errors.InvalidLengthError(f"negative row count {self.row_count}", offset=self._offset(1),
                                            field=f"{ROOT}/row_count")
        key_size = self.kind.width or 4
        self.num_values = cursor.count("num_values", key_size + 4 if self.version == 1 else 0)
        self.has_null = cursor.u8("has_null_byte") != 0
        self.null_offset = cursor.int(4, "ofs_null") if self.has_null else None
        self.null_length = cursor.int(4, "len_null_bitmap") if self.has_null and self.version == 2 else None
        if self.version == 1:
            self._v1 = self._read_entries(cursor, self.num_values, "v1_entries", with_length=False)
            self._body_start = cursor.position
            self._v1_lengths()
        else:
            num_blocks = cursor.count("num_blocks", key_size + 4)
            self._directory_offset = cursor.absolute()
            self._directory = self._read_directory(cursor, num_blocks)
            len_blocks = cursor.int(4, "len_index_blocks")
            self._blocks_start = cursor.position
            self._body_start = self._blocks_start + len_blocks
            if len_blocks < 0 or self._body_start > len(self._view):
                raise errors.InvalidLengthError(
                    f"index blocks of {len_blocks} bytes do not fit the payload", offset=cursor.absolute() - 4,
                    field=f"{ROOT}/len_index_blocks")
        self._meta_read = True

    def _read_keys(self, cursor: PayloadCursor, count: int, field: str, tail: int):
        """``count`` records of (key, ``tail`` bytes): keys and the raw tail ints."""
        kind = self.kind
        if kind.dtype is not None:
            fields = [("key", kind.dtype)] + [(f"i{j}", ">i4") for j in range(tail // 4)]
            records = cursor.records(np.dtype(fields), count, field)
            keys = records["key"].astype(np.int64)
            tails = [records[f"i{j}"].astype(np.int64) for j in range(tail // 4)]
            return keys, tails
        return self._read_string_keys(cursor, count, field, tail // 4)

    @staticmethod
    def _read_string_keys(cursor: PayloadCursor, count: int, field: str, ints: int):
        """(i32 length, UTF-8 bytes, ``ints`` × i32) records, read with one bounds check each."""
        uniform = BitmapReader._uniform_string_keys(cursor, count, field, ints)
        if uniform is not None:
            return uniform
        data, position, end = cursor.view, cursor.position, len(cursor.view)
        unpack_int = _INT.unpack_from
        unpack_tail = struct.Struct(f">{ints}i").unpack_from
        keys, tails = [], []
        for i in range(count):
            if position + 4 > end:
                cursor.position = position
                raise cursor.fail_truncated(f"{field}[{i}]/key/len_value", 4)
            (length,) = unpack_int(data, position)
            stop = position + 4 + length
            if length < 0 or stop + 4 * ints > end:
                cursor.position = position
                raise errors.InvalidLengthError(
                    f"string key of {length} bytes does not fit the {end - position - 4} bytes left",
                    offset=cursor.absolute(), field=f"{cursor.root}/{field}[{i}]/key/len_value")
            keys.append(bytes(data[position + 4:stop]))
            tails.append(unpack_tail(data, stop))
            position = stop + 4 * ints
        cursor.position = position
        columns = np.array(tails, dtype=np.int64).reshape(count, ints)
        return keys, [columns[:, j] for j in range(ints)]

    @staticmethod
    def _uniform_string_keys(cursor: PayloadCursor, count: int, field: str, ints: int):
        """When every key has the first key's length (IDs, codes, hashes), read all records with numpy."""
        view, position = cursor.view, cursor.position
        if count == 0 or position + 4 > len(view):
            return None
        (length,) = _INT.unpack_from(view, position)
        stride = 4 + length + 4 * ints
        if length < 0 or position + count * stride > len(view):
            return None
        dtype = np.dtype([("length", ">i4"), ("key", f"V{length}")] +
                         [(f"i{j}", ">i4") for j in range(ints)])
        records = np.frombuffer(view, dtype=dtype, count=count, offset=position)
        if (records["length"] != length).any():
            return None
        cursor.position = position + count * stride
        keys = [b""] * count
        if length:  # slice raw bytes: numpy's S dtype would strip trailing NULs
            raw = np.frombuffer(view, dtype=np.uint8, count=count * stride, offset=position).reshape(count, stride)
            block = raw[:, 4:4 + length].tobytes()
            keys = [block[i * length:(i + 1) * length] for i in range(count)]
        return keys, [records[f"i{j}"].astype(np.int64) for j in range(ints)]

    def _dictionary(self, keys, offsets, lengths) -> _Dictionary:
        if isinstance(keys, np.ndarray):
            sort_keys = self.kind.sort_keys(keys)
            order = np.argsort(sort_keys, kind="stable")
            listed = keys[order].tolist()
            if self.kind.name == "boolean":
                listed = [bool(k) for k in listed]
            return _Dictionary(sort_keys[order], listed, offsets[order], lengths[order])
        # string keys: no sorting needed, lookups go through a hash of the keys (robust to any order)
        return _Dictionary(keys, keys, offsets, lengths, dict(zip(keys, range(len(keys)))))

    def _read_entries(self, cursor, count, field, *, with_length):
        keys, tails = self._read_keys(cursor, count, field, 8 if with_length else 4)
        offsets = tails[0]
        lengths = tails[1] if with_length else np.full(len(offsets), -1, dtype=np.int64)
        return keys, offsets, lengths

    def _v1_lengths(self) -> None:
        """V1 stores no lengths: a bitmap runs to the next non-negative offset in file order."""
        keys, offsets, _ = self._v1
        body_length = len(self._view) - self._body_start
        null_first = self.null_offset is not None and self.null_offset >= 0
        chain = np.concatenate(([self.null_offset] if null_first else [], offsets[offsets >= 0])).astype(np.int64)
        chain_lengths = np.diff(np.append(chain, body_length))
        lengths = np.full(len(offsets), -1, dtype=np.int64)
        lengths[offsets >= 0] = chain_lengths[1:] if null_first else chain_lengths
        self.null_length = int(chain_lengths[0]) if null_first else None
        self._v1_dictionary = self._dictionary(keys, offsets, lengths)

    def _read_directory(self, cursor: PayloadCursor, count: int) -> _Dictionary:
        keys, tails = self._read_keys(cursor, count, "block_dir", 4)
        ofs = tails[0]
        sort_keys = self.kind.sort_keys(keys) if isinstance(keys, np.ndarray) else keys
        return _Dictionary(sort_keys, list(keys), ofs, np.full(len(ofs), -1, dtype=np.int64))

    def _block(self, index: int) -> _Dictionary:
        if index not in self._blocks:
            start = self._blocks_start + int(self._directory.offsets[index])
            if not self._blocks_start <= start < self._body_start:
                raise errors.InvalidOffsetError(
                    f"index block {index} at payload offset {start} is outside the index blocks",
                    offset=self._directory_offset, field=f"{ROOT}/block_dir[{index}]/ofs_block")
            cursor = self._cursor(start)
            count = cursor.count(f"index_blocks/blocks[{index}]/num_entries", (self.kind.width or 4) + 8)
            keys, offsets, lengths = self._read_entries(
                cursor, count, f"index_blocks/blocks[{index}]/entries", with_length=True)
            self._blocks[index] = self._dictionary(keys, offsets, lengths)
        return self._blocks[index]

    def validate(self) -> None:
        """Decode everything: the header, every index block and every bitmap (``fileindex check``)."""
        self._read_meta()
        if self.has_null:
            self._rows_of(None)
        dictionaries = [self._v1_dictionary] if self.version == 1 else \
            [self._block(i) for i in range(len(self._directory.keys))]
        for dictionary in dictionaries:
            for offset, length, key in zip(dictionary.offsets.tolist(), dictionary.lengths.tolist(), dictionary.keys):
                self._bitmap_at(offset, length, repr(key))

    # -- lookups ----------------------------------------------------------------------------

    def _locate(self, key) -> tuple[int, int] | None:
        """(offset, length) of a non-null key's bitmap, or None when absent."""
        sort_key = self.kind.sort_key(key)
        if self.version == 1:
            found = self._v1_dictionary
        else:
            directory = self._directory.sort_keys
            if isinstance(directory, np.ndarray):
                block = int(np.searchsorted(directory, sort_key, side="right")) - 1
            else:
                block = bisect.bisect_right(directory, sort_key) - 1
            if block < 0:
                return None
            found = self._block(block)
        i = found.find(sort_key)
        return None if i < 0 else (int(found.offsets[i]), int(found.lengths[i]))

    def _bitmap_at(self, offset: int, length: int, what: str) -> FrozenBitMap:
        if offset < 0:
            return FrozenBitMap([-1 - offset])
        start = self._body_start + offset
        end = len(self._view) if length < 0 else start + length
        if start > len(self._view) or end > len(self._view) or end < start:
            raise errors.InvalidOffsetError(
                f"bitmap of {what} at body offset {offset} (length {length}) lies outside the payload",
                offset=self._offset(start), field=f"{ROOT}/body")
        return roaring.deserialize(self._view[start:end], offset=self._offset(start), field=f"{ROOT}/body")

    def _rows_of(self, literal) -> FrozenBitMap:
        cache_key = ("null",) if literal is None else ("key", key_of(literal, self.data_type))
        if cache_key not in self._bitmaps:
            if literal is None:
                located = (self.null_offset, self.null_length if self.null_length is not None else -1) \
                    if self.has_null else None
            else:
                located = self._locate(cache_key[1])
            self._bitmaps[cache_key] = FrozenBitMap() if located is None else \
                self._bitmap_at(*located, what="null rows" if literal is None else repr(literal))
        return self._bitmaps[cache_key]

    def _in(self, literals: Sequence) -> FrozenBitMap:
        self._read_meta()
        if len(literals) == 1:
            return self._rows_of(literals[0])
        return FrozenBitMap.union(FrozenBitMap(), *(self._rows_of(literal) for literal in literals))

    def _values_unsupported(self) -> bool:
        """Current Java answers REMAIN to value predicates on TIMESTAMP(p > 6) (apache/paimon #9654)."""
        return self.data_type.is_timestamp and self.data_type.precision > 6

    # -- visitor ----------------------------------------------------------------------------

    def visit_equal(self, literal) -> FileIndexResult:
        return self.visit_in([literal])

    def visit_not_equal(self, literal) -> FileIndexResult:
        return self.visit_not_in([literal])

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        if self._values_unsupported():
            return REMAIN
        return Rows(self._in(literals))

    def visit_not_in(self, literals: Sequence) -> FileIndexResult:
        if self._values_unsupported():
            return REMAIN
        rows = self._in(literals)
        return Rows(roaring.complement(rows, self.row_count))

    def visit_is_null(self) -> FileIndexResult:
        return Rows(self._in([None]))

    def visit_is_not_null(self) -> FileIndexResult:
        rows = self._in([None])
        return Rows(roaring.complement(rows, self.row_count))

    # -- beyond Java: ranges from the sorted dictionary (opt-in) ------------------------------

    def visit_less_than(self, literal) -> FileIndexResult:
        return self._range(None, literal, False, False)

    def visit_less_or_equal(self, literal) -> FileIndexResult:
        return self._range(None, literal, False, True)

    def visit_greater_than(self, literal) -> FileIndexResult:
        return self._range(literal, None, False, False)

    def visit_greater_or_equal(self, literal) -> FileIndexResult:
        return self._range(literal, None, True, False)

    def visit_between(self, low, high) -> FileIndexResult:
        return self._range(low, high, True, True)

    def _range(self, low, high, low_inclusive: bool, high_inclusive: bool) -> FileIndexResult:
        if not self.extended or self._values_unsupported() or (low is None and high is None):
            return REMAIN
        self._read_meta()
        lo = None if low is None else self.kind.sort_key(key_of(low, self.data_type))
        hi = None if high is None else self.kind.sort_key(key_of(high, self.data_type))
        union = BitMap()
        for dictionary in self._dictionaries_between(lo, hi):
            for i, sort_key in enumerate(_as_list(dictionary.sort_keys)):
                if lo is not None and (sort_key < lo or (sort_key == lo and not low_inclusive)):
                    continue
                if hi is not None and (sort_key > hi or (sort_key == hi and not high_inclusive)):
                    continue
                union |= self._bitmap_at(int(dictionary.offsets[i]), int(dictionary.lengths[i]),
                                         repr(dictionary.keys[i]))
        return Rows(union)

    def _dictionaries_between(self, lo, hi):
        if self.version == 1:
            yield self._v1_dictionary
            return
        firsts = _as_list(self._directory.sort_keys)
        for index in range(len(firsts)):
            next_first = firsts[index + 1] if index + 1 < len(firsts) else None
            if hi is not None and firsts[index] > hi:
                break
            if lo is not None and next_first is not None and next_first < lo:
                continue
            yield self._block(index)


def _as_list(keys) -> list:
    return keys.tolist() if isinstance(keys, np.ndarray) else keys
