"""The lazy ``range-bitmap`` reader (spec §8): comparisons become code comparisons: ``find`` locates a
value's code (or its insertion point), and the slices answer =, <, <=, >, >=, IN and TopN. It reads
the header on the first query, then only the dictionary chunks and slices it needs.
"""
from __future__ import annotations

import bisect
import functools
import struct
from dataclasses import dataclass
from typing import Generic, NamedTuple, overload
from collections.abc import Sequence

from pyroaring import FrozenBitMap

from fileindex import errors
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.decoding.cursor import PayloadCursor, PayloadOffsets
from fileindex.generated.fast import range_bitmap as fast
from fileindex.indexes import roaring, top_n
from fileindex.indexes.bitmap.keys import Key
from fileindex.indexes.range_bitmap.keys import key_kind, key_of, sort_key
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import REMAIN, FileIndexResult, Rows
from fileindex.kaitai_runtime import open_stream
from fileindex.lazy import LazyFunction, numpy as np
from fileindex.types import DataType


_DEBUG = LazyFunction("fileindex.generated.range_bitmap", "RangeBitmap")  # the debug reader: places a failure

ROOT = "range_bitmap"
_INT = struct.Struct(">i")
FEW_CODES = 4  # a range of at most this many codes is found code by code (see visit_range)


_VALIDATIONS = {  # the spec's checks on the fields the generated reader reads (len_header, the header)
    "/seq/0": errors.InvalidLengthError,
    "/types/header/seq/0": errors.UnsupportedVersionError,
    "/types/header/seq/1": errors.InvalidLengthError,
    "/types/header/seq/2": errors.InvalidLengthError,
    "/types/header/seq/5": errors.InvalidLengthError,
    "/types/dictionary/seq/0": errors.UnsupportedVersionError,
    "/types/dictionary/seq/1": errors.UnsupportedVersionError,
    "/types/dictionary/seq/2": errors.InvalidLengthError,
    "/types/dictionary/seq/3": errors.InvalidLengthError,
    "/types/dictionary/seq/4": errors.InvalidLengthError,
    "/types/bit_slice_index/seq/0": errors.InvalidLengthError,
    "/types/bsi_header/seq/0": errors.UnsupportedVersionError,
    "/types/bsi_header/seq/2": errors.InvalidLengthError,
    "/types/chunk/seq/0": errors.UnsupportedVersionError,
}


class _SpecRoot(NamedTuple):
    """The generated types below the root read only the root's ``key_kind`` parameter."""

    key_kind: int


class _StringKeys(Sequence[bytes]):
    """A string chunk's keys, each (i32 length, bytes) read from the chunk's bytes where its offset says when
    asked for: a binary search reads about ten of a thousand, and reading them all costs more than the rest of a
    cold query. A key outside the chunk's bytes raises when read (``place``: the keys' offset and field)."""

    __slots__ = ("raw", "offsets", "place")

    def __init__(self, raw: bytes, offsets: tuple[int, ...], place: tuple[int, str]):
        self.raw, self.offsets, self.place = raw, offsets, place

    def __len__(self) -> int:
        return len(self.offsets)

    def key(self, i: int) -> bytes:
        start, (at, field) = self.offsets[i], self.place
        if not 0 <= start <= len(self.raw) - 4:
            raise errors.InvalidOffsetError("a key offset points outside the chunk's keys", offset=at,
                                            field=f"{field}/offsets")
        (length,) = _INT.unpack_from(self.raw, start)
        end = start + 4 + length
        if length < 0 or end > len(self.raw):
            raise errors.InvalidLengthError("a key runs past the chunk's keys", offset=at, field=f"{field}/keys")
        return self.raw[start + 4:end]

    @overload
    def __getitem__(self, i: int) -> bytes: ...

    @overload
    def __getitem__(self, i: slice) -> list[bytes]: ...

    def __getitem__(self, i: int | slice) -> bytes | list[bytes]:
        if isinstance(i, slice):
            return [self.key(j) for j in range(*i.indices(len(self)))]
        return self.key(i)


@dataclass
class _Chunk(Generic[Key]):
    head: Key  # sort key of the head value
    head_code: int
    ofs_keys: int
    num_keys: int
    len_keys: int
    keys: Sequence[Key] | None = None  # sort keys of the keys after the head, read on demand


