"""Deep checks of a range-bitmap body (``fileindex check``; spec §8).

Java numbers the distinct values in sorted order and writes: a header whose min and max are the
first and last keys; a dictionary of chunks, each a head and the keys after it, back to back,
with codes that continue from chunk to chunk and keys strictly ascending; a bit-sliced index of
max(bit-length(cardinality - 1), 1) slices (64 when there are no values) whose rows are the
existence bitmap's, each row's code below the cardinality, every code used by some row. A key
out of order makes ``find`` miss it; a code past the dictionary answers rows no value has.

Non-canonical (notes: Java's ``RangeBitmap`` reader finds each part by its offset): chunk headers,
chunk keys, string keys and slices that are not back to back, Roaring bitmaps not run-optimized.
Every other breach is invalid: lengths and counts locate the parts after them.
"""
from __future__ import annotations

import struct

import numpy as np

from fileindex.indexes import roaring
from fileindex.container.invariants import Note
from fileindex.indexes.invariants import BodyFacts, check_rows, check_serialized, violation
from fileindex.indexes.range_bitmap.reader import ROOT, RangeBitmapReader
from fileindex.types import DataType

_I4 = struct.Struct(">i")


def check(payload, data_type: DataType, *, base_offset: int = 0, distinct: int | None = None) -> BodyFacts:
    reader = RangeBitmapReader(payload, data_type, base_offset=base_offset)
    reader.validate()
    checker = _Checker(reader)
    checker.header()
    checker.dictionary()
    checker.bit_slices()
    return BodyFacts(row_count=reader.row_count, distinct=reader.cardinality, notes=tuple(checker.notes))


