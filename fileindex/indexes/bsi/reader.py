"""The ``bsi`` reader (spec §7): it answers comparisons with the halves' min/max short-cuts and O'Neil's
algorithm over the bit slices, and ORDER BY LIMIT as the range-bitmap does (beyond Java, whose bsi has none).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pyroaring import BitMap, FrozenBitMap

from fileindex import errors
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.decoding.cursor import PayloadOffsets
from fileindex.generated.fast import bsi as fast
from fileindex.indexes import roaring, top_n
from fileindex.indexes.bsi.keys import check_type, value_range
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import REMAIN, FileIndexResult, Rows
from fileindex.java_numbers import LONG_MIN
from fileindex.lazy import LazyFunction, numpy as np
from fileindex.types import DataType
from fileindex.values import long_key


_DEBUG = LazyFunction("fileindex.generated.bsi", "Bsi")  # the debug reader: places a failure

ROOT = "bsi"


_VALIDATIONS = {  # the spec's checks on the header types the generated reader reads
    "/types/header/seq/0": errors.UnsupportedVersionError,
    "/types/header/seq/1": errors.InvalidLengthError,
    "/types/half_header/seq/1": errors.UnsupportedVersionError,
    "/types/slices_header/seq/0": errors.InvalidLengthError,
}


@dataclass
class _Half:
    """One BitSliceIndexRoaringBitmap, its bitmaps decoded on first use."""

    min: int
    max: int
    ebm: FrozenBitMap
    slices: list  # (start, length) of each slice in the payload, then the decoded bitmap
    max_offset: int = 0  # absolute
    name: str = ""  # positive or negative, for messages

    @classmethod
    def empty(cls) -> _Half:
        return cls(0, 0, FrozenBitMap(), [])


class BsiReader(FileIndexReader, PayloadOffsets):
    """Java's ``BitSliceIndexBitmapFileIndex.Reader``. Opening reads the header and both halves'
    fixed fields through the generated reader, frames their bitmaps and decodes the existence
    bitmaps; the slices decode on first use."""

    _root = ROOT

    def __init__(self, payload, data_type: DataType, *, base_offset: int = 0):
        check_type(data_type)
        self.data_type = data_type
        self._set_payload(payload, base_offset)
        header = self._read_part(fast.Bsi.Header, 0, "header")
        self.row_count = header.row_count
        self.positive, at = self._read_half(header._io.pos(), "positive")
        self.negative, _ = self._read_half(at, "negative")
        self._check_fits(data_type)
        self._decoded: dict[int, FrozenBitMap] = {}

    def _read_part(self, fast_type, position: int, field: str):
        """A header type of the spec read by its generated reader at ``position`` (where the bitmaps
        before it end: the layout records no sizes, so the reader frames them itself)."""
        return kaitai_bridge.parse_fast_in(fast_type, _DEBUG, self._view, part=(0, len(self._view)), position=position,
                                           root=ROOT, validations=_VALIDATIONS, field=f"{ROOT}/{field}",
                                           base=self._base)

    def _check_fits(self, data_type: DataType) -> None:
        """The largest magnitudes must fit the column type: a bsi over BIGINT read as INT says so."""
        low, high = value_range(data_type)
        for name, half, limit in (("positive", self.positive, high), ("negative", self.negative, -low)):
            if half.max > limit:
                raise errors.SchemaMismatchError(
                    f"the {name} values reach magnitude {half.max}, outside {data_type} [{low}, {high}]: "
                    "built for a wider type", offset=half.max_offset,
                    field=f"{ROOT}/{name}/header/max")

    def _frame(self, start: int, field: str) -> tuple[int, int]:
        """(start, size) of the Roaring bitmap at ``start``."""
        return start, roaring.portable_size(self._view, start, base=self._base, field=f"{ROOT}/{field}")

    def _read_half(self, at: int, name: str) -> tuple[_Half, int]:
        """One half at ``at``, and where it ends."""
        header = self._read_part(fast.Bsi.HalfHeader, at, f"{name}/header")
        if not header.has_index:
            return _Half.empty(), at + 1
        max_offset = self._offset(at + 10)  # after the flag, the version and min
        ebm_at = self._frame(header._io.pos(), f"{name}/index/ebm")
        count_at = sum(ebm_at)
        count = self._read_part(fast.Bsi.SlicesHeader, count_at, f"{name}/index/slices_header").num_slices
        slices, at = [], count_at + 4
        for i in range(count):
            slices.append(self._frame(at, f"{name}/index/slices[{i}]"))
            at = sum(slices[-1])
        ebm = self._decode(*ebm_at, f"{name}/index/ebm")
        return _Half(header.min, header.max, ebm, slices, max_offset, name), at

    def _decode(self, start: int, size: int, field: str) -> FrozenBitMap:
        return roaring.deserialize(self._view[start:start + size], offset=self._offset(start), field=f"{ROOT}/{field}")

    def _slice(self, half: _Half, i: int) -> FrozenBitMap:
        start, size = half.slices[i]
        if start not in self._decoded:
            self._decoded[start] = self._decode(start, size, f"{half.name}/index/slices[{i}]")
        return self._decoded[start]

    def validate(self) -> None:
        for half in (self.positive, self.negative):
            for i in range(len(half.slices)):
                self._slice(half, i)

    def decode(self, limit: int) -> list[tuple[int, int, np.ndarray, np.ndarray, int]]:
        """Per half (positive, then negative): (min, max, its rows below ``limit`` ascending, each row's
        magnitude as min + the bits of its slices, uint64; how many rows it holds at or past
        ``limit``): what the half says each row holds."""
        out = []
        for half in (self.positive, self.negative):
            rows = roaring.rows_array(roaring.clipped(half.ebm, limit))
            slices = [self._slice(half, i) for i in range(len(half.slices))]
            magnitudes = roaring.sliced_values(rows, slices) + np.uint64(half.min & (2**64 - 1))
            out.append((half.min, half.max, rows, magnitudes, len(half.ebm) - len(rows)))
        return out

    # -- O'Neil over one half -----------------------------------------------------------------

    def _compare(self, half: _Half, op: str, p: int) -> FrozenBitMap:
        everything, nothing = half.ebm, FrozenBitMap()
        shortcut = {
            "eq": (half.min == half.max == p, p < half.min or p > half.max),
            "gte": (p <= half.min, p > half.max),
            "gt": (p < half.min, p >= half.max),
            "lte": (p >= half.max, p < half.min),
            "lt": (p > half.max, p <= half.min),
        }[op]
        if shortcut[0]:
            return everything
        if shortcut[1]:
            return nothing
        q = p - half.min
        gt, lt, eq = BitMap(), BitMap(), roaring.mutable(half.ebm)
        for i in range(len(half.slices) - 1, -1, -1):
            bits = self._slice(half, i)
            if (q >> i) & 1:
                lt |= eq - bits
                eq &= bits
            else:
                gt |= eq & bits
                eq -= bits
        result = {"eq": eq, "lt": lt, "lte": lt | eq, "gt": gt, "gte": gt | eq}[op]
        return half.ebm & result  # an immutable result: the left operand's type

    def _not_null(self) -> FrozenBitMap:
        return self.positive.ebm | self.negative.ebm

    def _eq(self, value: int) -> FrozenBitMap:
        if value == LONG_MIN:
            return FrozenBitMap()
        return self._compare(self.positive, "eq", value) if value >= 0 else self._compare(self.negative, "eq", -value)

    def _lt(self, value: int, inclusive: bool) -> FrozenBitMap:
        if value == LONG_MIN:
            return FrozenBitMap()
        if value >= 0:
            return self._compare(self.positive, "lte" if inclusive else "lt", value) | self.negative.ebm
        return self._compare(self.negative, "gte" if inclusive else "gt", -value)

    def _gt(self, value: int, inclusive: bool) -> FrozenBitMap:
        if value == LONG_MIN:
            return self._not_null()
        if value >= 0:
            return self._compare(self.positive, "gte" if inclusive else "gt", value)
        return self.positive.ebm | self._compare(self.negative, "lte" if inclusive else "lt", -value)

    # -- visitor ------------------------------------------------------------------------------

    def _key(self, literal) -> int | None:
        """The literal's long, or None where the answer must be REMAIN (null literal, TIMESTAMP p > 6)."""
        if literal is None or self.data_type.is_nano_timestamp:
            return None
        return long_key(literal, self.data_type)

    def _keys(self, literals: Sequence) -> list[int] | None:
        keys = [self._key(literal) for literal in literals]
        present = [k for k in keys if k is not None]
        return present if len(present) == len(keys) else None

    def visit_is_null(self) -> FileIndexResult:
        return Rows(roaring.complement(self._not_null(), self.row_count))

    def visit_is_not_null(self) -> FileIndexResult:
        return Rows(self._not_null())

    def visit_equal(self, literal) -> FileIndexResult:
        return self.visit_in([literal])

    def visit_not_equal(self, literal) -> FileIndexResult:
        return self.visit_not_in([literal])

    def visit_in(self, literals: Sequence) -> FileIndexResult:
        keys = self._keys(literals)
        if keys is None:
            return REMAIN
        return Rows(roaring.union(map(self._eq, keys)))

    def visit_not_in(self, literals: Sequence) -> FileIndexResult:
        keys = self._keys(literals)
        if keys is None:
            return REMAIN
        return Rows(self._not_null() - roaring.union(map(self._eq, keys)))

    def visit_less_than(self, literal) -> FileIndexResult:
        key = self._key(literal)
        return REMAIN if key is None else Rows(self._lt(key, False))

    def visit_less_or_equal(self, literal) -> FileIndexResult:
        key = self._key(literal)
        return REMAIN if key is None else Rows(self._lt(key, True))

    def visit_greater_than(self, literal) -> FileIndexResult:
        key = self._key(literal)
        return REMAIN if key is None else Rows(self._gt(key, False))

    def visit_greater_or_equal(self, literal) -> FileIndexResult:
        key = self._key(literal)
        return REMAIN if key is None else Rows(self._gt(key, True))

    def visit_between(self, low, high) -> FileIndexResult:
        keys = self._keys([low, high])
        if keys is None:
            return REMAIN
        return Rows(self._gt(keys[0], True) & self._lt(keys[1], True))

    def visit_top_n(self, limit: int, *, descending: bool, nulls_first: bool = False,
                    found: FrozenBitMap | None = None, strict: bool = True) -> FileIndexResult:
        """As the range-bitmap answers it (``FileIndexReader.visit_top_n``); REMAIN for TIMESTAMP(p > 6), whose
        keys, micros, tie rows a nanosecond apart."""
        top_n.check_limit(limit)
        if self.data_type.is_nano_timestamp:
            return REMAIN
        nulls = roaring.complement(self._not_null(), self.row_count)
        if found is not None:
            nulls = nulls & found
        return Rows(top_n.with_nulls(limit, nulls, lambda k: self._top_values(k, descending, found, strict),
                                     nulls_first=nulls_first, strict=strict))

    def _top_values(self, k: int, descending: bool, found: FrozenBitMap | None, strict: bool) -> FrozenBitMap:
        """The non-null rows first in the order: descending, the largest positive magnitudes, then the smallest
        negative ones; ascending, the largest negative magnitudes, then the smallest positive ones."""
        first, second = (self.positive, self.negative) if descending else (self.negative, self.positive)
        taken = self._half_top(first, k, True, found, strict)
        if len(taken) < k:
            taken = taken | self._half_top(second, k - len(taken), False, found, strict)
        return taken

    def _half_top(self, half: _Half, k: int, largest: bool, found: FrozenBitMap | None,
                  strict: bool) -> FrozenBitMap:
        return top_n.top_values(k, half.ebm, lambda i: self._slice(half, i), len(half.slices), largest=largest,
                                found=found, strict=strict)
