"""Deep checks of a bitmap body, versions 1 and 2 (``fileindex check``; spec §6).

What Java's writer guarantees and its reader never verifies. Invalid (Java misreads): a row in
two bitmaps or in none; V2 keys out of order (its binary search misses them) or a directory key
that is not its block's; a V1 key listed twice; a V1 bitmap longer than the span Java gives it
(``BitmapFileIndexMeta`` takes each stored bitmap's length as the distance to the next stored
entry's offset, in entry order, the null bitmap's to the first); a V2 length shorter than its
bitmap. Non-canonical (a note: Java finds every bitmap by its offset): a has_null byte other than 0
or 1 (``readBoolean``), a single row stored as a
bitmap rather than inline, bitmaps not back to back in the iteration order of the writer's
``HashMap`` (the V1 entries in that order too) or not null bitmap first, V2 blocks not back to back,
lengths where Java writes -1 or longer than the bitmap, Roaring bitmaps not run-optimized.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

import numpy as np
import pyarrow as pa
from pyroaring import BitMap, FrozenBitMap

from fileindex.indexes import roaring
from fileindex.indexes.bitmap.keys import Key, KeyKind
from fileindex.indexes.bitmap.reader import ROOT, BitmapReader, as_list
from fileindex.container.invariants import Note
from fileindex.indexes.invariants import BodyFacts, check_rows, check_serialized, violation
from fileindex.types import DataType

@dataclass
class _Entry(Generic[Key]):
    key: Key  # the key as the writer holds it (int bits, bool, UTF-8 bytes)
    sort_key: Key
    offset: int  # body offset, or -1 - row
    length: int  # V2: serialized length, -1 for one row; V1: -1
    at: int  # absolute offset of the entry
    field: str


def check(payload, data_type: DataType, *, base_offset: int = 0, distinct: int | None = None) -> BodyFacts:
    reader = BitmapReader(payload, data_type, base_offset=base_offset)
    reader._read_meta()  # the checker decodes the rest: every block, every bitmap
    return _Checker(reader).run()


class _Checker:
    def __init__(self, reader: BitmapReader):
        self.r = reader
        self.kind: KeyKind = reader.kind
        self.base = reader._base
        self.view = reader._view
        self.sizes: dict[int, tuple[int, int]] = {}  # entry index -> (payload start, size) of a stored bitmap
        self.notes: list[Note] = []

    def note(self, message: str, *, offset: int, field: str) -> None:
        self.notes.append(Note(message, offset=offset, field=field))

    def field(self, name: str) -> str:
        return f"{ROOT}/{name}"

    def run(self) -> BodyFacts:
        r = self.r
        has_null_byte = self.view[9]
        if has_null_byte not in (0, 1):  # readBoolean: any non-zero byte reads as true
            self.note(f"has_null byte {has_null_byte}: Java writes 0 or 1", offset=self.base + 9,
                      field=self.field("header/has_null_byte"))
        entries = self._v1_entries() if r.version == 1 else self._v2_entries()
        self._check_keys(entries)
        bitmaps = self._value_bitmaps(entries)
        nulls = self._null_bitmap()
        self._check_body_layout(entries, bitmaps, nulls)
        self._check_coverage(entries, bitmaps, nulls)
        return BodyFacts(row_count=r.row_count, distinct=r.num_values, notes=tuple(self.notes))

    # -- entries in file order ---------------------------------------------------------------

    def _records(self, position: int, count: int, field: str, ints: int) -> list[_Entry]:
        """``count`` (key, ``ints`` × i32) records at payload ``position``, in file order."""
        r, kind = self.r, self.kind
        keys, columns = r._read_keys(r._cursor(position), count, field, ints)
        if kind.dtype is not None:
            keys = np.asarray(keys, dtype=np.int64)  # (a small dictionary's keys are read as a list)
            sort_keys = kind.sort_keys(keys).tolist()
            listed = keys.tolist()
            if kind.name == "boolean":
                self._check_booleans(keys, position, ints, field)
            sizes = [kind.fixed_width + 4 * ints] * count
        else:
            listed = sort_keys = list(keys)
            sizes = [4 + len(k) + 4 * ints for k in listed]
        offsets = as_list(columns[0])
        lengths = as_list(columns[1]) if ints == 2 else [-1] * count
        entries, at = [], position
        for i in range(count):
            entries.append(_Entry(listed[i], sort_keys[i], offsets[i], lengths[i], self.base + at, f"{field}[{i}]"))
            at += sizes[i]
        return entries

    def _check_booleans(self, keys: np.ndarray, position: int, ints: int, field: str) -> None:
        bad = np.flatnonzero((keys != 0) & (keys != 1))
        if len(bad):
            i = int(bad[0])
            raise violation(f"boolean key byte {int(keys[i])}: Java writes 0 or 1",
                            offset=self.base + position + i * (1 + 4 * ints), field=self.field(f"{field}[{i}]/key"),
                            java_notices=False)

    def _header_end(self) -> int:
        r = self.r
        return 10 + (4 if r.has_null else 0) + (4 if r.has_null and r.version == 2 else 0) + \
            (4 if r.version == 2 else 0)

    def _v1_entries(self) -> list[_Entry]:
        return self._records(self._header_end(), self.r.num_values, "v1_entries", 1)

    def _v2_entries(self) -> list[_Entry]:
        r = self.r
        directory = self._records(self._header_end(), len(r._directory_offsets), "block_dir", 1)
        region = r._body_start - r._blocks_start
        if (len(directory) == 0) != (r.num_values == 0):
            raise violation(f"{len(directory)} index block(s) for {r.num_values} value(s): Java writes blocks "
                            "exactly when there are values", offset=r._directory_offset - 4,
                            field=self.field("header/num_blocks"), java_notices=False)
        entries: list[_Entry] = []
        expected_offset = 0
        for index, block_ref in enumerate(directory):
            r._block(index)  # the header and entries decode (under a wrong type, this fails first)
            if block_ref.offset != expected_offset:
                self.note(f"index block {index} at offset {block_ref.offset}, where the blocks before it end "
                          f"at {expected_offset}: Java writes the blocks back to back",
                          offset=block_ref.at, field=self.field(f"block_dir[{index}]/ofs_block"))
            start = r._blocks_start + block_ref.offset
            count = int.from_bytes(self.view[start:start + 4], "big", signed=True)
            field = f"index_blocks/blocks[{index}]"
            if count < 1:
                raise violation("an empty index block: Java starts a block only for an entry", offset=self.base + start,
                                field=self.field(f"{field}/header/num_entries"), java_notices=False)
            block = self._records(start + 4, count, f"{field}/entries", 2)
            if block[0].sort_key != block_ref.sort_key:
                raise violation(f"the directory's first key {_shown(block_ref.key)} differs from block {index}'s "
                                f"first key {_shown(block[0].key)}: lookups search the wrong block",
                                offset=block_ref.at, field=self.field(f"block_dir[{index}]/first_key"),
                                java_notices=False)
            entries += block
            expected_offset = self._end_of(block) - r._blocks_start
        if expected_offset < region:  # Java finds the bitmaps from the header's body offset: unused bytes
            self.note(f"the index blocks end at {expected_offset} of the {region} bytes the header gives them",
                      offset=self.base + r._blocks_start - 4,
                      field=self.field("index_blocks_header/len_index_blocks"))
        elif expected_offset != region:
            raise violation(f"the index blocks end at {expected_offset} of the {region} bytes the header gives them",
                            offset=self.base + r._blocks_start - 4,
                            field=self.field("index_blocks_header/len_index_blocks"),
                            java_notices=False)
        if len(entries) != r.num_values:
            raise violation(f"{len(entries)} entries in the index blocks for {r.num_values} value(s)",
                            offset=self.base + 5, field=self.field("header/num_values"), java_notices=False)
        return entries

    def _end_of(self, block: list[_Entry]) -> int:
        """The payload position where a V2 block's last entry ends."""
        last = block[-1]
        size = self.kind.fixed_width + 8 if self.kind.dtype is not None else 4 + len(last.key) + 8
        return last.at - self.base + size

    # -- keys ----------------------------------------------------------------------------------

    def _check_keys(self, entries: list[_Entry]) -> None:
        kind = self.kind
        if kind.floating:
            for entry in entries:
                if kind.floating.is_nan(entry.key) and entry.key != kind.floating.canonical_nan:
                    bits = entry.key & ((1 << 8 * kind.fixed_width) - 1)
                    raise violation(f"NaN key with bits {bits:#x}: Java writes every NaN as the canonical one, "
                                    "and no lookup finds another",
                                    offset=entry.at, field=self.field(f"{entry.field}/key"), java_notices=False)
        if self.r.version == 2:
            for i in range(1, len(entries)):
                before, after = entries[i - 1], entries[i]
                if before.sort_key < after.sort_key:
                    continue
                if before.sort_key == after.sort_key:
                    culprit, what = after, f"repeats the key before it, {_shown(before.key)}"
                elif i < 2 or entries[i - 2].sort_key < after.sort_key:  # the one before is too large
                    culprit, what = before, f"is above the key after it, {_shown(after.key)}"
                else:
                    culprit, what = after, f"is below the key before it, {_shown(before.key)}"
                raise violation(f"key {_shown(culprit.key)} {what}: Java writes the entries sorted and unique, and "
                                "its binary search misses keys out of order", offset=culprit.at,
                                field=self.field(f"{culprit.field}/key"), java_notices=False)
        else:
            seen: dict = {}
            for entry in entries:
                if entry.sort_key in seen:
                    raise violation(f"key {_shown(entry.key)} is listed twice", offset=entry.at,
                                    field=self.field(f"{entry.field}/key"), java_notices=False)
                seen[entry.sort_key] = entry

    # -- bitmaps ---------------------------------------------------------------------------------

    def _stored(self, offset: int, length: int, what: str, at: int, field: str) -> tuple[int, int]:
        """(payload start, size) of the stored bitmap at body ``offset``; V2's length must be its size."""
        r = self.r
        start = r._body_start + offset
        size = roaring.portable_size(self.view, start, base=self.base, field=self.field("body"))
        if 0 <= length < size:  # Java reads `length` bytes and decodes the bitmap from them
            raise violation(f"{what}: length {length}, but its bitmap takes {size} bytes", offset=at,
                            field=field, java_notices=False)
        if length > size:
            self.note(f"{what}: length {length}, but its bitmap takes {size} bytes", offset=at, field=field)
        return start, size

    def _value_bitmaps(self, entries: list[_Entry]) -> list[FrozenBitMap]:
        """Each entry's rows; a stored bitmap's (payload start, size) goes to ``self.sizes``."""
        r = self.r
        bitmaps: list = [None] * len(entries)
        stored = []
        for i, entry in enumerate(entries):
            what = f"the bitmap of key {_shown(entry.key)}"
            field = self.field(entry.field)
            if entry.offset < 0:
                if r.version == 2 and entry.length != -1:  # Java ignores the length of an inline row
                    self.note(f"{what}: one row inline (offset {entry.offset}) with length {entry.length}, "
                              "where Java writes -1", offset=entry.at, field=f"{field}/len_bitmap")
                bitmaps[i] = FrozenBitMap((-1 - entry.offset,))
                check_rows(bitmaps[i], r.row_count, what=what, offset=entry.at, field=f"{field}/ofs_bitmap")
            else:
                self.sizes[i] = self._stored(entry.offset, entry.length, what, entry.at, f"{field}/len_bitmap")
                stored.append(i)
        decoded = r._bitmaps_at([(entries[i].offset, entries[i].length) for i in stored],
                                [entries[i].key for i in stored])
        for i, bitmap in zip(stored, decoded, strict=True):
            bitmaps[i] = bitmap
            self._check_stored(bitmap, *self.sizes[i], f"the bitmap of key {_shown(entries[i].key)}", min_rows=2)
        return bitmaps

    def _check_stored(self, bitmap: FrozenBitMap, start: int, size: int, what: str, *, min_rows: int) -> None:
        at, field = self.base + start, self.field("body")
        if len(bitmap) < min_rows:
            self.note(f"{what} is stored with {len(bitmap)} row(s): Java stores a single row inline",
                      offset=at, field=field)
        check_rows(bitmap, self.r.row_count, what=what, offset=at, field=field)
        check_serialized(self.view[start:start + size], bitmap, self.notes, what=what, offset=at, field=field)

    def _null_bitmap(self) -> FrozenBitMap:
        r = self.r
        nulls = r._nulls()
        null_offset = r.null_offset
        if null_offset is None:  # no null row
            return nulls
        at = self.base + 10
        if null_offset < 0:
            check_rows(nulls, r.row_count, what="the null row", offset=at, field=self.field("header/ofs_null"))
            if r.version == 2 and r.null_length != roaring.serialized_size_of_single_row():
                self.note(f"one null row with a null bitmap length {r.null_length}, where Java writes "
                          f"{roaring.serialized_size_of_single_row()}", offset=at + 4,
                          field=self.field("header/len_null_bitmap"))
            return nulls
        if null_offset != 0:
            self.note(f"null bitmap at body offset {null_offset}: Java writes it first, at 0", offset=at,
                      field=self.field("header/ofs_null"))
        start, size = self._stored(null_offset, -1 if r.null_length is None else r.null_length, "the null bitmap",
                                   at + 4, self.field("header/len_null_bitmap"))
        self.sizes[-1] = (start, size)
        self._check_stored(nulls, start, size, "the null bitmap", min_rows=2)
        return nulls

    def _check_body_layout(self, entries: list[_Entry], bitmaps: list[FrozenBitMap], nulls: FrozenBitMap) -> None:
        """Java's writer tiles the body: null bitmap first, then the values in its HashMap order (notes)."""
        r = self.r
        if r.version == 1:
            self._check_v1_spans(entries)
        if all(bitmaps):
            order = _java_order(self.kind, entries, bitmaps, r.row_count - len(nulls))
        else:  # a key without rows (noted) has no first row to place it: Java's order cannot be told
            order = sorted(range(len(entries)), key=lambda i: entries[i].offset)
        if r.version == 1 and [entries[i].sort_key for i in order] != [e.sort_key for e in entries]:
            first = next(i for i, j in enumerate(order) if j != i)
            self.note(f"entry {first} holds key {_shown(entries[first].key)} where Java's HashMap order puts "
                      f"{_shown(entries[order[first]].key)} (from the keys and their first rows)",
                      offset=entries[first].at, field=self.field(f"{entries[first].field}/key"))
        null_size = self.sizes[-1][1] if -1 in self.sizes else 0
        position = null_size
        for i in order:
            entry = entries[i]
            if entry.offset < 0:
                continue
            if entry.offset != position:
                self.note(f"the bitmap of key {_shown(entry.key)} at body offset {entry.offset}, where Java "
                          f"writes it at {position} (bitmaps back to back in HashMap order)",
                          offset=entry.at, field=self.field(f"{entry.field}/ofs_bitmap"))
                break
            position += self.sizes[i][1]
        end = len(self.view) - r._body_start
        ends = [(entries[i].offset if i >= 0 else int(r.null_offset or 0)) + size
                for i, (_, size) in self.sizes.items()]
        last = max(ends, default=0)
        if last != end:
            self.note(f"the bitmaps end at body offset {last}, but the body has {end} bytes",
                      offset=self.base + r._body_start + min(last, end), field=self.field("body"))

    def _check_v1_spans(self, entries: list[_Entry]) -> None:
        """Java's V1 reader (``BitmapFileIndexMeta.deserialize``) gives each stored bitmap the bytes up to the next
        stored entry's offset, in entry order (the null bitmap those up to the first), and decodes it from them."""
        stored = ([(-1, "the null bitmap", self.base + 10)] if -1 in self.sizes else []) + \
            [(i, f"the bitmap of key {_shown(entries[i].key)}", entries[i].at) for i in sorted(self.sizes) if i >= 0]
        offsets = [int(self.r.null_offset or 0) if i == -1 else entries[i].offset for i, _, _ in stored]
        for (i, what, at), offset, following in zip(stored, offsets, offsets[1:], strict=False):
            span, size = following - offset, self.sizes[i][1]
            if span < size:
                raise violation(f"{what} takes {size} bytes, but Java's V1 reader gives it {span} (up to the next "
                                "stored bitmap in entry order)", offset=at, field=self.field("body"),
                                java_notices=True)

    def _check_coverage(self, entries: list[_Entry], bitmaps: list[FrozenBitMap], nulls: FrozenBitMap) -> None:
        """Every row in exactly one value bitmap or the null bitmap."""
        r = self.r
        seen = BitMap(nulls)
        for entry, bitmap in zip(entries, bitmaps, strict=True):
            if seen.intersect(bitmap):
                row = min(seen & bitmap)
                raise violation(f"row {row} is in the bitmap of key {_shown(entry.key)} and in another value's or "
                                "the null bitmap: each row holds one value", offset=entry.at,
                                field=self.field(f"{entry.field}/ofs_bitmap"), java_notices=False)
            seen |= bitmap
        if len(seen) != r.row_count:
            missing = next(iter(roaring.complement(seen, r.row_count)))
            raise violation(f"row {missing} of {r.row_count} is in no value bitmap and not null: Java records "
                            "every row", offset=self.base + 1, field=self.field("header/row_count"),
                            java_notices=False)


