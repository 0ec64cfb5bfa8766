"""The ``bloom-filter`` index (spec §5): writer and reader (``index``), sizing and fill math (``math``).
"""

from fileindex.indexes.bloom_filter.index import (  # noqa: E402  the package's API
    INDEX_TYPE,
    OPTIONS,
    BloomFilterReader,  # noqa: E402
    build,
)

__all__ = ["INDEX_TYPE", "OPTIONS", "build", "BloomFilterReader"]
