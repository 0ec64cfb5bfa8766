"""The ``bitmap`` index, versions 1 and 2 (spec §6): a byte-identical writer and a lazy reader.

Writer: the column is grouped by value with numpy (or Arrow's dictionary encoding for strings);
each value with two or more rows gets a Roaring bitmap, a value with one row r is stored as the
offset -1 - r. Bodies follow the iteration order of Java's ``HashMap`` (emulated from the
sequence of first occurrences, tree bins included); V2 index entries are sorted and packed into
blocks of at most ``index-block-size`` bytes.

The reader is :class:`~fileindex.indexes.bitmap.reader.BitmapReader`.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from fileindex import errors, kernels
from fileindex.arrow.values import split_nulls
from fileindex.indexes import roaring
from fileindex.indexes.bitmap import INDEX_TYPE, OPTIONS
from fileindex.indexes.bitmap.keys import KeyKind, arrow_string_codes, key_kind, string_codes
from fileindex.indexes.options import check_known, get_int, parse_memory_size
from fileindex.java.hash import binary_string_hash_codes
from fileindex.java.hashmap import compute_if_absent_order, compute_if_absent_order_fast
from fileindex.java.string_buffers import binary_buffers
from fileindex.lazy import LazyModule
from fileindex.types import DataType

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = LazyModule("pyarrow.compute")  # (as keys.py: loaded by the first Arrow string column)

DEFAULT_VERSION = 2
DEFAULT_BLOCK_SIZE = "16kb"


@dataclass(frozen=True)
class BitmapOptions:
    version: int = DEFAULT_VERSION
    index_block_size: int = 16 * 1024

    @classmethod
    def parse(cls, options: Mapping[str, str] | None) -> BitmapOptions:
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
    hashes: np.ndarray  # Java hashCode of each key, by code
    key_array: np.ndarray | None  # int64 keys by code (fixed-width kinds)
    first: np.ndarray  # per code, its first valid row (or its first position among the valid rows)
    counts: np.ndarray  # rows per code
    starts: np.ndarray  # per code, where its rows start in ``rows``
    rows: np.ndarray  # uint32 row numbers grouped by code (in any order within a code: a bitmap sorts them)
    end: int  # one past the last valid row, counted as ``first`` counts (positions among the valid rows, or rows)


def _group_fixed(valid: np.ndarray, keys: np.ndarray, kind: KeyKind) -> _Groups:
    """``first`` and ``end`` count rows (as the string paths' do)."""
    row_numbers = np.flatnonzero(valid)
    if kind.width is not None and kind.width <= 4 and len(valid) < 1 << 31:
        # key << 32 | row, sorted in place: a plain sort is several times faster than argsort, and gives each
        # key's rows ascending, its first row first (no gather of the rows, no reduction for the first)
        packed = (keys << 32) | row_numbers
        packed.sort()
        sorted_keys, rows = packed >> 32, (packed & 0xFFFFFFFF).astype(np.uint32)
        starts = _group_starts(sorted_keys)
        first = rows[starts].astype(np.int64)
    else:
        order = np.argsort(keys)  # groups equal keys; unstable is several times faster and enough
        sorted_keys = keys[order]
        rows = row_numbers.astype(np.uint32)[order]
        starts = _group_starts(sorted_keys)
        first = np.minimum.reduceat(rows, starts).astype(np.int64) if len(keys) else starts
    counts = np.diff(np.append(starts, len(keys)))
    distinct = sorted_keys[starts]
    listed = [bool(k) for k in distinct.tolist()] if kind.name == "boolean" else distinct.tolist()
    end = int(row_numbers[-1]) + 1 if len(row_numbers) else 0
    return _Groups(listed, kind.hash_codes(distinct), distinct, first, counts, starts, rows, end)


def _group_starts(sorted_keys: np.ndarray) -> np.ndarray:
    if not len(sorted_keys):
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))


def _group_string_array(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, _Groups]:
    """(valid mask, groups) of an Arrow string column: Arrow's stable sort of the codes (a counting sort
    for a dictionary of few keys) gives the rows of each code, ascending, and the nulls' last (its default); ``first``
    counts rows."""
    indices, dictionary = arrow_string_codes(values)
    nulls = indices.null_count
    valid = np.asarray(indices.is_valid(), dtype=bool) if nulls else np.ones(len(indices), dtype=bool)
    valid_count = len(indices) - nulls
    rows, counts = _rows_by_code(indices, len(dictionary), valid_count)
    starts = (np.cumsum(counts) - counts).astype(np.int64)
    first = rows[starts].astype(np.int64)
    end = int(rows.max()) + 1 if valid_count else 0
    hashes = binary_string_hash_codes(*binary_buffers(dictionary))
    return valid, _Groups(dictionary.to_pylist(), hashes, None, first, counts, starts, rows, end)


