"""Roaring bitmaps as Paimon writes them: ``RoaringBitmap32`` in the portable format (spec §4).

pyroaring is byte-identical to Java after ``run_optimize()`` (checked on the Java vectors).
"""
from __future__ import annotations

import itertools
from array import array

from pyroaring import BitMap, FrozenBitMap

from fileindex import kernels
from fileindex.errors import InvalidEncodingError
from fileindex.parallel import for_each
from fileindex.lazy import numpy as np


def bitmap_of(rows: np.ndarray) -> BitMap:
    """A bitmap of row numbers (any integer numpy array of values in [0, 2^31))."""
    return BitMap(array("I", np.asarray(rows, dtype=np.uint32).tobytes()))


def rows_array(bitmap: BitMap | FrozenBitMap) -> np.ndarray:
    """The bitmap's rows as an ascending uint32 numpy array."""
    return np.frombuffer(bitmap.to_array(), dtype=np.uint32) if bitmap else np.empty(0, dtype=np.uint32)


def clipped(bitmap: BitMap | FrozenBitMap, limit: int) -> FrozenBitMap:
    """The rows of ``bitmap`` below ``limit``: what may be turned into arrays (a malformed bitmap can
    hold up to 2^32 rows in a few bytes)."""
    if not bitmap or bitmap.max() < limit:
        return frozen(bitmap)
    return frozen(bitmap & FrozenBitMap(range(max(limit, 0))))


CHUNK = 1 << 16  # the rows one Roaring container holds
SMALL = 4 * CHUNK  # up to this many rows, ranges are found from the array of them
FEW = 1024  # up to this many, by walking the rows (no numpy: a command line's answer imports none)


def runs(bitmap: BitMap | FrozenBitMap) -> list[tuple[int, int]]:
    """The maximal inclusive ranges [first, last] of ``bitmap``, ascending, read one 2^16-row chunk at a
    time: a full chunk is one range without listing its rows, so the memory is that of the ranges (a
    few bytes of run containers can claim 2^31 rows)."""
    found: list[list[int]] = []
    if len(bitmap) <= FEW:
        for row in bitmap:
            _extend(found, row, row)
        return [(first, last) for first, last in found]
    if len(bitmap) <= SMALL:
        return _array_runs(rows_array(bitmap))
    low, top = bitmap.min() & ~(CHUNK - 1), bitmap.max()
    while low <= top:
        high = low + CHUNK
        count = bitmap.range_cardinality(low, high)
        if count == 0:
            low = bitmap.next_set_bit(high) & ~(CHUNK - 1)
            continue
        if count == CHUNK:
            _extend(found, low, high - 1)
        else:
            for first, last in _array_runs(rows_array(bitmap & FrozenBitMap(range(low, high)))):
                _extend(found, first, last)
        low = high
    return [(first, last) for first, last in found]


def _array_runs(rows: np.ndarray) -> list[tuple[int, int]]:
    """The maximal ranges of ascending rows."""
    if not rows.size:
        return []
    rows = rows.astype(np.int64)
    breaks = np.flatnonzero(np.diff(rows) != 1)
    firsts = np.concatenate((rows[:1], rows[breaks + 1])).tolist()
    lasts = np.concatenate((rows[breaks], rows[-1:])).tolist()
    return list(zip(firsts, lasts, strict=True))


def _extend(found: list[list[int]], first: int, last: int) -> None:
    if found and found[-1][1] + 1 == first:  # a run that goes on from the previous chunk
        found[-1][1] = last
    else:
        found.append([first, last])


