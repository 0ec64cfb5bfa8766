"""The ``range-bitmap`` index (spec §8): writer and reader (``index``).
"""

from fileindex.indexes.range_bitmap.index import (  # noqa: E402  the package's API
    INDEX_TYPE,
    OPTIONS,
    RangeBitmapReader,  # noqa: E402
    build,
)

__all__ = ["INDEX_TYPE", "OPTIONS", "build", "RangeBitmapReader"]
