"""The ``bsi`` (bit-sliced) index (spec §7): writer and reader (``index``).
"""

from fileindex.indexes.bsi.index import (  # noqa: E402  the package's API
    INDEX_TYPE,
    OPTIONS,
    BsiReader,  # noqa: E402
    build,
)

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "a bsi keeps a bitmap per bit of the values' range; use bloom-filter for = and IN, or no index"

__all__ = ["INDEX_TYPE", "OPTIONS", "build", "BsiReader", "WHEN_TOO_LARGE"]