def rows_arrays(bitmaps: list) -> tuple[np.ndarray, np.ndarray]:
    """The rows of many bitmaps concatenated (uint32), and how many each has: small bitmaps are read
    by one iterator over all of them (a numpy array each would cost a microsecond apiece)."""
    counts = np.fromiter(map(len, bitmaps), dtype=np.int64, count=len(bitmaps))
    small = counts <= 16
    rows = np.empty(int(counts.sum()), dtype=np.uint32)
    starts = np.cumsum(counts) - counts
    if small.any():
        picked = [bitmaps[i] for i in np.flatnonzero(small).tolist()]
        gathered = np.fromiter(itertools.chain.from_iterable(picked), dtype=np.uint32, count=int(counts[small].sum()))
        into = np.repeat(starts[small], counts[small]) + _ranks(counts[small])
        rows[into] = gathered
    for i in np.flatnonzero(~small).tolist():
        rows[starts[i]:starts[i] + counts[i]] = rows_array(bitmaps[i])
    return rows, counts


def _ranks(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c - 1 for each count c, concatenated."""
    total = int(counts.sum())
    return np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)


def sliced_values(rows: np.ndarray, slices: list) -> np.ndarray:
    """The unsigned value each of ``rows`` (ascending, clipped) holds in bit slices (slice i: bit i),
    as uint64; a slice's rows past the last of ``rows`` are never made into an array."""
    values = np.zeros(len(rows), dtype=np.uint64)
    if not len(rows):
        return values
    position = np.full(int(rows[-1]) + 1, -1, dtype=np.int64)  # row → its index in ``rows``
    position[rows] = np.arange(len(rows))
    for i, bits in enumerate(slices):
        at = position[rows_array(clipped(bits, int(rows[-1]) + 1))]
        values[at[at >= 0]] |= np.uint64(1) << np.uint64(i)  # a slice's rows outside ``rows`` count for nothing
    return values


SLICES_A_PASS = 16


def serialized_bit_slices(rows: np.ndarray, values: np.ndarray, num_bits: int) -> list[bytes]:
    """For each bit b < ``num_bits``, the serialized bitmap of the ``rows`` (ascending, one per
    value) whose non-negative ``values`` have bit b set: a bsi's or a range-bitmap's slices.

    The compiled kernel sets the slices of ``SLICES_A_PASS`` bits a pass as bitsets and writes each
    as Java does (without the GIL; a pass holds ``SLICES_A_PASS`` bits a row: 20 MB for 10M rows);
    the numpy path tests one bit a pass, on a few threads, and builds the bitmaps with pyroaring."""
    rows = np.ascontiguousarray(rows, dtype=np.uint32)
    values = np.ascontiguousarray(values)
    if values.dtype.kind not in "iu" or values.itemsize not in (4, 8):
        values = values.astype(np.uint64)
    values = values.view(np.uint32 if values.itemsize == 4 else np.uint64)  # read as stored, no widening copy
    if kernels.compiled:
        return [serialized
                for first in range(0, num_bits, SLICES_A_PASS)
                for serialized in kernels.compiled.roaring_bit_slices(rows, values, values.itemsize, first,
                                                                      min(SLICES_A_PASS, num_bits - first))]
    return for_each(lambda b: serialize(bitmap_of(rows[(values >> np.uint64(b)) & np.uint64(1) == 1])),
                    list(range(num_bits)))


def serialize(bitmap: BitMap | FrozenBitMap) -> bytes:
    """``RoaringBitmap32.serialize``: runOptimize first, then the portable format."""
    optimized = bitmap if isinstance(bitmap, BitMap) else mutable(bitmap)
    optimized.run_optimize()
    return optimized.serialize()


def serialize_rows(rows: array) -> bytes:
    """``serialize`` of the bitmap of these rows (any order, duplicates allowed): construction run-optimizes."""
    return BitMap(rows, optimize=True).serialize()


def serialize_groups(rows: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> tuple[bytes, np.ndarray]:
    """``serialize_rows`` of the ``rows[start:start + count]`` (uint32) of each group, concatenated, and the
    length of each. The compiled kernel writes them all in one call (as Java does after runOptimize; a
    pyroaring bitmap a group costs about 2 µs, most of a bitmap index of many small groups)."""
    rows = np.ascontiguousarray(rows, dtype=np.uint32)
    if kernels.compiled:
        sizes = np.empty(len(starts), dtype=np.int64)
        body = kernels.compiled.roaring_serialize(rows, np.ascontiguousarray(starts, dtype=np.int64),
                                                  np.ascontiguousarray(counts, dtype=np.int64), sizes)
        return body, sizes
    listed = array("I", rows.tobytes())  # slicing an array.array is what pyroaring reads fastest
    bitmaps = [serialize_rows(listed[start:start + count])
               for start, count in zip(starts.tolist(), counts.tolist(), strict=True)]
    return b"".join(bitmaps), np.fromiter(map(len, bitmaps), dtype=np.int64, count=len(bitmaps))


def serialized_size_of_single_row() -> int:
    return 18  # cookie, one container header, one offset, one 16-bit value (spec §4)


def deserialize(data, *, offset: int, field: str) -> FrozenBitMap:
    """Decode a portable-format bitmap; trailing bytes are ignored (Roaring is self-delimiting)."""
    return deserialize_many(data, ((0, len(data)),), base=offset, field=field)[0]


def deserialize_many(data, spans, *, base: int, field: str) -> list[FrozenBitMap]:
    """``deserialize`` of the bytes ``data[start:end]`` of each (start, end) span, in one loop
    (a warm bitmap lookup is mostly this; ``base + start`` places an error). The compiled kernel
    frames and calls pyroaring from C; where a bitmap does not frame or fails, the loop here raises."""
    if kernels.compiled:
        bitmaps = kernels.compiled.roaring_bitmaps(data, spans, _DESERIALIZE)
        if bitmaps is not None:
            return bitmaps
    decoded = []
    for start, end in spans:
        try:
            bitmap = _DESERIALIZE(data[start:end])
        except (ValueError, IndexError, MemoryError, OverflowError, RuntimeError) as err:
            raise InvalidEncodingError(f"not a valid Roaring bitmap ({err})", offset=base + start,
                                       field=field) from None
        if bitmap and bitmap.max() > 0x7FFFFFFF:
            raise InvalidEncodingError(f"row number {bitmap.max()} does not fit Java's signed int",
                                       offset=base + start, field=field)
        decoded.append(bitmap)
    return decoded


_DESERIALIZE = FrozenBitMap.deserialize


def listed(data, start: int, end: int, limit: int) -> tuple[bytes, bytes] | None:
    """The rows (native uint32, ascending) of the portable bitmap at ``data[start:end]``, decoded by the kernels
    (checked as CRoaring's validation checks, every row a signed int: 10,000 rows in a few microseconds, where
    pyroaring's deserialization validates for 30), and a copy of its bytes to deserialize should a bitmap be
    asked for; None without the kernels, past ``limit`` rows, or where the kernel refuses the bytes (``deserialize``
    then raises the placed error)."""
    fast = kernels.compiled
    rows = None if fast is None else fast.roaring_rows(data, ((start, end),), limit)
    if rows is None:
        return None
    return rows, bytes(data[start:start + fast.roaring_size(data, start)])  # type: ignore[union-attr]

ROWS_IN_ONE_LIST = 512  # past about 1000 rows, pyroaring's container unions beat building from one unsorted list


def union_at(data, spans, bitmaps, *, base: int, field: str) -> FrozenBitMap:
    """``union(deserialize_many(data, spans, ...) + bitmaps)``. Where they hold few rows, the compiled kernel
    decodes the spans' bitmaps straight into one list of rows (a bitmap object each costs microseconds), if each
    is one CRoaring's checks accept with every row a signed int; else they are deserialized (and fail as there)."""
    if kernels.compiled and len(spans) > 1:
        rows = kernels.compiled.roaring_rows(data, spans, ROWS_IN_ONE_LIST)
        if rows is not None and not bitmaps:
            return FrozenBitMap(array("I", rows), optimize=False)
        if rows is not None:
            merged = BitMap(array("I", rows), optimize=False)
            merged.update(*bitmaps)
            return frozen(merged)
    return union([*deserialize_many(data, spans, base=base, field=field), *bitmaps])


def union(bitmaps) -> FrozenBitMap:
    """The union of any number of bitmaps (none: the empty bitmap).

    Merged in place into one mutable bitmap: for many small bitmaps about 5x faster than
    ``FrozenBitMap.union`` (measured on 10 bitmaps of about 10 rows: 8 µs against 41 µs).
    """
    merged = BitMap()
    merged.update(*bitmaps)
    return frozen(merged)


def complement(bitmap, row_count: int) -> FrozenBitMap:
    """Rows of [0, row_count) not in ``bitmap`` (Java's ``flip(0, rowCount)``)."""
    return frozen(bitmap.flip(0, row_count))


def frozen(bitmap: BitMap | FrozenBitMap) -> FrozenBitMap:
    """``bitmap`` as an immutable bitmap, copied unless it is one already.

    pyroaring's copy constructor run-optimizes and shrinks the copy by default: 80-90 µs for a
    dense 1M-row bitmap against 7 µs without. Only ``serialize`` needs run containers (Java's
    runOptimize), and it makes them itself."""
    return bitmap if isinstance(bitmap, FrozenBitMap) else FrozenBitMap(bitmap, optimize=False)


def mutable(bitmap: BitMap | FrozenBitMap) -> BitMap:
    """A mutable copy of ``bitmap``, for in-place arithmetic (not run-optimized: see ``frozen``)."""
    return BitMap(bitmap, optimize=False)


NO_RUN_COOKIE = 12346
RUN_COOKIE = 12347


def portable_size(view: memoryview, start: int, *, base: int, field: str) -> int:
    """Bytes taken by the portable-format bitmap at ``start`` (framing as in specs/roaring_bitmap.ksy).

    Only the header is read: the cookie, container descriptions and, for run containers, their
    run counts. Raises TruncatedError / InvalidEncodingError with absolute offsets. The compiled
    kernel frames in a fraction of a microsecond (the numpy reference takes 5-10 µs a bitmap, which
    was most of opening a bsi); where it does not frame, the reference runs to raise the error.
    """
    if kernels.compiled:
        size = kernels.compiled.roaring_size(view, start)
        if size >= 0:
            return size
    return reference_portable_size(view, start, base=base, field=field)


def reference_portable_size(view: memoryview, start: int, *, base: int, field: str) -> int:
    """``portable_size`` in Python: the reference, and the error for input that does not frame."""
    from fileindex.errors import TruncatedError

    end = len(view)

    def need(position: int, size: int) -> None:
        if position + size > end:
            raise TruncatedError(f"Roaring bitmap cut off: {size} bytes needed at {position}, {end - position} left",
                                 offset=base + min(position, end), field=field)

    need(start, 4)
    cookie = int.from_bytes(view[start:start + 4], "little")
    position = start + 4
    has_runs = cookie & 0xFFFF == RUN_COOKIE
    if has_runs:
        count = (cookie >> 16) + 1
        need(position, (count + 7) // 8)
        run_flags = bytes(view[position:position + (count + 7) // 8])
        position += (count + 7) // 8
    elif cookie == NO_RUN_COOKIE:
        need(position, 4)
        count = int.from_bytes(view[position:position + 4], "little")
        position += 4
        run_flags = b""
    else:
        raise InvalidEncodingError(f"not a Roaring bitmap: cookie {cookie}", offset=base + start, field=field)
    if count > 65536:
        raise InvalidEncodingError(f"{count} containers: a 32-bit Roaring bitmap has at most 65536",
                                   offset=base + start, field=field)
    need(position, 4 * count)
    cards = np.frombuffer(view[position:position + 4 * count], dtype="<u2").reshape(count, 2)[:, 1].astype(np.int64) + 1
    position += 4 * count
    if not has_runs or count >= 4:
        position += 4 * count  # offsets table
    for i in range(count):
        if has_runs and run_flags[i // 8] & (1 << (i % 8)):
            need(position, 2)
            runs = int.from_bytes(view[position:position + 2], "little")
            position += 2 + 4 * runs
        else:
            position += 2 * int(cards[i]) if cards[i] <= 4096 else 8192
    need(position, 0)
    return position - start
