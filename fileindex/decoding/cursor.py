"""Bounds-checked reads of byte ranges and record arrays from a payload, for the lazy readers'
bulk decoding (the counts and positions come from the generated readers).

Each read names its field; running past the end raises :class:`TruncatedError` and a negative size
raises :class:`InvalidLengthError`, both with the absolute offset (``base`` + position).
"""
from __future__ import annotations

import struct

from fileindex.errors import InvalidLengthError, InvalidOffsetError, TruncatedError
from fileindex.lazy import numpy as np


class PayloadCursor:
    """A position in a payload (``view``) that starts at ``base`` in the file, its fields named under ``root`` (a
    spec path)."""

    __slots__ = ("view", "base", "root", "position")

    def __init__(self, view: memoryview, *, base: int, root: str, position: int = 0):
        self.view, self.base, self.root, self.position = view, base, root, position

    def fail_truncated(self, field: str, needed: int) -> TruncatedError:
        return TruncatedError(
            f"input ends inside the field: {needed} bytes needed, {max(len(self.view) - self.position, 0)} left",
            offset=self.base + min(self.position, len(self.view)), field=f"{self.root}/{field}",
        )

    def take(self, size: int, field: str) -> memoryview:
        if not 0 <= self.position <= len(self.view):
            raise InvalidOffsetError(f"position {self.position} is outside the {len(self.view)}-byte payload",
                                     offset=self.base + min(max(self.position, 0), len(self.view)),
                                     field=f"{self.root}/{field}")
        if size < 0:
            raise InvalidLengthError(f"negative size {size}", offset=self.base + self.position,
                                     field=f"{self.root}/{field}")
        end = self.position + size
        if end > len(self.view):
            raise self.fail_truncated(field, size)
        chunk = self.view[self.position:end]
        self.position = end
        return chunk

    def records(self, dtype: np.dtype, count: int, field: str) -> np.ndarray:
        return np.frombuffer(self.take(count * dtype.itemsize, field), dtype=dtype, count=count)

    def integers(self, code: str, count: int, field: str) -> tuple[int, ...]:
        """``count`` big-endian integers of the ``struct`` format ``code`` ("i": i32), read without numpy (a
        few hundred at most: a cold read's handful of chunks or slices, where importing numpy costs more)."""
        return struct.unpack(f">{count}{code}", self.take(count * struct.calcsize(code), field))

    def absolute(self, position: int | None = None) -> int:
        """The absolute offset of a position, clamped to the payload (errors must point inside it)."""
        at = self.position if position is None else position
        return self.base + min(max(at, 0), len(self.view))


class PayloadOffsets:
    """Base of the lazy readers: the payload (``_view``), where it starts in the file (``_base``),
    and cursors whose fields are named under the reader's ``_root``."""

    _view: memoryview
    _base: int
    _root: str

    def _set_payload(self, payload, base_offset: int) -> None:
        self._view = memoryview(payload).cast("B")
        self._base = base_offset

    def _cursor(self, position: int = 0) -> PayloadCursor:
        return PayloadCursor(self._view, base=self._base, root=self._root, position=position)

    def _offset(self, position: int) -> int:
        """The absolute offset of a payload position, clamped to the payload (errors point inside it)."""
        return self._base + min(max(position, 0), len(self._view))