class _Checker:
    def __init__(self, reader: RangeBitmapReader):
        self.r = reader
        self.view = reader._view
        self.base = reader._base
        self.notes: list[Note] = []

    def note(self, message: str, position: int, field: str) -> None:
        self.notes.append(Note(message, offset=self.base + position, field=f"{ROOT}/{field}"))

    def int_at(self, position: int) -> int:
        return _I4.unpack_from(self.view, position)[0]

    def fail(self, message: str, position: int, field: str):
        return violation(message, offset=self.base + position, field=f"{ROOT}/{field}", java_notices=False)

    def key_size(self, key) -> int:
        width = self.r.kind.width
        return width if width is not None else 4 + len(key)

    def header(self) -> None:
        r = self.r
        expected = 13 + (self.key_size(r.min) + self.key_size(r.max) if r.cardinality else 0)
        length = self.int_at(0)
        if length != expected:
            raise self.fail(f"header length {length}, where its fields take {expected}", 0, "len_header")
        if r.cardinality and r.min > r.max:
            raise self.fail("min is above max", 13, "header/min")

    def dictionary(self) -> None:
        r = self.r
        chunks = r._read_chunks()
        start = r._dictionary_start
        offsets_at = start + 17
        num_chunks, len_offsets, len_chunks = (self.int_at(start + 5), self.int_at(start + 9),
                                               self.int_at(start + 13))
        if (num_chunks == 0) != (r.cardinality == 0):
            raise self.fail(f"{num_chunks} chunk(s) for cardinality {r.cardinality}", start + 5,
                            "dictionary/num_chunks")
        if len_offsets != 4 * num_chunks:
            raise self.fail(f"offsets length {len_offsets} for {num_chunks} chunk(s): Java writes 4 each",
                            start + 9, "dictionary/len_offsets")
        headers_at = offsets_at + len_offsets
        position, keys_position, code = 0, 0, 0
        previous = last_key_at = None
        string = r.kind.width is None
        for i, chunk in enumerate(chunks):
            field = f"dictionary/chunks[{i}]"
            if self.int_at(offsets_at + 4 * i) != position:
                self.note(f"chunk header {i} at {self.int_at(offsets_at + 4 * i)}, where the headers before it end "
                          f"at {position}: Java writes them back to back", offsets_at + 4 * i,
                          f"dictionary/chunk_offsets[{i}]")
                position = self.int_at(offsets_at + 4 * i)
            at = headers_at + position
            size = 1 + self.key_size(chunk.head) + 20
            tail = at + size - 20  # head_code, ofs_keys, num_keys, then two lengths
            if chunk.head_code != code:
                raise self.fail(f"chunk {i} starts at code {chunk.head_code}, where the chunks before it end at "
                                f"{code}", tail, f"{field}/head_code")
            if chunk.ofs_keys != keys_position:
                self.note(f"chunk {i}'s keys at {chunk.ofs_keys}, where the keys before them end at {keys_position}",
                          tail + 4, f"{field}/ofs_keys")
                keys_position = chunk.ofs_keys
            if chunk.num_keys < 0:
                raise self.fail(f"negative key count {chunk.num_keys}", tail + 8, f"{field}/num_keys")
            first_length, second_length = self.int_at(tail + 12), self.int_at(tail + 16)
            if string:
                if first_length != 4 * chunk.num_keys:
                    raise self.fail(f"key offsets length {first_length} for {chunk.num_keys} key(s)", tail + 12,
                                    f"{field}/len_key_offsets")
                blob = first_length + second_length
            else:
                if second_length != r.kind.width:
                    raise self.fail(f"fixed length {second_length} for {r.kind.width}-byte keys", tail + 16,
                                    f"{field}/fixed_length")
                if first_length != chunk.num_keys * r.kind.width:
                    raise self.fail(f"keys length {first_length} for {chunk.num_keys} key(s) of {r.kind.width} bytes",
                                    tail + 12, f"{field}/len_keys")
                blob = first_length
            keys = list(r._chunk_keys(i))
            blob_at = r._blobs_start + chunk.ofs_keys
            if string:
                self._check_string_offsets(keys, blob_at, f"dictionary/keys[{i}]")
            for j, key in enumerate([chunk.head] + keys):
                if previous is not None and not previous < key:
                    where = at + 1 if j == 0 else self._key_position(blob_at, keys, j - 1, string, chunk.num_keys)
                    what = "repeats" if previous == key else "is below"
                    raise self.fail(f"key of code {code + j} {what} the key before it: Java writes the dictionary "
                                    "sorted and unique, and its binary search misses keys out of order", where,
                                    f"{field}/head_key" if j == 0 else f"dictionary/keys[{i}]")
                previous = key
            last_key_at = at + 1 if not keys else self._key_position(blob_at, keys, len(keys) - 1, string,
                                                                       chunk.num_keys)
            position += size
            keys_position += blob
            code += 1 + chunk.num_keys
        if position != len_chunks:
            raise self.fail(f"the chunk headers take {position} bytes of the {len_chunks} given", start + 13,
                            "dictionary/len_chunks")
        if code != r.cardinality:
            raise self.fail(f"the dictionary holds {code} key(s) for cardinality {r.cardinality}", 9,
                            "header/cardinality")
        if r._blobs_start + keys_position != r._bsi_start:
            raise self.fail(f"the dictionary's keys end at {r._blobs_start + keys_position}, its length says "
                            f"{r._bsi_start}", r._blobs_start + min(keys_position, r._bsi_start - r._blobs_start),
                            "dictionary")
        if last_key_at is not None:  # some chunk: as bytes, a float's raw bits (Java keeps the first NaN's) must match
            min_size = self.key_size(r.min)
            if bytes(self.view[13:13 + min_size]) != bytes(self.view[headers_at + 1:headers_at + 1 + min_size]):
                raise self.fail("min differs from the dictionary's first key", 13, "header/min")
            max_size = self.key_size(r.max)
            if bytes(self.view[13 + min_size:13 + min_size + max_size]) != bytes(
                    self.view[last_key_at:last_key_at + max_size]):
                raise self.fail("max differs from the dictionary's last key", 13 + min_size, "header/max")

    def _key_position(self, blob_at: int, keys, j: int, string: bool, count: int) -> int:
        if not string:
            return blob_at + j * self.r.kind.fixed_width
        return blob_at + 4 * count + sum(4 + len(k) for k in keys[:j])

    def _check_string_offsets(self, keys, blob_at: int, field: str) -> None:
        expected = 0
        for j, key in enumerate(keys):
            if self.int_at(blob_at + 4 * j) != expected:
                self.note(f"key {j} at {self.int_at(blob_at + 4 * j)}, where the keys before it end at {expected}: "
                          "Java writes them back to back", blob_at + 4 * j, f"{field}/offsets")
                expected = self.int_at(blob_at + 4 * j)
            expected += 4 + len(key)

    def bit_slices(self) -> None:
        r = self.r
        card = r.cardinality
        expected = 64 if card == 0 else max((card - 1).bit_length(), 1)
        header_at = r._bsi_start
        if r._num_slices != expected:
            raise self.fail(f"{r._num_slices} slices for cardinality {card}: Java writes {expected}",
                            header_at + 5, "bsi/header/num_slices")
        if self.int_at(header_at) != 10 + 8 * expected or self.int_at(header_at + 10) != 8 * expected:
            raise self.fail(f"bit-slice header lengths {self.int_at(header_at)} and {self.int_at(header_at + 10)} for "
                            f"{expected} slices", header_at, "bsi/len_header")
        ebm = r._ebm
        ebm_size = roaring.portable_size(self.view, r._ebm_start, base=self.base, field=f"{ROOT}/bsi/ebm")
        if ebm_size != r._ebm_length:
            raise self.fail(f"ebm length {r._ebm_length}, but its bitmap takes {ebm_size} bytes", header_at + 6,
                            "bsi/header/len_ebm")
        at = self.base + r._ebm_start
        check_rows(ebm, r.row_count, what="the existence bitmap", offset=at, field=f"{ROOT}/bsi/ebm")
        check_serialized(self.view[r._ebm_start:r._ebm_start + ebm_size], ebm, self.notes, what="the existence bitmap",
                        offset=at, field=f"{ROOT}/bsi/ebm")
        if card == 0 and ebm:
            raise self.fail(f"{len(ebm)} row(s) with a value and no key in the dictionary", r._ebm_start, "bsi/ebm")
        rows = np.asarray(ebm.to_array(), dtype=np.uint32)
        codes = np.zeros(len(rows), dtype=np.uint64)
        position = 0
        for i, (offset, length) in enumerate(r._slice_refs):
            field = f"bsi/slices[{i}]"
            ref_at = header_at + 14 + 8 * i
            if offset != position:
                self.note(f"slice {i} at {offset}, where the slices before it end at {position}", ref_at,
                          f"bsi/header/indexes[{i}]/ofs_slice")
                position = offset
            start = r._slices_start + offset
            size = roaring.portable_size(self.view, start, base=self.base, field=f"{ROOT}/{field}")
            if size != length:
                raise self.fail(f"slice {i} of length {length}, but its bitmap takes {size} bytes", ref_at + 4,
                                f"bsi/header/indexes[{i}]/len_slice")
            bits = r._slice(i)
            if not bits.issubset(ebm):
                raise self.fail(f"slice {i} holds row {min(bits - ebm)}, which the existence bitmap lacks", start,
                                field)
            check_serialized(self.view[start:start + size], bits, self.notes, what=f"slice {i}",
                             offset=self.base + start, field=f"{ROOT}/{field}")
            codes[np.searchsorted(rows, np.asarray(bits.to_array(), dtype=np.uint32))] |= np.uint64(1) << np.uint64(i)
            position += length
        if r._slices_start + position < len(self.view):  # Java reads each slice at its offset: unused bytes
            self.note(f"the slices end at {r._slices_start + position} of a {len(self.view)}-byte body",
                      r._slices_start + position, "bsi")
        elif r._slices_start + position != len(self.view):
            raise self.fail(f"the slices end at {r._slices_start + position} of a {len(self.view)}-byte body",
                            r._slices_start + min(position, len(self.view) - r._slices_start), "bsi")
        if card and len(codes):
            if int(codes.max()) >= card:
                row = int(rows[int(codes.argmax())])
                raise self.fail(f"row {row} has code {int(codes.max())}, past the {card} key(s) of the dictionary",
                                r._slices_start, "bsi/slices")
            used = np.zeros(card, dtype=bool)
            used[codes.astype(np.int64)] = True
            if not used.all():
                raise self.fail(f"no row has code {int(np.flatnonzero(~used)[0])}: Java's dictionary holds only "
                                "values present", r._slices_start, "bsi/slices")
        elif card:
            raise self.fail(f"cardinality {card} with no row holding a value", r._ebm_start, "bsi/ebm")
