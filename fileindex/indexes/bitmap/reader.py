"""The lazy reader of the ``bitmap`` index, versions 1 and 2 (spec §6): Java's ``BitmapFileIndex.Reader``.

Opening reads nothing. The first query reads the header with the reader generated from
specs/bitmap.ksy (its ``header`` type), then from where it ends V1's whole dictionary (as Java
does) or V2's block directory, decoded in bulk; a lookup binary-searches the block, reads only that
index block, then only the bitmaps it needs. Everything read is cached, bitmaps by key. A string
key whose encoding occurs nowhere after the header is absent: answered without decoding the
dictionary or the block directory (most files of a plan do not hold the key looked up).

A lookup is a handful of Python operations (Java answers a warm one in 2-4 µs): the key comes
from a fast path for plain ints and strs, fixed-width dictionaries stay numpy arrays (V1 keeps no
lengths: a Roaring bitmap is self-delimiting, as Java reads it), and nothing is formatted unless
it fails.
"""
from __future__ import annotations

import bisect
import functools
import operator
import struct
from collections.abc import Callable, Iterator, Sequence

from pyroaring import BitMap, FrozenBitMap

from fileindex import errors, kernels
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.decoding.cursor import PayloadCursor, PayloadOffsets
from fileindex.generated.fast import bitmap as fast
from fileindex.indexes import roaring
from fileindex.indexes.bitmap.keys import KeyKind, key_kind, key_of
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import REMAIN, FileIndexResult, Rows
from fileindex.java_numbers import int32
from fileindex.lazy import LazyFunction, numpy as np
from fileindex.types import DataType
from fileindex.values import NUMERIC_BITS


_DEBUG = LazyFunction("fileindex.generated.bitmap", "Bitmap")  # the debug reader: places a failure

ROOT = "bitmap"
_BODY = f"{ROOT}/body"
_VALIDATIONS = {  # the spec's header checks (generated code reports them by spec path)
    "/types/header/seq/0": errors.UnsupportedVersionError,
    "/types/header/seq/1": errors.InvalidLengthError,
    "/types/header/seq/2": errors.InvalidLengthError,
    "/types/header/seq/6": errors.InvalidLengthError,
    "/types/index_blocks_header/seq/0": errors.InvalidLengthError,
    "/types/index_block_header/seq/0": errors.InvalidLengthError,
}
_INT = struct.Struct(">i")
_EMPTY = FrozenBitMap()
_NO_ROWS = Rows(_EMPTY)
_LISTED_ROWS = 4096  # up to this many rows (an array container's), a bitmap the kernel decodes stays a row list
_COOKIES = (roaring.NO_RUN_COOKIE, roaring.RUN_COOKIE)
_INTEGER_KEY_BITS = {**NUMERIC_BITS, "DATE": 32, "TIME": 32}  # types whose key is the int literal itself


class _SortedDictionary:
    """Fixed-width keys: sorted comparator keys, binary-searched (one V1 dictionary or V2 block)."""

    __slots__ = ("sort_keys", "offsets", "lengths", "kind")

    def __init__(self, sort_keys: np.ndarray, offsets: np.ndarray, lengths: np.ndarray | None, kind: KeyKind):
        order = np.argsort(sort_keys)
        self.sort_keys, self.offsets, self.kind = sort_keys[order], offsets[order], kind
        self.lengths = None if lengths is None else lengths[order]

    def locate(self, sort_key) -> tuple[int, int] | None:
        i = int(self.sort_keys.searchsorted(sort_key))
        if i < len(self.sort_keys) and self.sort_keys.item(i) == sort_key:
            return self.offsets.item(i), -1 if self.lengths is None else self.lengths.item(i)
        return None

    def locate_many(self, sort_keys: list) -> list[tuple[int, int] | None]:
        """``locate`` of each key, with one vectorized search."""
        if not len(self.sort_keys):
            return [None] * len(sort_keys)
        wanted = np.array(sort_keys, dtype=self.sort_keys.dtype)
        at = np.minimum(self.sort_keys.searchsorted(wanted), len(self.sort_keys) - 1)
        found = (self.sort_keys[at] == wanted).tolist()
        offsets = self.offsets[at].tolist()
        lengths = [-1] * len(wanted) if self.lengths is None else self.lengths[at].tolist()
        return [(offsets[j], lengths[j]) if hit else None for j, hit in enumerate(found)]

    def entries(self) -> Iterator[tuple[object, object, tuple[int, int]]]:
        """(sort key, key, (offset, length)) of every entry."""
        keys = self.kind.sort_keys(self.sort_keys)  # the float transform is its own inverse
        return zip(self.sort_keys.tolist(), keys.tolist(), _locations(self.offsets, self.lengths), strict=True)


class _ListedDictionary:
    """Fixed-width keys of a small dictionary or V2 block (at most ``_SMALL_DICTIONARY``), read without numpy:
    sorted comparator keys in a list, binary-searched (importing numpy would cost a cold read more than all of
    its lookups)."""

    __slots__ = ("sort_keys", "locations", "kind")

    def __init__(self, sort_keys: list, offsets: list[int], lengths: list[int] | None, kind: KeyKind):
        ordered = sorted(zip(sort_keys, _locations(offsets, lengths), strict=True), key=operator.itemgetter(0))
        self.sort_keys = [sort_key for sort_key, _ in ordered]
        self.locations = [location for _, location in ordered]
        self.kind = kind

    def locate(self, sort_key) -> tuple[int, int] | None:
        i = bisect.bisect_left(self.sort_keys, sort_key)
        return self.locations[i] if i < len(self.sort_keys) and self.sort_keys[i] == sort_key else None

    def locate_many(self, sort_keys: list) -> list[tuple[int, int] | None]:
        return [self.locate(sort_key) for sort_key in sort_keys]

    def entries(self) -> Iterator[tuple[object, object, tuple[int, int]]]:
        keys = [self.kind.sort_key(sort_key) for sort_key in self.sort_keys]  # (the float transform is its own inverse)
        return zip(self.sort_keys, keys, self.locations, strict=True)