def _rows_by_code(indices: pa.Array, count: int, valid_count: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of each code, code by code and ascending within each (uint32), and how many each code has. The
    compiled kernel counts and places them in two passes; Arrow's stable sort of the codes takes 3-4 times as long."""
    if kernels.compiled:
        rows, counts = np.empty(valid_count, dtype=np.uint32), np.empty(count, dtype=np.int64)
        codes = indices.fill_null(-1) if indices.null_count else indices
        kernels.compiled.group_rows(codes.cast(pa.int32()).to_numpy(), rows, counts)
        return rows, counts
    rows = pc.sort_indices(indices).to_numpy()[:valid_count].astype(np.uint32)  # nulls last
    counts = np.bincount((indices.fill_null(0) if indices.null_count else indices).to_numpy(), minlength=1)
    counts[0] -= len(indices) - valid_count  # the nulls filled in as code 0 (with nulls only, no code: it goes)
    return rows, counts[:count]


def _group_strings(valid: np.ndarray, codes: np.ndarray, dictionary: pa.Array) -> _Groups:
    count = len(dictionary)
    sortable = codes.astype(np.uint16) if count <= 65536 else codes  # 16-bit keys: radix sort
    order = np.argsort(sortable, kind="stable")
    counts = np.bincount(codes, minlength=count)
    starts = (np.cumsum(counts) - counts).astype(np.int64)
    rows = np.flatnonzero(valid).astype(np.uint32)[order]
    hashes = binary_string_hash_codes(*binary_buffers(dictionary))
    return _Groups(dictionary.to_pylist(), hashes, None, order[starts], counts, starts, rows, len(codes))


def _java_body_order(kind: KeyKind, distinct: list, hashes: np.ndarray, first: np.ndarray,
                     end: int) -> np.ndarray:
    """Codes in the order Java's ``id2bitmap`` HashMap iterates (computeIfAbsent per non-null row), from
    each code's key, Java hashCode and first valid row (any increasing numbering of the valid rows: their
    positions among them, or row numbers), ``end`` one past the last valid row so numbered."""
    sequence = np.argsort(first)  # codes by first occurrence (no two codes share a first row: unstable is enough)
    trailing = len(first) > 0 and end - 1 > int(first.max())
    fast = compute_if_absent_order_fast(hashes[sequence], trailing)
    if fast is not None:
        return sequence[fast]
    order = compute_if_absent_order(sequence.tolist(), hashes.tolist().__getitem__,
                                    lambda a, b: kind.compare(distinct[a], distinct[b]), trailing_call=trailing)
    return np.array(order, dtype=np.int64)


def check_writable(data_type: DataType, options: Mapping[str, str] | None = None) -> tuple[BitmapOptions, KeyKind]:
    """The options and the key kind, once the type and options are ones Java's writer takes."""
    return BitmapOptions.parse(options), key_kind(data_type)


def layout(values, data_type: DataType, options: Mapping[str, str] | None = None) -> BitmapLayout:
    """Lay out the payload Java's ``BitmapFileIndex.Writer`` would write for this column."""
    opts, kind = check_writable(data_type, options)
    if kind.name == "string" and isinstance(values, (pa.Array, pa.ChunkedArray)):
        valid, groups = _group_string_array(values)
    elif kind.name == "string":
        valid, codes, dictionary = string_codes(values, data_type)
        groups = _group_strings(valid, codes, dictionary)
    else:
        valid, keys = split_nulls(values, data_type)
        groups = _group_fixed(valid, keys, kind)
    null_rows = np.flatnonzero(~valid)
    count = len(groups.distinct)
    java_order = _java_body_order(kind, groups.distinct, groups.hashes, groups.first, groups.end)

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
    stored = java_order[groups.counts[java_order] > 1]
    bitmaps, sizes = roaring.serialize_groups(groups.rows, groups.starts[stored], groups.counts[stored])
    lengths[stored] = sizes
    offsets[stored] = position + np.cumsum(sizes) - sizes
    position += len(bitmaps)
    body.append(bitmaps)
    if position > 0x7FFFFFFF:
        raise errors.EncodeError(f"bitmap body of {position} bytes exceeds Java's int offsets")

    result = BitmapLayout(kind, opts.version, len(valid), null_offset, null_length, groups.distinct, offsets,
                          lengths, java_order, body=b"".join(body),
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
        for (start, _), block in zip(lay.blocks, blocks, strict=True):
            directory.append(kind.encode(lay.keys[int(lay.entry_order[start])]) + struct.pack(">i", position))
            position += len(block)
        out += [struct.pack(">i", len(blocks)), *directory, struct.pack(">i", position), *blocks]
    out.append(lay.body)
    return b"".join(out)


def _entries(lay: BitmapLayout, codes: np.ndarray, *, with_length: bool) -> bytes:
    kind = lay.kind
    if kind.dtype is None:
        return _string_entries([lay.keys[code] for code in codes.tolist()],
                               [lay.offsets[codes], *([lay.lengths[codes]] if with_length else [])])
    assert lay.key_array is not None, "layout() keeps the keys of a fixed-width kind in key_array"
    fields = [("key", kind.dtype), ("offset", ">i4")] + ([("length", ">i4")] if with_length else [])
    records = np.empty(len(codes), dtype=fields)
    records["key"] = lay.key_array[codes]
    records["offset"] = lay.offsets[codes]
    if with_length:
        records["length"] = lay.lengths[codes]
    return records.tobytes()


def _string_entries(keys: list[bytes], fields: list[np.ndarray]) -> bytes:
    """Entries of string keys, each its length, its bytes and then ``fields`` (int32 each), all big-endian:
    laid out with numpy (a ``struct.pack`` an entry took a tenth of a 1M-row build of 1000 keys)."""
    sizes = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    widths = 4 + sizes + 4 * len(fields)
    starts = np.cumsum(widths) - widths
    out = np.empty(int(widths.sum()), dtype=np.uint8)
    key_starts = starts + 4
    _put_int32(out, starts, sizes)
    for number, values in enumerate(fields):
        _put_int32(out, key_starts + sizes + 4 * number, values)
    if len(keys):
        into = np.repeat(key_starts - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
        out[into] = np.frombuffer(b"".join(keys), dtype=np.uint8)
    return out.tobytes()


def _put_int32(out: np.ndarray, at: np.ndarray, values: np.ndarray) -> None:
    """Each value as a big-endian int32 at its (unaligned) position of ``out``."""
    out[at[:, None] + np.arange(4)] = np.asarray(values, dtype=">i4").view(np.uint8).reshape(-1, 4)


def encode_with_construct(lay: BitmapLayout) -> bytes:
    """The same payload built by the Construct schema (slower; the reference for ``encode``)."""
    from fileindex.specs.bitmap import bitmap as schema

    def key(code):
        value = lay.keys[code]
        return {"value": {"value": value} if lay.kind.name == "string" else int(value)}

    has_null = lay.null_offset is not None
    header = {"version": lay.version, "row_count": lay.row_count, "num_values": len(lay.keys),
              "has_null_byte": int(has_null), "ofs_null": lay.null_offset if has_null else None,
              "len_null_bitmap": lay.null_length if has_null and lay.version == 2 else None}
    data: dict[str, object] = {"header": header, "v1_entries": None, "block_dir": None, "index_blocks_header": None,
            "index_blocks": None, "body": lay.body}
    if lay.version == 1:
        data["v1_entries"] = [{"key": key(c), "ofs_bitmap": int(lay.offsets[c])} for c in lay.entry_order.tolist()]
    else:
        def entry(c):
            return {"key": key(c), "ofs_bitmap": int(lay.offsets[c]), "len_bitmap": int(lay.lengths[c])}

        blocks = [{"header": {}, "entries": [entry(c) for c in lay.entry_order[start:stop].tolist()]}
                  for start, stop in lay.blocks]
        sizes = [4 + sum(8 + lay.kind.encoded_size(lay.keys[c]) for c in lay.entry_order[s:e].tolist())
                 for s, e in lay.blocks]
        data["block_dir"] = [{"first_key": key(int(lay.entry_order[s])), "ofs_block": sum(sizes[:i])}
                             for i, (s, _) in enumerate(lay.blocks)]
        data["index_blocks_header"] = {"len_index_blocks": sum(sizes)}
        data["index_blocks"] = {"blocks": blocks}
    return schema(lay.kind.name).build(data)


def build(values, data_type: DataType, options: Mapping[str, str] | None = None) -> bytes:
    return encode(layout(values, data_type, options))
