"""The compiled loops (csrc/, built at install): reach them through ``fileindex.kernels.compiled``.

Buffers are contiguous (numpy arrays, bytes, bytearray, memoryview); outputs (``out``, ``bits`` being
added to) are writable. int64 rows are little-endian. Sizes and preconditions are checked: a
mismatch raises ValueError, a read-only output or a value of the wrong kind TypeError.
"""
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fileindex.kernels import BufferLike

T = TypeVar("T")

def wang_mix(keys: BufferLike, out: BufferLike) -> None:
    """FastHash (Thomas Wang's mix) of int64 keys into out (int64, as many)."""

def wang_mix_one(key: int) -> int:
    """FastHash of one signed 64-bit key."""

def xxh64_offsets(data: BufferLike, offsets: BufferLike, width: int, out: BufferLike) -> None:
    """XXH64 (seed 0) of data[offsets[i]:offsets[i+1]] into out[i]: an Arrow string/binary array
    with offsets of ``width`` (4 or 8) bytes."""

def bloom_add_hashes(bits: BufferLike, hashes: BufferLike, num_bits: int, k: int) -> None:
    """BloomFilter64.addHash of each int64 hash into the serialized bit set ``bits``."""

def bloom_add_longs(bits: BufferLike, keys: BufferLike, num_bits: int, k: int) -> None:
    """FastHash of each int64 key and addHash, in one pass."""

def bloom_add_strings(bits: BufferLike, data: BufferLike, offsets: BufferLike, width: int, num_bits: int,
                      k: int) -> None:
    """XXH64 of each value of an Arrow string/binary array and addHash, in one pass."""

def bloom_test_hashes(bits: BufferLike, hashes: BufferLike, num_bits: int, k: int, out: BufferLike) -> None:
    """out[i] = 1 where all k bits of the i-th int64 hash are set, else 0 (out: one byte a hash)."""

def bloom_test_hash(bits: BufferLike, num_bits: int, k: int, hash: int) -> bool:
    """Whether all k bits of one hash are set."""

def roaring_bit_slices(rows: BufferLike, values: BufferLike, width: int, first_bit: int,
                       num_bits: int) -> list[bytes]:
    """Per bit b in [first_bit, first_bit + num_bits), the portable Roaring bitmap (as Java writes it after
    runOptimize) of the uint32 rows whose value (unsigned, ``width`` 4 or 8 bytes, one per row) has bit b set."""

def roaring_serialize(rows: BufferLike, starts: BufferLike, counts: BufferLike, sizes: BufferLike) -> bytes:
    """The portable Roaring bitmaps (as Java writes them after runOptimize) of the uint32
    ``rows[starts[g]:starts[g] + counts[g]]`` of each group g (int64 starts and counts; rows in any order,
    repeats counted once), concatenated; the length of each goes to ``sizes`` (int64)."""

def roaring_size(data: BufferLike, start: int) -> int:
    """Bytes of the portable Roaring bitmap at ``start``, or -1 where it does not frame."""

def roaring_cookies(data: BufferLike, start: int, offsets: BufferLike) -> bool:
    """Whether ``data[start + offset:]`` starts with a Roaring cookie (of either kind: a look at 2 bytes, not a
    parse) for each native int64 offset; False for a negative offset or one without 4 bytes after it."""

def roaring_bitmaps(data: BufferLike, spans: Sequence[tuple[int, int]],
                    deserialize: Callable[[bytes], T]) -> list[T] | None:
    """``deserialize`` of the bytes of the portable Roaring bitmap at ``data[start:end]`` of each span (a
    read-only memoryview, valid during the call); None where one does not frame, holds a row of 2^31 or more, or
    where ``deserialize`` raises an Exception."""

def packed_locate(entries: BufferLike, samples: BufferLike, step: int, keys: Sequence[int]) -> list[int | None]:
    """For each key, the signed offset held by its entry among the sorted int64 ``entries`` (``key << 32 |
    unsigned offset``, a bitmap V1 dictionary of 4-byte keys), or None where none holds it. ``samples`` is
    ``entries[::step]``: searched first, it keeps a lookup to a few pages of a large dictionary."""

def packed_rows(entries: BufferLike, samples: BufferLike, step: int, keys: Sequence[int], data: BufferLike, body: int,
                limit: int, lengths: BufferLike = ...) -> list[bytes | int | None]:
    """``packed_locate`` and the bitmap each found entry names, in one call: for each key None where no entry
    holds it, else the rows (native uint32, ascending) of the bitmap at ``data[body + offset:]`` (with
    ``lengths``, a V2 block's native int32 per entry: ``data[body + offset:body + offset + length]``; a negative
    offset: the one row ``-1 - offset``), or the offset itself where that bitmap is not one ``roaring_rows``
    decodes, does not fit, or holds more than ``limit`` rows (the caller decodes it the slow way, which raises
    the placed error)."""