def _java_order(kind: KeyKind, entries: list[_Entry], bitmaps: list[FrozenBitMap], non_null: int) -> list[int]:
    """Entry indices in the order Java's ``id2bitmap`` HashMap iterates them: its keys were inserted
    by first row, so the order follows from the keys and their bitmaps."""
    from fileindex.indexes.bitmap.writer import _java_body_order

    if not entries:
        return []
    first = np.array([bitmap.min() for bitmap in bitmaps], dtype=np.int64)
    keys = [entry.key for entry in entries]
    if kind.dtype is None:
        from fileindex.java.hash import binary_string_hash_codes
        from fileindex.java.string_buffers import binary_buffers

        hashes = binary_string_hash_codes(*binary_buffers(pa.array(keys, pa.binary())))
        distinct = keys
    else:
        hashes = kind.hash_codes(np.array(keys, dtype=np.int64))
        distinct = [bool(k) for k in keys] if kind.name == "boolean" else keys
    last_row = max(bitmap.max() for bitmap in bitmaps)
    # the writer's "a call after the last new key" is a non-null row after the last first row
    positions = np.argsort(first, kind="stable")
    rank = np.empty(len(first), dtype=np.int64)
    rank[positions] = np.arange(len(first))
    order = _java_body_order(kind, distinct, np.asarray(hashes, dtype=np.int64), rank,
                             len(first) + (1 if last_row > first.max() else 0))
    return [int(i) for i in order]


def _shown(key) -> str:
    if isinstance(key, bytes):
        text = key.decode("utf-8", "replace")
        return repr(text if len(text) <= 40 else text[:40] + "...")
    return str(key)
