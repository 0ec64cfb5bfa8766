"""The ``range-bitmap`` writer (spec §8), byte-identical to Java's: distinct values are sorted and
numbered (codes); a chunked dictionary maps values to codes and a bit-sliced index maps rows to codes.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fileindex import errors
from fileindex.arrow.values import split_nulls
from fileindex.indexes import roaring
from fileindex.indexes.bitmap.keys import KeyKind, string_codes
from fileindex.indexes.range_bitmap.keys import chunk_size, key_kind, sort_keys
from fileindex.types import DataType

@dataclass
class _Column:
    """Rows as packed arrays: no Python object per row (or per distinct fixed-width value)."""

    kind: KeyKind
    row_count: int
    valid_rows: np.ndarray  # uint32
    codes: np.ndarray  # uint32 code per valid row
    distinct: list | None  # string keys by code (sorted)
    fixed: np.ndarray | None  # int64 keys by code, fixed-width kinds

    @property
    def fixed_keys(self) -> np.ndarray:
        assert self.fixed is not None, "only a fixed-width kind's column holds int64 keys"
        return self.fixed

    @property
    def string_keys(self) -> list:
        assert self.distinct is not None, "only a string column holds a list of keys"
        return self.distinct

    @property
    def count(self) -> int:
        return len(self.fixed) if self.fixed is not None else len(self.string_keys)

    def key(self, code: int):
        return int(self.fixed[code]) if self.fixed is not None else self.string_keys[code]


def _encode_column(values, data_type: DataType, kind: KeyKind) -> _Column:
    if kind.name == "string":
        valid, codes, dictionary = string_codes(values, data_type)
        order = np.asarray(pc.sort_indices(dictionary), dtype=np.int64)  # unsigned bytewise, as Java compares
        rank = np.empty(len(order), dtype=np.uint32)
        rank[order] = np.arange(len(order), dtype=np.uint32)
        distinct = dictionary.take(pa.array(order)).to_pylist()
        return _Column(kind, len(valid), np.flatnonzero(valid).astype(np.uint32), rank[codes], distinct, None)
    valid, keys = split_nulls(values, data_type, canonical_nan=False)
    valid_rows = np.flatnonzero(valid).astype(np.uint32)
    row_count = len(valid)
    del valid
    comparable = sort_keys(kind, keys)
    order = np.argsort(comparable, kind="stable")
    ordered = comparable[order]
    del comparable
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1]))) if len(keys) else \
        np.empty(0, dtype=np.int64)
    del ordered
    fixed = keys[order[starts]]  # the first occurrence's raw bits, as Java's TreeMap keeps the first key
    run_codes = np.zeros(len(keys), dtype=np.uint32)
    run_codes[starts[1:]] = 1
    codes = np.empty(len(keys), dtype=np.uint32)
    codes[order] = np.cumsum(run_codes, dtype=np.uint32)
    return _Column(kind, row_count, valid_rows, codes, None, fixed)


def _chunks(column: _Column, limit: int) -> list[tuple[int, int]]:
    """(first code, end code) per chunk: a head, then keys while they fit in ``limit`` bytes."""
    count = column.count
    if column.kind.width is not None:
        per_chunk = 1 + limit // column.kind.width
        return [(start, min(start + per_chunk, count)) for start in range(0, count, per_chunk)]
    chunks, start, used_keys, used_offsets = [], 0, 0, 0
    distinct = column.string_keys
    for code in range(1, count):
        size = 4 + len(distinct[code])
        if size <= limit - used_keys and 4 <= limit - used_offsets:
            used_keys += size
            used_offsets += 4
            continue
        chunks.append((start, code))
        start, used_keys, used_offsets = code, 0, 0
    if count:
        chunks.append((start, count))
    return chunks


def _dictionary(column: _Column, limit: int) -> bytes:
    kind = column.kind
    headers, blobs, position = [], [], 0
    for start, end in _chunks(column, limit):
        size = end - start - 1
        if kind.width is not None:
            blob = column.fixed_keys[start + 1:end].astype(kind.dtype).tobytes()
            tail = struct.pack(">ii", len(blob), kind.width)
        else:
            keys = [struct.pack(">i", len(k)) + k for k in column.string_keys[start + 1:end]]
            offsets = _starts([len(k) for k in keys])
            key_bytes = b"".join(keys)
            blob = offsets.tobytes() + key_bytes
            tail = struct.pack(">ii", 4 * size, len(key_bytes))
        headers.append(b"\x01" + kind.encode(column.key(start)) + struct.pack(">iii", start, position, size)
                       + tail)
        blobs.append(blob)
        position += len(blob)
    header_offsets = _starts([len(h) for h in headers])
    chunk_headers = b"".join(headers)
    return (struct.pack(">ibiii", 13, 1, len(headers), 4 * len(headers), len(chunk_headers))
            + header_offsets.tobytes() + chunk_headers + b"".join(blobs))


def _starts(lengths: list[int]) -> np.ndarray:
    """Where each of consecutive pieces of these lengths starts: big-endian int32 offsets."""
    sizes = np.asarray(lengths, dtype=np.int64)
    return (np.cumsum(sizes) - sizes).astype(">i4")


def _bit_slices(column: _Column) -> bytes:
    count = column.count
    num_slices = 64 if count == 0 else max((count - 1).bit_length(), 1)
    ebm = roaring.serialize(roaring.bitmap_of(column.valid_rows))
    slices = roaring.serialized_bit_slices(column.valid_rows, column.codes, num_slices)
    lengths = [len(s) for s in slices]
    indexes = np.empty(num_slices, dtype=[("offset", ">i4"), ("length", ">i4")])
    indexes["offset"] = _starts(lengths)
    indexes["length"] = lengths
    header = struct.pack(">bBii", 1, num_slices, len(ebm), 8 * num_slices) + indexes.tobytes()
    return struct.pack(">i", len(header)) + header + ebm + b"".join(slices)


def check_writable(data_type: DataType, options: Mapping[str, str] | None = None) -> tuple[KeyKind, int]:
    """The key kind and chunk limit, once the type and options are ones Java's writer takes."""
    return key_kind(data_type), chunk_size(data_type, options)


def build(values, data_type: DataType, options: Mapping[str, str] | None = None) -> bytes:
    kind, limit = check_writable(data_type, options)
    column = _encode_column(values, data_type, kind)
    if limit < 0 and column.count:  # Java's chunk allocates ByteBuffer.allocate(limit) for its first key
        raise errors.UsageError(f"range-bitmap chunk-size of {limit} bytes (a Java int, wrapped): Java's writer "
                                "fails on it (IllegalArgumentException: negative capacity); use at most "
                                "2147483647 bytes")
    dictionary = _dictionary(column, limit)
    count = column.count
    header = struct.pack(">bii", 1, column.row_count, count)
    if count:
        header += kind.encode(column.key(0)) + kind.encode(column.key(count - 1))
    header += struct.pack(">i", len(dictionary))
    return struct.pack(">i", len(header)) + header + dictionary + _bit_slices(column)