def group_rows(codes: BufferLike, rows: BufferLike, counts: BufferLike) -> None:
    """The rows of each int32 code (a negative code: a null row, in no group), code by code and ascending within
    each, into ``rows`` (uint32, one a grouped row), and how many each code has into ``counts`` (int64, one a
    code)."""

def rows_union(parts: Sequence[bytes]) -> bytes:
    """The rows of all the parts (each bytes of native uint32 rows, in any order), ascending, each once."""

def roaring_rows(data: BufferLike, spans: Sequence[tuple[int, int]], limit: int) -> bytes | None:
    """The rows (native uint32) of the portable Roaring bitmaps at ``data[start:end]`` of each span, each
    bitmap's ascending, concatenated; None where one is not a bitmap CRoaring's checks accept with every row
    below 2^31, or they hold more than ``limit`` rows."""

def hybrid_take(data: BufferLike, width: int, positions: BufferLike, out: BufferLike) -> int:
    """The values (uint32, into ``out``) at the ascending int64 ``positions`` of Parquet's RLE / bit-packed hybrid
    runs in ``data`` (what follows a dictionary-encoded page's bit-width byte; ``width`` 0 to 32), read up to the run
    holding the last position: returns the bytes read, or ``-1 - at`` where the run at byte ``at`` does not fit in
    ``data`` (``at == len(data)``: the runs end before a position)."""

def column_table(data: BufferLike, start: int, end: int, after: int, position_bytes: int, names: dict[bytes, str],
                 decode: Callable[[bytes, int, str, int, int], str], entry_type: type[tuple], record_type: type[tuple],
                 table: str) -> tuple[tuple, int] | None:
    """The container's column table at ``start`` (an s4 column count; per column a u2-prefixed name, an
    s4 index count, and per index a u2-prefixed type and its body's start and length, ``position_bytes``
    // 2 bytes each), read within ``data[start:end]``: (records, where the columns end), each record
    ``record_type((name, (entry_type((name, index_type, start, length, entry offset, table, column,
    position)), ...), record offset))``; None where a count is negative, a field runs past ``end`` or fewer
    than ``after`` bytes follow the columns (what the reader reads next).
    Names come from ``names`` (raw bytes to str), else from ``decode(raw, offset, table, column,
    position)`` (position -1 for the column's name), called only once the whole table is known to read."""

class ByteStream:
    """KaitaiStream's reading methods over one contiguous buffer. A failed read calls the subclass's
    ``_fail_eof(requested, available)``; a negative length or position ``_fail_argument(message)``."""

    def __init__(self, buffer: BufferLike, /) -> None: ...
    def read_u1(self) -> int: ...
    def read_s1(self) -> int: ...
    def read_u2be(self) -> int: ...
    def read_s2be(self) -> int: ...
    def read_u4be(self) -> int: ...
    def read_s4be(self) -> int: ...
    def read_u8be(self) -> int: ...
    def read_s8be(self) -> int: ...
    def read_u2le(self) -> int: ...
    def read_s2le(self) -> int: ...
    def read_u4le(self) -> int: ...
    def read_s4le(self) -> int: ...
    def read_u8le(self) -> int: ...
    def read_s8le(self) -> int: ...
    def read_bytes(self, n: int, /) -> bytes: ...
    def read_bytes_full(self) -> bytes: ...
    def seek(self, n: int, /) -> None: ...
    def pos(self) -> int: ...
    def size(self) -> int: ...
    def is_eof(self) -> bool: ...
    def align_to_byte(self) -> None: ...
    def close(self) -> None: ...

class BloomProbe:
    """One bloom filter's per-literal probe (``bits`` as bloom_test_hash takes them, held until the probe
    is collected). It hashes an exact int in [low, high] (FastHash) and, where ``strings``, a str without
    lone surrogates (XXH64 of its UTF-8); ``visit`` answers ``present`` or ``absent``, and hands any other
    literal to ``fallback``; ``test`` returns None for it."""

    def __init__(self, bits: BufferLike, num_bits: int, k: int, low: int, high: int, strings: bool, present: object,
                 absent: object, fallback: Callable[[object], object]) -> None: ...
    def test(self, literal: object, /) -> bool | None: ...
    def visit(self, literal: object, /) -> object: ...
    @staticmethod
    def visit_method(owner: type[BloomProbe], /) -> Callable[[Any, object], object]: ...
