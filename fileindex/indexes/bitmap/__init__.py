"""The ``bitmap`` index, versions 1 and 2 (spec §6): ``writer``, ``reader``, and how each column type's
values are encoded, hashed and ordered (``keys``).
"""

from fileindex.indexes.bitmap.reader import BitmapReader  # noqa: E402
from fileindex.indexes.bitmap.writer import INDEX_TYPE, OPTIONS, build  # noqa: E402  the package's API

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "a bitmap keeps every distinct value with its rows; on nearly unique values use bloom-filter for = and IN"

__all__ = ["INDEX_TYPE", "OPTIONS", "build", "BitmapReader", "WHEN_TOO_LARGE"]
