"""The ``range-bitmap`` index (spec §8): writer and reader (``index``).
"""

from fileindex.indexes.range_bitmap.index import (  # noqa: E402  the package's API
    INDEX_TYPE,
    OPTIONS,
    RangeBitmapReader,  # noqa: E402
    build,
)

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = ("a range-bitmap keeps a dictionary of every distinct value; on nearly unique values use bsi for "
                  "ranges (integer, decimal, date and timestamp columns), bloom-filter for = and IN, or no index")

__all__ = ["INDEX_TYPE", "OPTIONS", "build", "RangeBitmapReader", "WHEN_TOO_LARGE"]
