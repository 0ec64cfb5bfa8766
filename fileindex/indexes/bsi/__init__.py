"""The ``bsi`` (bit-sliced) index (spec §7): writer and reader (``index``).
"""

from fileindex.indexes.bsi.index import (  # noqa: E402  the package's API
    INDEX_TYPE,
    OPTIONS,
    BsiReader,  # noqa: E402
    build,
)

__all__ = ["INDEX_TYPE", "OPTIONS", "build", "BsiReader"]