class _PackedDictionary:
    """A V1 dictionary, or a V2 index block, of 4-byte keys (INT, DATE, TIME, FLOAT), sorted as Java wrote it.

    Each V1 8-byte entry (big-endian key, offset) read as one big-endian int64 is ``key << 32 | unsigned
    offset``: sorting those orders by key, and nothing else is allocated. A 100k-entry dictionary stays under a
    megabyte, which keeps the CPU caches warm for the lookups that follow. A V2 entry's key and offset are packed
    the same way, its bitmap's length kept beside (``lengths``, in the entries' order).
    """

    __slots__ = ("packed", "kind", "samples", "lengths")
    STEP = 64  # entries a sample stands for: one 512-byte block searched after the samples

    def __init__(self, records: np.ndarray, kind: KeyKind, lengths: np.ndarray | None = None):
        packed = records.astype(np.int64)
        if kind.floating:  # Float.compare order: FLOAT.compare_order on the top half
            packed ^= (packed >> 63) & (kind.floating.magnitude << 32)
        if lengths is None:
            packed.sort()
        else:
            lengths = lengths.astype(np.int32)
            if len(packed) > 1 and not (packed[1:] >= packed[:-1]).all():  # Java writes a block sorted
                order = np.argsort(packed, kind="stable")
                packed, lengths = packed[order], lengths[order]
        self.packed, self.kind, self.lengths = packed, kind, lengths
        self.samples = packed[::self.STEP].copy()  # for the compiled kernel's two-step search

    @classmethod
    def of_block(cls, records: np.ndarray, kind: KeyKind) -> _PackedDictionary:
        """A V2 index block's (key, offset, length) records (big-endian int32 each)."""
        keyed = (records["key"].astype(np.int64) << 32) | records["i0"].astype(np.int64) & 0xFFFFFFFF
        return cls(keyed, kind, records["i1"])

    def locate(self, sort_key) -> tuple[int, int] | None:
        if kernels.compiled and self.lengths is None:
            return self.locate_many([sort_key])[0]
        i = int(self.packed.searchsorted(sort_key << 32))
        return self._location(i, sort_key) if i < len(self.packed) else None

    def locate_many(self, sort_keys: list) -> list[tuple[int, int] | None]:
        """``locate`` of each key: one binary search each in the compiled kernel (a warm lookup is a few
        microseconds, and a numpy call's fixed cost would be most of it), else one vectorized search."""
        packed = self.packed
        if kernels.compiled and self.lengths is None:
            return [None if offset is None else (offset, -1)
                    for offset in kernels.compiled.packed_locate(packed, self.samples, self.STEP, sort_keys)]
        if not len(packed):
            return [None] * len(sort_keys)
        at = np.minimum(packed.searchsorted(np.array(sort_keys, dtype=np.int64) << 32), len(packed) - 1).tolist()
        return [self._location(i, sort_key) for i, sort_key in zip(at, sort_keys, strict=True)]

    def _location(self, i: int, sort_key) -> tuple[int, int] | None:
        """The (offset, length) location in entry ``i`` if it holds ``sort_key`` (V1: length -1)."""
        entry = self.packed.item(i)
        if entry >> 32 != sort_key:
            return None
        return int32(entry), -1 if self.lengths is None else self.lengths.item(i)  # the offset: the low half

    def listed_rows(self, sort_keys: list, data: memoryview, body: int) -> list[bytes | int | None]:
        """For each key, None where it is absent, else its bitmap's rows (bytes; see ``Rows.listed``) or its
        offset where the kernel leaves the bitmap to pyroaring (located, framed and decoded in one kernel call)."""
        assert kernels.compiled is not None
        if self.lengths is None:
            return kernels.compiled.packed_rows(self.packed, self.samples, self.STEP, sort_keys, data, body,
                                                _LISTED_ROWS)
        return kernels.compiled.packed_rows(self.packed, self.samples, self.STEP, sort_keys, data, body,
                                            _LISTED_ROWS, self.lengths)

    def entries(self) -> Iterator[tuple[object, object, tuple[int, int]]]:
        sort_keys = self.packed >> 32
        offsets = (self.packed & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
        return zip(sort_keys.tolist(), self.kind.sort_keys(sort_keys).tolist(), _locations(offsets, self.lengths),
                   strict=True)


class _HashedDictionary:
    """String keys: a dict, whatever order the file lists them in."""

    __slots__ = ("lookup",)

    def __init__(self, keys: list, offsets: np.ndarray, lengths: np.ndarray | None):
        self.lookup = dict(zip(keys, _locations(offsets, lengths), strict=True))

    def locate(self, sort_key) -> tuple[int, int] | None:
        return self.lookup.get(sort_key)

    def locate_many(self, sort_keys: list) -> list[tuple[int, int] | None]:
        return [self.lookup.get(sort_key) for sort_key in sort_keys]

    def entries(self) -> Iterator[tuple[object, object, tuple[int, int]]]:
        return ((key, key, location) for key, location in self.lookup.items())


class _ScannedDictionary:
    """String keys of one length (IDs, codes, hashes) kept as one numpy array, as read.

    The first lookups search the keys' bytes end to end (``bytes.rfind``, kept to key boundaries: about 3 µs a
    key in 1000 keys of 14 bytes): a cold query reads one block for one key, an IN list a few, and building the
    dict costs as much as some 20 searches (200 µs for those 1000 keys), so the dict is built only once
    ``_SEARCHES`` keys have been searched. As with the dict, the last of repeated keys wins."""

    __slots__ = ("keys", "offsets", "lengths", "searches_left", "packed", "hashed")
    _SEARCHES = 16

    def __init__(self, keys: np.ndarray, offsets: np.ndarray, lengths: np.ndarray | None):
        self.keys, self.offsets, self.lengths = keys, offsets, lengths
        self.searches_left = self._SEARCHES
        self.packed: bytes | None = None
        self.hashed: _HashedDictionary | None = None

    def locate(self, sort_key) -> tuple[int, int] | None:
        return self.locate_many([sort_key])[0]

    def locate_many(self, sort_keys: list) -> list[tuple[int, int] | None]:
        if self.hashed is None and len(sort_keys) <= self.searches_left:
            self.searches_left -= len(sort_keys)
            return [self._search(sort_key) for sort_key in sort_keys]
        return self._dictionary().locate_many(sort_keys)

    def _search(self, sort_key: bytes) -> tuple[int, int] | None:
        """The location of the last key equal to ``sort_key``: its last occurrence in the packed keys that starts
        a key (an occurrence may straddle two keys)."""
        width = self.keys.dtype.itemsize
        if len(sort_key) != width:
            return None  # no key ends in NUL, so numpy's NUL padding cannot make a shorter one match
        if self.packed is None:
            self.packed = self.keys.tobytes()
        end = len(self.packed)
        while (at := self.packed.rfind(sort_key, 0, end)) >= 0:
            if at % width == 0:
                j = at // width
                return self.offsets.item(j), -1 if self.lengths is None else self.lengths.item(j)
            end = at + width - 1  # the next candidate starts before this one
        return None

    def _dictionary(self) -> _HashedDictionary:
        if self.hashed is None:
            self.hashed = _HashedDictionary(self.keys.tolist(), self.offsets, self.lengths)
            self.packed = None
        return self.hashed

    def entries(self) -> Iterator[tuple[object, object, tuple[int, int]]]:
        return self._dictionary().entries()


def _locations(offsets: np.ndarray | list, lengths: np.ndarray | list | None):
    """(offset, length) pairs; no lengths (V1): -1, read to the end (Roaring is self-delimiting)."""
    return zip(as_list(offsets), [-1] * len(offsets) if lengths is None else as_list(lengths), strict=True)


def _stored(offsets: np.ndarray | list[int], more: tuple[int, ...] = ()) -> np.ndarray | list[int]:
    """The offsets of stored bitmaps among ``offsets`` and ``more`` (a negative one is an inline row): a list
    where the dictionary's offsets are one (a small one, read without numpy), else an int64 array."""
    if isinstance(offsets, list):
        return [at for at in [*offsets, *more] if at >= 0]
    stored = np.append(np.asarray(offsets, dtype=np.int64), more) if more else np.asarray(offsets, dtype=np.int64)
    return stored[stored >= 0]


def _bounds(stored: np.ndarray | list[int]) -> tuple[int, int]:
    """(largest, smallest) of non-empty ``stored`` offsets; (-1, -1) when empty."""
    if not len(stored):
        return -1, -1
    if isinstance(stored, list):
        return max(stored), min(stored)
    return int(stored.max()), int(stored.min())


def _repeats(stored: np.ndarray | list[int]) -> bool:
    """Whether an offset occurs twice. Java writes V1 offsets rising, which one pass tells; else by sorting (not
    ``np.unique``: numpy 2's hashing takes 200 ms on 100k offsets, most of a cold lookup)."""
    if isinstance(stored, list):
        return len(set(stored)) != len(stored)
    if (stored[1:] > stored[:-1]).all():
        return False
    ordered = np.sort(stored)
    return bool((ordered[1:] == ordered[:-1]).any())


def as_list(column: np.ndarray | list) -> list:
    """An int column as a list (a small string dictionary's columns are read as lists)."""
    return column if isinstance(column, list) else column.tolist()


class BitmapReader(FileIndexReader, PayloadOffsets):
    """Java's ``BitmapFileIndex.Reader``; ``extended=True`` also answers ranges from the dictionary."""

    _root = ROOT

    def __init__(self, payload, data_type: DataType, *, base_offset: int = 0, extended: bool = False,
                 fetch: Callable[[Sequence[tuple[int, int]]], None] | None = None):
        """``fetch``: the payload is a buffer filled by parts (a large body on a store, ``PartialBody``), and
        ``fetch([(start, end), ...])`` fills those spans; each is asked for before it is looked at."""
        self.kind = key_kind(data_type)
        self._fetch = fetch
        self._sort_key = self.kind.sort_key
        self.data_type = data_type
        self.extended = extended
        self._view = memoryview(payload).cast("B")
        self._size = len(self._view)
        self._held = 0 if fetch is not None else self._size  # the payload's first bytes present
        self._base = base_offset
        self._meta_read = False
        self._packed = False
        self._header_end: int | None = None
        self._rows: dict[object, Rows] = {}  # the rows of each key looked up
        self._null_rows: Rows | None = None  # IS NULL's answer, once read
        self._blocks: dict = {}
        self._values_remain = data_type.is_nano_timestamp
        bits = _INTEGER_KEY_BITS.get(data_type.root)
        self._int_range = None if bits is None else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)

    def _key(self, literal):
        """``key_of(literal)``, with a shortcut for the common plain int and str literals."""
        if type(literal) is int and self._int_range is not None:
            low, high = self._int_range
            if low <= literal <= high:
                return literal
        elif type(literal) is str and self.kind.name == "string":
            return literal.encode("utf-8", "surrogatepass")
        return key_of(literal, self.data_type)

    # -- metadata ---------------------------------------------------------------------------


    def _read_header(self) -> int:
        """The header through the generated reader; returns where it ends."""
        header = kaitai_bridge.parse_fast(fast.Bitmap.Header, self._debug_spec(), self._view,
                                          root=ROOT, validations=_VALIDATIONS, base=self._base)
        self.version, self.row_count, self.num_values = header.version, header.row_count, header.num_values
        self.has_null = header.has_null
        self.null_offset = header.ofs_null if self.has_null else None
        self.null_length = header.len_null_bitmap if self.has_null and self.version == 2 else None
        self._num_blocks = header.num_blocks if self.version == 2 else 0
        self._header_end = header._io.pos()
        return self._header_end

    def _read_meta(self) -> None:
        """The header; the records after it decoded in bulk from where it ends (a payload filled by parts: from
        its first bytes, more of them where those were too few; V1's whole, whose bitmaps its checks read)."""
        if self._fetch is None:
            return self._read_meta_present()
        held = min(self._size, _FIRST_PART)
        while True:
            self._fetch([(0, held)])
            self._held, self._header_end = held, None
            try:
                self._read_header()
                if self.version == 1:  # (its checks look at every bitmap's first bytes: fetched whole)
                    self._held = held = self._size
                    self._fetch([(0, held)])
                return self._read_meta_present()
            except (errors.DecodeError, _TooFew):  # (decoded from bytes not fetched yet: fetch more)
                if held == self._size:
                    raise
            held = min(self._size, 2 * held)

    def _read_meta_present(self) -> None:
        cursor = self._cursor(self._header_end if self._header_end is not None else self._read_header())
        if self.version == 1:
            if self.kind.width == 4 and self.num_values > _SMALL_DICTIONARY:
                records = cursor.records(np.dtype(">i8"), self.num_values, "v1_entries")
                offsets = (records & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
                self._v1_dictionary = _PackedDictionary(records, self.kind)
            else:
                keys, (offsets,) = self._read_keys(cursor, self.num_values, "v1_entries", 1, scanned=True)
                self._v1_dictionary = self._dictionary(keys, offsets, None)  # Roaring is self-delimiting
            self._body_start = cursor.position
            self._check_v1_offsets(offsets, cursor.absolute())
        else:
            self._directory_offset = cursor.absolute()
            self._read_directory(cursor, self._num_blocks)
            blocks_header = self._read_part(fast.Bitmap.IndexBlocksHeader, (0, self._size), cursor.position,
                                            "index_blocks_header")
            self._blocks_start = cursor.position + 4
            self._body_start = self._blocks_start + blocks_header.len_index_blocks  # the spec checks it fits
            if self._blocks_start > self._held:  # (filled by parts: the directory ran past the bytes fetched)
                raise _TooFew()
            self._check_directory()
        # (offset, length) of a key's bitmap by its sort key, or None when absent
        self._locate = self._v1_dictionary.locate if self.version == 1 else self._locate_in_blocks
        # lookups decode rows in one kernel call: a V1 dictionary, or V2 blocks, of more than a few 4-byte keys
        self._packed = kernels.compiled is not None and self._fetch is None and (
            isinstance(self._v1_dictionary, _PackedDictionary) if self.version == 1
            else self.kind.width == 4 and self.num_values > _SMALL_DICTIONARY)
        self._meta_read = True

    def _debug_spec(self):
        return functools.partial(_DEBUG, self.kind.code)

    def _read_part(self, fast_type, part: tuple[int, int], position: int, field: str):
        """A header type of the spec read by its generated reader at ``position`` of the payload's
        ``part`` (the index blocks for a block header, whose checks count from their start)."""
        return kaitai_bridge.parse_fast_in(fast_type, self._debug_spec(), self._view, part=part, position=position,
                                           root=ROOT, validations=_VALIDATIONS, field=f"{ROOT}/{field}",
                                           base=self._base)

    def _check_v1_offsets(self, offsets: np.ndarray, body_at: int) -> None:
        """The stored bitmaps (negative offsets are inline single rows) tile the bitmaps region as Java writes
        them: each at its own offset, the first at 0, none past the end. A dictionary read with the wrong key
        width (a BIGINT index read as INT) rarely passes; one that passes by chance would answer wrongly."""
        region = self._size - self._body_start
        stored = _stored(offsets, () if self.null_offset is None else (self.null_offset,))
        high, low = _bounds(stored)
        problem = None
        if len(stored) and high >= region:
            problem = f"a bitmap offset {high} points past the {region} bytes of bitmaps"
        elif region and (not len(stored) or low != 0):
            problem = f"the {region} bytes of bitmaps do not start with a bitmap an entry names"
        elif _repeats(stored):
            problem = "two entries name the same stored bitmap"
        elif len(stored) and not self._roaring_at(stored):
            problem = "an entry names bytes that do not start a Roaring bitmap"
        if problem:
            raise errors.InvalidOffsetError(f"{problem} (Java writes each bitmap once, back to back)",
                                            offset=body_at, field=f"{ROOT}/v1_entries")

    def _roaring_at(self, offsets: np.ndarray | list[int]) -> bool:
        """Whether each of these bitmaps-region offsets starts with a Roaring cookie (a cheap look, not a parse)."""
        if isinstance(offsets, list):  # a small dictionary's, read without numpy
            view, start, size = self._view, self._body_start, self._size
            return all(start + at + 4 <= size and (view[start + at] | view[start + at + 1] << 8) in _COOKIES
                       for at in offsets)
        if kernels.compiled is not None:  # (the numpy below: a dozen calls, a quarter of a cold V2 lookup)
            return kernels.compiled.roaring_cookies(self._view, self._body_start, offsets)
        region = np.frombuffer(self._view, dtype=np.uint8)[self._body_start:]
        at = offsets[offsets + 4 <= len(region)]
        if len(at) != len(offsets):
            return False
        cookies = region[at].astype(np.uint16) | (region[at + 1].astype(np.uint16) << 8)
        # the two cookies differ in the low bit only (np.isin costs a V2 block read 4x more)
        return bool(((cookies | 1) == roaring.RUN_COOKIE).all())

    def _read_keys(self, cursor: PayloadCursor, count: int, field: str, ints: int, *, scanned: bool = False):
        """``count`` records of (key, ``ints`` × i32): the keys and the int columns. String keys come
        as a list, or with ``scanned`` as one numpy ``S`` array when they all have one length (for a
        :class:`_ScannedDictionary`)."""
        kind = self.kind
        if kind.dtype is not None and count <= _SMALL_DICTIONARY:
            return _read_fixed_keys(cursor, count, field, ints, kind)
        if kind.dtype is not None:
            fields = [("key", kind.dtype)] + [(f"i{j}", ">i4") for j in range(ints)]
            records = cursor.records(np.dtype(fields), count, field)
            # int64 keys: searchsorted with a Python int would copy a narrower array on every lookup
            return records["key"].astype(np.int64), [records[f"i{j}"].astype(np.int32) for j in range(ints)]
        return _read_string_keys(cursor, count, field, ints, scanned)

    def _dictionary(self, keys, offsets, lengths):
        """The dictionary of these keys' bitmaps (a small one's columns come as lists, a larger one's as arrays)."""
        if self.kind.dtype is not None and isinstance(keys, list):
            return _ListedDictionary([self._sort_key(key) for key in keys], offsets, lengths, self.kind)
        if self.kind.dtype is not None:
            return _SortedDictionary(self.kind.sort_keys(keys), offsets, lengths, self.kind)
        if not isinstance(keys, list):
            return _ScannedDictionary(keys, offsets, lengths)
        return _HashedDictionary(keys, offsets, lengths)

    def _read_directory(self, cursor: PayloadCursor, count: int) -> None:
        keys, (offsets,) = self._read_keys(cursor, count, "block_dir", 1)
        self._directory_keys = [self._sort_key(key) for key in keys] if isinstance(keys, list) else \
            self.kind.sort_keys(keys)
        self._directory_offsets = as_list(offsets)

    def _block(self, index: int):
        block = self._blocks.get(index)
        if block is None:
            start = self._blocks_start + self._directory_offsets[index]
            if not self._blocks_start <= start < self._body_start:
                raise errors.InvalidOffsetError(
                    f"index block {index} at payload offset {start} is outside the index blocks",
                    offset=self._directory_offset, field=f"{ROOT}/block_dir[{index}]/ofs_block")
            if self._fetch is not None:
                following = self._directory_offsets[index + 1:index + 2]
                self._fetch([(start, self._blocks_start + following[0] if following else self._body_start)])
            field = f"index_blocks/blocks[{index}]"
            block_header = self._read_part(fast.Bitmap.IndexBlockHeader, (self._blocks_start, self._body_start),
                                           start - self._blocks_start, f"{field}/header")
            cursor = self._cursor(start + 4)
            if self.kind.width == 4 and block_header.num_entries > _SMALL_DICTIONARY:
                records = cursor.records(np.dtype([("key", ">i4"), ("i0", ">i4"), ("i1", ">i4")]),
                                         block_header.num_entries, f"{field}/entries")
                self._check_block(index, records["key"][:1].astype(np.int64), records["i0"], cursor.position, start)
                block = self._blocks[index] = _PackedDictionary.of_block(records, self.kind)
                return block
            keys, (offsets, lengths) = self._read_keys(cursor, block_header.num_entries, f"{field}/entries", 2,
                                                       scanned=True)
            self._check_block(index, keys, offsets, cursor.position, start)
            block = self._blocks[index] = self._dictionary(keys, offsets, lengths)
        return block

    def _check_directory(self) -> None:
        """The block directory as Java writes it: blocks back to back from 0 inside the index blocks, the first
        block's first key the directory's (checked by reading that block: a wrong key width rarely passes)."""
        offsets = self._directory_offsets
        region = self._body_start - self._blocks_start
        rising = all(map(operator.lt, offsets, offsets[1:]))  # (a generator over the pairs: 4% of a cold V2 lookup)
        if offsets and (offsets[0] != 0 or not rising or offsets[-1] >= region):
            raise errors.InvalidOffsetError(
                f"the block directory's offsets {offsets[:4]}... do not run from 0 up inside the {region} bytes of "
                "index blocks", offset=self._directory_offset, field=f"{ROOT}/block_dir")
        if offsets:
            self._block(0)

    def _check_block(self, index: int, keys, offsets: np.ndarray | list[int], end: int, start: int) -> None:
        """A V2 index block as Java writes it: its first key the directory's, within the index blocks, its stored
        bitmaps inside the bitmaps region and each starting a Roaring bitmap. A body read with the wrong key
        width (an INT index read as BIGINT) rarely passes; one that passes by chance would answer wrongly."""
        first = keys[:1]
        listed = [self._sort_key(key) for key in first] if isinstance(first, list) else self.kind.sort_keys(first)
        stored = _stored(offsets)
        problem = None
        if end > self._body_start:
            problem = f"index block {index} ends at {end}, past the index blocks' end {self._body_start}"
        elif not len(first) or listed[0] != self._directory_keys[index]:
            problem = f"index block {index} does not start with the key the block directory gives it"
        elif len(stored) and (_bounds(stored)[0] >= self._size - self._body_start or (
                self._fetch is None and not self._roaring_at(stored))):  # (fetched by parts: decoding checks them)
            problem = f"index block {index} names bytes that do not start a Roaring bitmap"
        if problem:
            raise errors.InvalidOffsetError(problem, offset=self._base + start,
                                            field=f"{ROOT}/index_blocks/blocks[{index}]")

    def _dictionaries(self) -> list:
        if not self._meta_read:
            self._read_meta()
        if self.version == 1:
            return [self._v1_dictionary]
        return [self._block(i) for i in range(len(self._directory_offsets))]

    def validate(self) -> None:
        """Decode everything: the header, every index block and every bitmap (``fileindex check``)."""
        if self._fetch is not None:
            self._fetch([(0, self._size)])  # (every part: one request, not one a bitmap)
        for dictionary in self._dictionaries():
            for _, key, (offset, length) in dictionary.entries():
                self._bitmap_at(offset, length, key)
        self._nulls()

    def entries_except(self, known) -> list[tuple[object, FrozenBitMap]]:
        """(key, rows) of every entry of the dictionary (all V2 index blocks) whose key is not in
        ``known``, each bitmap read where its entry points (not through a lookup)."""
        located = [(key, location) for dictionary in self._dictionaries() for _, key, location in dictionary.entries()
                   if key not in known]
        if not located:
            return []
        keys, locations = zip(*located, strict=True)
        return list(zip(keys, self._bitmaps_at(locations, keys), strict=True))

    # -- lookups ----------------------------------------------------------------------------

    def _locate_in_blocks(self, sort_key) -> tuple[int, int] | None:
        """V2: (offset, length) of a key's bitmap, or None when absent."""
        firsts = self._directory_keys
        if not isinstance(firsts, list):
            block = int(firsts.searchsorted(sort_key, side="right")) - 1
        else:
            block = bisect.bisect_right(firsts, sort_key) - 1
        return None if block < 0 else self._block(block).locate(sort_key)

    def _locate_many(self, sort_keys: list) -> list[tuple[int, int] | None]:
        """``_locate`` of each key; V2 groups the keys by index block and searches each block once."""
        if self.version == 1:
            return self._v1_dictionary.locate_many(sort_keys)
        located: list = [None] * len(sort_keys)
        for block, positions in self._by_block(sort_keys).items():
            found = self._block(block).locate_many([sort_keys[j] for j in positions])
            for j, location in zip(positions, found, strict=True):
                located[j] = location
        return located

    def _by_block(self, sort_keys: list) -> dict[int, list[int]]:
        """V2: the positions among ``sort_keys`` of the keys each index block may hold (keys before the first
        block's left out)."""
        firsts = self._directory_keys
        if not isinstance(firsts, list):
            blocks = (firsts.searchsorted(np.array(sort_keys, dtype=firsts.dtype), side="right") - 1).tolist()
        else:
            blocks = [bisect.bisect_right(firsts, sort_key) - 1 for sort_key in sort_keys]
        by_block: dict[int, list[int]] = {}
        for j, block in enumerate(blocks):
            if block >= 0:
                by_block.setdefault(block, []).append(j)
        return by_block

    def _listed_rows(self, sort_keys: list) -> Sequence[bytes | int | tuple[int, int] | None]:
        """``_PackedDictionary.listed_rows`` of these sort keys in the V1 dictionary or the V2 blocks that may hold
        them (a block of a few keys, not packed, answers a present key's location: it is decoded the slow way)."""
        if self.version == 1:
            return self._v1_dictionary.listed_rows(sort_keys, self._view, self._body_start)
        found: list = [None] * len(sort_keys)
        for block, positions in self._by_block(sort_keys).items():
            dictionary = self._block(block)
            wanted = [sort_keys[j] for j in positions]
            if isinstance(dictionary, _PackedDictionary):
                answers = dictionary.listed_rows(wanted, self._view, self._body_start)
            else:
                answers = dictionary.locate_many(wanted)
            for j, answer in zip(positions, answers, strict=True):
                found[j] = answer
        return found

    def _bitmap_at(self, offset: int, length: int, key) -> FrozenBitMap:
        return self._bitmaps_at([(offset, length)], [key])[0]

    def _bitmaps_at(self, locations: Sequence[tuple[int, int]], keys: Sequence) -> list[FrozenBitMap]:
        """The bitmap at each (body offset, length) location (a negative offset is one inline row)
        of the bitmap of each key (None: the null rows, for messages), decoded in one loop."""
        bitmaps: list = [None] * len(locations)
        spans, placed = self._spans(locations, keys, bitmaps)
        decoded = roaring.deserialize_many(self._view, spans, base=self._base, field=_BODY)
        for j, bitmap in zip(placed, decoded, strict=True):
            bitmaps[j] = bitmap
        return bitmaps

    def _spans(self, locations: Sequence[tuple[int, int]], keys: Sequence, inline: list) -> tuple[list, list]:
        """The payload (start, end) span of each stored bitmap among the locations and where it is in them; an
        inline row's bitmap goes to ``inline`` at its place."""
        spans, placed = [], []
        for j, (offset, length) in enumerate(locations):
            if offset < 0:
                inline[j] = FrozenBitMap((-1 - offset,))
                continue
            start = self._body_start + offset
            end = self._size if length < 0 else start + length
            if end > self._size or start > end:
                what = "null rows" if keys[j] is None else repr(keys[j])
                raise errors.InvalidOffsetError(
                    f"bitmap of {what} at body offset {offset} (length {length}) lies outside the payload",
                    offset=self._offset(start), field=_BODY)
            spans.append((start, end))
            placed.append(j)
        if self._fetch is not None:
            self._fetch(spans)
        return spans, placed

    def _rows_of(self, literal) -> Rows:
        """The rows holding ``literal`` (null: the null rows), read once and cached."""
        if literal is None:
            return self._nulls_read()
        key = self._key(literal)
        found = self._rows.get(key)
        if found is None:
            self._read_uncached([key])
            found = self._rows[key]
        return found

    def _rows_of_many(self, literals: Sequence) -> list[Rows]:
        """``_rows_of`` of each literal; the keys not read yet are located in one vectorized search."""
        keys = [None if literal is None else self._key(literal) for literal in literals]
        self._read_uncached(keys)
        cache = self._rows
        return [self._nulls_read() if key is None else cache[key] for key in keys]

    def rows_of_keys(self, keys: Sequence) -> list[FrozenBitMap]:
        """The rows of each key (as ``key_of`` makes it; None: the null rows), looked up as queries are."""
        self._read_uncached(keys)
        cache = self._rows
        return [self._nulls() if key is None else cache[key].bitmap for key in keys]

    def _read_uncached(self, keys: Sequence) -> None:
        """Caches the rows of each key (None: the null rows, not cached here) not cached yet. A packed V1 dictionary
        of 4-byte keys is searched and its bitmaps decoded in one kernel call (a bitmap of few rows then stays a
        row list); elsewhere the keys are located in one vectorized search and their bitmaps deserialized."""
        missing = self._uncached(keys)
        if missing and self._packed:
            self._read_listed(missing)
        elif missing:
            present = self._located(missing)
            if present:  # cached only once all are decoded: a malformed one must fail again, not read as empty
                self._read_located(present)

    def _read_listed(self, keys: list) -> None:
        """``_read_uncached`` of these uncached keys of a packed V1 dictionary or V2 blocks of 4-byte keys."""
        cache, left = self._rows, []
        sort_keys = [self._sort_key(key) for key in keys]
        for key, sort_key, rows in zip(keys, sort_keys, self._listed_rows(sort_keys), strict=True):
            if rows is None:
                cache[key] = _NO_ROWS
            elif isinstance(rows, bytes):
                cache[key] = Rows.listed(rows)
            elif isinstance(rows, tuple):  # the location in a V2 block too small to be packed
                left.append((key, rows))
            else:  # the offset of a bitmap the kernel does not decode: pyroaring does (or raises the placed error)
                location = (rows, -1) if self.version == 1 else self._locate(sort_key)  # (V2: with its length)
                assert location is not None  # an offset was found
                left.append((key, location))
        if left:
            self._read_located(left)

    def _read_located(self, located: list[tuple[object, tuple[int, int]]]) -> None:
        """Caches the rows of each (key, location) pair, once all are decoded."""
        keys, locations = zip(*located, strict=True)
        self._rows.update(zip(keys, map(Rows, self._bitmaps_at(locations, keys)), strict=True))

    def _uncached(self, keys: Sequence) -> list:
        """The keys not cached yet, each once (None, the null rows, left out); the metadata is read if there are."""
        cache = self._rows
        missing = list(dict.fromkeys(key for key in keys if key is not None and key not in cache))
        if missing and not self._meta_read:
            self._read_meta()
        return missing

    def _located(self, missing: list) -> list[tuple[object, tuple[int, int]]]:
        """(key, location) of each of these uncached keys that the index holds; the keys it does not hold are
        cached as empty. The keys are located in one vectorized search."""
        if not missing:
            return []
        sort_keys = [self._sort_key(key) for key in missing]
        locations = self._locate_many(sort_keys) if len(missing) > 1 else [self._locate(sort_keys[0])]
        located = list(zip(missing, locations, strict=True))
        self._rows.update((key, _NO_ROWS) for key, location in located if location is None)
        return [(key, location) for key, location in located if location is not None]

    def _nulls(self) -> FrozenBitMap:
        return self._nulls_read().bitmap

    def _nulls_read(self) -> Rows:
        """The null rows, read once. With the kernels, a null bitmap of up to ``NULL_ROWS_LISTED`` rows is decoded
        into a row list (``roaring.listed``): IS NULL's ``cardinality`` and ``remain`` make no bitmap, and one asked
        for is deserialized then. Bytes the kernel refuses go to pyroaring, which raises the placed error."""
        found = self._null_rows
        if found is None:
            if not self._meta_read:
                self._read_meta()
            found = self._null_rows = self._read_nulls()
        return found

    def _read_nulls(self) -> Rows:
        if self.null_offset is None:  # no null row
            return Rows(_EMPTY)
        location = (self.null_offset, -1 if self.null_length is None else self.null_length)
        inline: list = [None]
        spans, _ = self._spans([location], [None], inline)
        if inline[0] is not None:
            return Rows(inline[0])
        (start, end), = spans
        listed = roaring.listed(self._view, start, end, NULL_ROWS_LISTED)
        if listed is None:
            return Rows(self._bitmap_at(*location, None))
        rows, serialized = listed
        return Rows.listed(rows, serialized)

    def _in(self, literals: Sequence) -> Rows:
        """The union of the literals' rows. A packed V1 dictionary's are read as equalities are (row lists, cached)
        and merged into one list; elsewhere the bitmaps not cached yet are decoded straight into the union (one
        kernel call, no bitmap object each), and stay uncached: an IN list's values are rarely asked alone."""
        if len(literals) == 1:
            return self._rows_of(literals[0])
        keys = [None if literal is None else self._key(literal) for literal in literals]
        missing = self._uncached(keys)
        cache = self._rows
        if self._packed:
            if missing:
                self._read_listed(missing)
            return Rows.union([self._nulls_read() if key is None else cache[key] for key in keys])
        present = self._located(missing)
        known = [self._nulls() if key is None else cache[key].bitmap for key in keys if key is None or key in cache]
        if not present:
            return Rows(roaring.union(known))
        present_keys, present_locations = zip(*present, strict=True)
        inline: list = [None] * len(present)
        spans, _ = self._spans(present_locations, present_keys, inline)
        known += [bitmap for bitmap in inline if bitmap is not None]
        return Rows(roaring.union_at(self._view, spans, known, base=self._base, field=_BODY))

    def _complement(self, rows: FrozenBitMap) -> FrozenBitMap:
        if not self._meta_read:
            self._read_meta()
        return roaring.complement(rows, self.row_count)

    # -- visitor ----------------------------------------------------------------------------

    def visit_equal(self, literal) -> FileIndexResult:
        return REMAIN if self._values_remain else self._rows_of(literal)

    def visit_equal_many(self, literals: Sequence) -> list[FileIndexResult]:
        if self._values_remain:
            return [REMAIN] * len(literals)
        return list(self._rows_of_many(literals))

    def prefetch(self, literals: Sequence) -> None:
        """Locate the keys of all ``literals`` in one vectorized search and cache their bitmaps."""
        if not self._values_remain:
            self._rows_of_many(literals)

    def visit_not_equal(self, literal) -> FileIndexResult:
        return self.visit_not_in([literal])

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        return REMAIN if self._values_remain else self._in(literals)

    def visit_not_in(self, literals: Sequence) -> FileIndexResult:
        return REMAIN if self._values_remain else Rows(self._complement(self._in(literals).bitmap))

    def visit_is_null(self) -> FileIndexResult:
        return self._nulls_read()

    def visit_is_not_null(self) -> FileIndexResult:
        return Rows(self._complement(self._nulls()))

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
        if not self.extended or self._values_remain or (low is None and high is None):
            return REMAIN
        lo = None if low is None else self.kind.sort_key(self._key(low))
        hi = None if high is None else self.kind.sort_key(self._key(high))
        if not self._meta_read:
            self._read_meta()
        located = []
        for dictionary in self._dictionaries_between(lo, hi):
            for sort_key, key, location in dictionary.entries():
                if lo is not None and (sort_key < lo or (sort_key == lo and not low_inclusive)):
                    continue
                if hi is not None and (sort_key > hi or (sort_key == hi and not high_inclusive)):
                    continue
                located.append((key, location))
        union = BitMap()
        if located:  # (decoded together: a payload filled by parts fetches them in one go)
            keys, locations = zip(*located, strict=True)
            for bitmap in self._bitmaps_at(locations, keys):
                union |= bitmap
        return Rows(union)

    def _dictionaries_between(self, lo, hi):
        if self.version == 1:
            yield self._v1_dictionary
            return
        firsts = self._directory_keys
        firsts = firsts if isinstance(firsts, list) else firsts.tolist()
        for index in range(len(firsts)):
            next_first = firsts[index + 1] if index + 1 < len(firsts) else None
            if hi is not None and firsts[index] > hi:
                break
            if lo is not None and next_first is not None and next_first < lo:
                continue
            yield self._block(index)


class _TooFew(Exception):
    """Metadata of a payload filled by parts that runs past the bytes fetched so far."""


_SMALL_DICTIONARY = 64
NULL_ROWS_LISTED = 1 << 16  # a null bitmap of more rows is deserialized (its list would outweigh its containers)
_FIRST_PART = 4096  # bytes of a payload filled by parts fetched first: its header, block directory and blocks
_TAILS = {1: struct.Struct(">i"), 2: struct.Struct(">2i")}


def _read_fixed_keys(cursor: PayloadCursor, count: int, field: str, ints: int, kind: KeyKind):
    """``count`` records of (fixed-width key, ``ints`` × i32) of a small dictionary, as lists (see
    ``_ListedDictionary``)."""
    record = struct.Struct(f">{kind.struct_code}{ints}i")
    records = list(record.iter_unpack(cursor.take(count * record.size, field)))
    return [entry[0] for entry in records], [[entry[1 + j] for entry in records] for j in range(ints)]


def _read_string_keys(cursor: PayloadCursor, count: int, field: str, ints: int, as_array: bool):
    """(i32 length, UTF-8 bytes, ``ints`` × i32) records, read with one bounds check each.

    A small dictionary (a category column's, read once per file by a plan) is walked in Python:
    numpy's fixed costs would be most of its reading. Walked records give their int columns as
    lists (the dictionaries take either)."""
    if count > _SMALL_DICTIONARY:
        uniform = _uniform_string_keys(cursor, count, ints, as_array)
        if uniform is not None:
            return uniform
    data, position, end = cursor.view, cursor.position, len(cursor.view)
    unpack_int = _INT.unpack_from
    unpack_tail = _TAILS[ints].unpack_from
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
    return keys, [[tail[j] for tail in tails] for j in range(ints)]


def _uniform_string_keys(cursor: PayloadCursor, count: int, ints: int, as_array: bool):
    """When every key has the first key's length (IDs, codes, hashes), read all records with numpy;
    with ``as_array`` the keys stay one numpy ``S`` array (copied: the payload may be unmapped later)."""
    view, position = cursor.view, cursor.position
    if count == 0 or position + 4 > len(view):
        return None
    (length,) = _INT.unpack_from(view, position)
    stride = 4 + length + 4 * ints
    if length < 0 or position + count * stride > len(view):
        return None
    dtype = np.dtype([("length", ">i4"), ("key", f"V{length}")] + [(f"i{j}", ">i4") for j in range(ints)])
    records = np.frombuffer(view, dtype=dtype, count=count, offset=position)
    if (records["length"] != length).any():
        return None
    cursor.position = position + count * stride
    keys: list[bytes] | np.ndarray = [b""] * count
    if length:
        raw = np.frombuffer(view, dtype=np.uint8, count=count * stride, offset=position).reshape(count, stride)
        if raw[:, 3 + length].all():  # no key ends in NUL, which numpy's S dtype would strip
            fixed = records["key"].view(f"S{length}")
            keys = fixed.copy() if as_array else fixed.tolist()
        else:
            block = raw[:, 4:4 + length].tobytes()
            keys = [block[i * length:(i + 1) * length] for i in range(count)]
    return keys, [records[f"i{j}"].astype(np.int64) for j in range(ints)]