class RangeBitmapReader(FileIndexReader, PayloadOffsets):
    _root = ROOT

    def __init__(self, payload, data_type: DataType, *, base_offset: int = 0):
        self.kind = key_kind(data_type)
        self.data_type = data_type
        self._set_payload(payload, base_offset)
        self._header_read = False
        self._chunks: list[_Chunk] | None = None
        self._slices: dict[int, FrozenBitMap] = {}

    # -- header, dictionary, slices -------------------------------------------------------------

    def _read_header(self) -> None:
        """The header through the generated reader (the dictionary and the bit-sliced index are lazy
        instances of the spec, so nothing else is read); where they start comes from it."""
        if self._header_read:
            return
        code = self.kind.code
        parsed = kaitai_bridge.parse_fast(functools.partial(fast.RangeBitmap, code),
                                          functools.partial(_DEBUG, code), self._view, root=ROOT,
                                          validations=_VALIDATIONS, base=self._base)
        header = parsed.header
        self.row_count, self.cardinality = header.row_count, header.cardinality
        if self.cardinality:
            self.min = sort_key(self.kind, self._key_value(header.min))
            self.max = sort_key(self.kind, self._key_value(header.max))
        self._dictionary_start = 4 + parsed.len_header
        self._bsi_start = self._dictionary_start + header.len_dictionary
        if self._bsi_start > len(self._view):
            raise errors.InvalidLengthError(
                f"a dictionary of {header.len_dictionary} bytes after the header does not fit the payload",
                offset=self._offset(parsed.len_header), field=f"{ROOT}/header/len_dictionary")  # the header's last s4
        self._read_bsi_header()
        self._header_read = True

    def _key_value(self, key):
        """A generated ``key``'s value: the int, or the bytes of a string."""
        return key.value.value if self.kind.width is None else key.value

    def _read_bsi_header(self) -> None:
        bsi = self._part_header("bsi", fast.RangeBitmap.BitSliceIndex, self._bsi_start, len(self._view))
        header = bsi.header
        self._num_slices = header.num_slices
        self._ebm_start = self._bsi_start + 4 + bsi.len_header
        self._ebm_length = header.len_ebm
        self._slices_start = self._ebm_start + header.len_ebm
        self._slice_refs = [(ref.ofs_slice, ref.len_slice) for ref in header.indexes]  # (offset, length)
        self._check_slices_tile()

    def _check_slices_tile(self) -> None:
        """The slices lie back to back from the end of the existence bitmap to the payload's end, as Java writes
        them: a payload read with the wrong key width (a BIGINT index read as INT) rarely passes, and one that
        passed would answer from a misread header (its min and max)."""
        position = 0  # where the next slice starts, if they lie back to back
        tiled = True
        for offset, length in self._slice_refs:
            tiled = tiled and offset == position
            position = offset + length
        end = self._slices_start + position
        if not tiled or end != len(self._view):
            raise errors.InvalidOffsetError(
                f"the bit slices do not lie back to back up to the payload's end ({end} of {len(self._view)} bytes)",
                offset=self._offset(self._bsi_start), field=f"{ROOT}/bsi/header/indexes")

    def _bitmap(self, start: int, length: int, field: str) -> FrozenBitMap:
        end = start + length
        if length < 0 or start < 0 or end > len(self._view):
            raise errors.InvalidOffsetError(f"bitmap [{start}, {end}) lies outside the payload",
                                            offset=self._offset(start),
                                            field=f"{ROOT}/{field}")
        return roaring.deserialize(self._view[start:end], offset=self._offset(start), field=f"{ROOT}/{field}")

    @property
    def _ebm(self) -> FrozenBitMap:
        if -1 not in self._slices:
            self._slices[-1] = self._bitmap(self._ebm_start, self._ebm_length, "bsi/ebm")
        return self._slices[-1]

    def _slice(self, i: int) -> FrozenBitMap:
        if i not in self._slices:
            offset, length = self._slice_refs[i]
            self._slices[i] = self._bitmap(self._slices_start + offset, length, f"bsi/slices[{i}]")
        return self._slices[i]

    def _read_chunks(self) -> list[_Chunk]:
        if self._chunks is not None:
            return self._chunks
        dictionary = self._part_header("dictionary", fast.RangeBitmap.Dictionary, self._dictionary_start,
                                        self._bsi_start)
        offsets_start = self._dictionary_start + 4 + dictionary.len_dictionary_header
        offsets = self._cursor(offsets_start).integers("i", dictionary.num_chunks, "dictionary/chunk_offsets")
        headers_start = offsets_start + dictionary.len_offsets
        self._blobs_start = headers_start + dictionary.len_chunks
        chunks = self._fixed_chunk_headers(headers_start, offsets) if self.kind.width is not None else None
        if chunks is None:
            chunks = self._chunk_headers(headers_start, offsets, offsets_start)
        self._chunks = chunks
        self._heads = [c.head for c in chunks]
        return chunks

    def _part_header(self, name: str, fast_type, start: int, end: int):
        """The ``dictionary`` or ``bsi`` part's header, read by the generated reader over that part's
        bytes only (what follows its header is instances of the spec, decoded here in bulk)."""
        try:
            return fast_type(open_stream(self._view[start:end]))
        except kaitai_bridge.StructError as err:
            raise kaitai_bridge.place_instance_failure(
                err, functools.partial(_DEBUG, self.kind.code), self._view, (name,), root=ROOT,
                validations=_VALIDATIONS, base=self._base, offset=start) from None

    def _fixed_chunk_headers(self, start: int, offsets: tuple[int, ...]) -> list[_Chunk] | None:
        """All chunk headers at once when they lie back to back (as Java writes them): version, head key,
        head code, keys' offset, key count, keys' length, fixed length."""
        header = struct.Struct(f">B{self.kind.struct_code}5i")
        size = len(offsets) * header.size
        if offsets != tuple(range(0, size, header.size)) or start + size > len(self._view):
            return None
        records = list(header.iter_unpack(self._view[start:start + size]))
        if any(version != 1 for version, *_ in records):
            return None  # the one-by-one path reports the bad version with its offset
        kind = self.kind
        return [_Chunk(sort_key(kind, head), code, ofs, num, length)
                for _, head, code, ofs, num, length, _ in records]

    def _chunk_headers(self, start: int, offsets: Sequence[int], offsets_start: int) -> list[_Chunk]:
        """The chunk headers one by one through the generated ``chunk`` type, each where the dictionary's
        offsets table (at ``offsets_start``) puts it: string keys, or headers not back to back."""
        region = self._view[start:self._blobs_start]
        stream = open_stream(region)
        root = _SpecRoot(self.kind.code)  # what the generated types read of the root: its key_kind parameter
        chunks = []
        try:
            for i, offset in enumerate(offsets):
                if not 0 <= offset < len(region):
                    raise errors.InvalidOffsetError(
                        f"chunk header offset {offset} is outside the {len(region)} bytes of chunk headers",
                        offset=self._offset(offsets_start + 4 * i), field=f"{ROOT}/dictionary/chunk_offsets[{i}]")
                stream.seek(offset)
                chunk = fast.RangeBitmap.Chunk(stream, None, root)
                head = sort_key(self.kind, self._key_value(chunk.head_key))
                chunks.append(_Chunk(head, chunk.head_code, chunk.ofs_keys, chunk.num_keys, chunk.len_keys))
        except kaitai_bridge.StructError as err:
            raise kaitai_bridge.place_instance_failure(
                err, functools.partial(_DEBUG, self.kind.code), self._view, ("dictionary/chunks",), root=ROOT,
                validations=_VALIDATIONS, base=self._base, offset=start + offset) from None
        return chunks

    def _chunk_keys(self, index: int) -> Sequence:
        chunk = self._read_chunks()[index]
        if chunk.keys is None:
            cursor = self._cursor(self._blobs_start + chunk.ofs_keys)
            field = f"dictionary/keys[{index}]"
            if chunk.num_keys < 0:
                raise errors.InvalidLengthError(f"negative key count {chunk.num_keys}", offset=cursor.absolute(),
                                                field=f"{ROOT}/{field}")
            if self.kind.width is not None:
                keys = cursor.integers(self.kind.struct_code, chunk.num_keys, field)
                chunk.keys = [sort_key(self.kind, key) for key in keys] if self.kind.floating else list(keys)
            else:
                chunk.keys = self._string_keys(cursor, chunk, field)
        return chunk.keys

    def _string_keys(self, cursor: PayloadCursor, chunk: _Chunk, field: str) -> Sequence[bytes]:
        """A string chunk's keys: ``num_keys`` offsets, then (i32 length, bytes) at each offset."""
        offsets = cursor.integers("i", chunk.num_keys, f"{field}/offsets")
        keys_start = cursor.position
        region = cursor.take(chunk.len_keys, f"{field}/keys")
        return _StringKeys(bytes(region), offsets, (self._offset(keys_start), f"{ROOT}/{field}"))

    def find(self, key) -> int:
        """The code of ``key`` (a sort key), or -(insertion code) - 1 when absent (Java's binarySearch)."""
        chunks = self._read_chunks()
        index = bisect.bisect_right(self._heads, key) - 1
        if index < 0:
            return -1
        chunk = chunks[index]
        if chunk.head == key:
            return chunk.head_code
        keys = self._chunk_keys(index)
        position = bisect.bisect_left(keys, key)
        if position < len(keys) and keys[position] == key:
            return chunk.head_code + 1 + position
        return -(chunk.head_code + 1 + position) - 1

    def decode(self, limit: int):
        """(rows with a value below ``limit`` ascending, each row's code, the dictionary's sort keys by
        code: ints or bytes, the header's min and max sort keys, how many rows at or past ``limit``
        have a value): what the index says each row holds."""
        self._read_header()
        if self.cardinality == 0:
            return np.empty(0, dtype=np.uint32), np.empty(0, dtype=np.uint64), [], None, None, 0
        rows = roaring.rows_array(roaring.clipped(self._ebm, limit))
        codes = roaring.sliced_values(rows, [self._slice(i) for i in range(self._num_slices)])
        keys: list = [None] * self.cardinality
        for index, chunk in enumerate(self._read_chunks()):
            for code, key in enumerate([chunk.head, *self._chunk_keys(index)], start=chunk.head_code):
                if 0 <= code < self.cardinality:
                    keys[code] = key
        return rows, codes, keys, self.min, self.max, len(self._ebm) - len(rows)

    # -- bit-slice arithmetic over codes -------------------------------------------------------

    def _code_eq(self, code: int) -> FrozenBitMap:
        state = roaring.mutable(self._ebm)
        for i in range(self._num_slices):
            if (code >> i) & 1:
                state &= self._slice(i)
            else:
                state -= self._slice(i)
        return roaring.frozen(state)

    def _code_gt(self, code: int) -> FrozenBitMap:
        """Rows whose code is greater than ``code``."""
        if code < 0:
            return self._ebm
        trailing = 0
        while (code >> trailing) & 1:
            trailing += 1
        if trailing >= self._num_slices:
            return FrozenBitMap()
        state = roaring.mutable(self._slice(trailing))
        for i in range(trailing + 1, self._num_slices):
            if (code >> i) & 1:
                state &= self._slice(i)
            else:
                state |= self._slice(i)
        return self._ebm & state  # an immutable result: the left operand's type

    def _code_gte(self, code: int) -> FrozenBitMap:
        return self._code_gt(code - 1)

    def _not(self, rows: FrozenBitMap) -> FrozenBitMap:
        return self._ebm - rows

    # -- value comparisons (spec §8.5) ------------------------------------------------------------

    def _eq(self, k) -> FrozenBitMap:
        if k == self.min == self.max:
            return self._ebm
        if k < self.min or k > self.max:
            return FrozenBitMap()
        code = self.find(k)
        return FrozenBitMap() if code < 0 else self._code_eq(code)

    def _gte(self, k) -> FrozenBitMap:
        if k <= self.min:
            return self._ebm
        if k > self.max:
            return FrozenBitMap()
        code = self.find(k)
        return self._code_gte(code if code >= 0 else -code - 1)

    def _gt(self, k) -> FrozenBitMap:
        if k < self.min:
            return self._ebm
        if k >= self.max:
            return FrozenBitMap()
        code = self.find(k)
        return self._code_gt(code) if code >= 0 else self._code_gte(-code - 1)

    def _lte(self, k) -> FrozenBitMap:
        if k >= self.max:
            return self._ebm
        if k < self.min:
            return FrozenBitMap()
        return self._not(self._gt(k))

    def _lt(self, k) -> FrozenBitMap:
        if k > self.max:
            return self._ebm
        if k <= self.min:
            return FrozenBitMap()
        return self._not(self._gte(k))

    # -- visitor ---------------------------------------------------------------------------------

    def _sort_keys(self, literals: Sequence):
        if any(literal is None for literal in literals):
            return None  # Java throws NullPointerException: the safe answer is REMAIN
        return [sort_key(self.kind, key_of(literal, self.data_type)) for literal in literals]

    def _answer(self, literals: Sequence, compute) -> FileIndexResult:
        keys = self._sort_keys(literals)
        if keys is None:
            return REMAIN
        self._read_header()
        if self.cardinality == 0:
            return Rows()
        return Rows(compute(*keys))

    def visit_is_null(self) -> FileIndexResult:
        self._read_header()
        if self.cardinality == 0:
            return Rows(range(self.row_count))
        return Rows(roaring.complement(self._ebm, self.row_count))

    def visit_is_not_null(self) -> FileIndexResult:
        self._read_header()
        return Rows() if self.cardinality == 0 else Rows(self._ebm)

    def visit_equal(self, literal) -> FileIndexResult:
        return self._answer([literal], self._eq)

    def visit_not_equal(self, literal) -> FileIndexResult:
        return self._answer([literal], lambda k: self._not(self._eq(k)))

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        return self._answer(list(literals), lambda *ks: roaring.union(map(self._eq, ks)))

    def visit_not_in(self, literals: Sequence) -> FileIndexResult:
        return self._answer(list(literals), lambda *ks: self._not(roaring.union(map(self._eq, ks))))

    def visit_less_than(self, literal) -> FileIndexResult:
        return self._answer([literal], self._lt)

    def visit_less_or_equal(self, literal) -> FileIndexResult:
        return self._answer([literal], self._lte)

    def visit_greater_than(self, literal) -> FileIndexResult:
        return self._answer([literal], self._gt)

    def visit_greater_or_equal(self, literal) -> FileIndexResult:
        return self._answer([literal], self._gte)

    def visit_between(self, low, high) -> FileIndexResult:
        return self._answer([low, high], lambda lo, hi: self._gte(lo) & self._lte(hi))

    def visit_range(self, low, high, *, low_inclusive: bool, high_inclusive: bool) -> FileIndexResult:
        """The rows whose code lies between the bounds' codes, computed once: no slice is read where no key
        lies in the range (a narrow window over a file whose few strays span every day), and a handful of
        codes are found by equality, which narrows at each slice where a comparison does not."""
        if self._sort_keys([low, high]) is None:
            return super().visit_range(low, high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)
        return self._answer([low, high], lambda lo, hi: self._codes_between(
            self._first_code(lo, strict=not low_inclusive), self._first_code(hi, strict=high_inclusive)))

    def _first_code(self, key, *, strict: bool) -> int:
        """The first code whose key is >= ``key`` (``strict``: > ``key``); the cardinality when none is."""
        code = self.find(key)
        return (code + 1 if strict else code) if code >= 0 else -code - 1

    def _codes_between(self, first: int, end: int) -> FrozenBitMap:
        """Rows whose code is in [first, end)."""
        end = min(end, self.cardinality)
        if first >= end:
            return FrozenBitMap()
        if end - first <= FEW_CODES:
            return roaring.union(self._code_eq(code) for code in range(first, end))
        below_end = self._ebm if end == self.cardinality else self._not(self._code_gte(end))
        return below_end if first == 0 else below_end & self._code_gte(first)

    def validate(self) -> None:
        self._read_header()
        _ = self._ebm  # decodes the existence bitmap
        for i in range(self._num_slices):
            self._slice(i)
        for index in range(len(self._read_chunks())):
            list(self._chunk_keys(index))  # (string keys are read when asked for)

    # -- TopN (spec §8.5) -------------------------------------------------------------------------

    def visit_top_n(self, limit: int, *, descending: bool, nulls_first: bool = False,
                    found: FrozenBitMap | None = None, strict: bool = True) -> FileIndexResult:
        """The rows of the first ``limit`` in ORDER BY this column (``strict``: one ORDER BY key), by code;
        every row where no row has a value, as Java answers."""
        top_n.check_limit(limit)
        self._read_header()
        if self.cardinality == 0:
            return Rows(range(self.row_count))
        nulls = roaring.complement(self._ebm, self.row_count)
        if found is not None:
            nulls = nulls & found
        return Rows(top_n.with_nulls(limit, nulls, lambda k: top_n.top_values(
            k, self._ebm, self._slice, self._num_slices, largest=descending, found=found, strict=strict),
            nulls_first=nulls_first, strict=strict))
