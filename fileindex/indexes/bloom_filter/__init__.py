"""The ``bloom-filter`` index (spec §5): writer and reader (``index``), sizing and fill math (``math``).
"""

from fileindex.indexes.bloom_filter.index import (  # noqa: E402  the package's API
    INDEX_TYPE,
    OPTIONS,
    BloomFilterReader,  # noqa: E402
    build,
)

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "its size follows items and fpp, not the data: lower items (or raise fpp)"


def sizing(payload) -> tuple[str, str]:
    """(verdict, advice) on how the filter was sized for what it holds (``math.diagnose``)."""
    from fileindex.indexes.bloom_filter.math import diagnose

    diagnosis = diagnose(payload)
    return diagnosis.verdict, diagnosis.advice


__all__ = ["INDEX_TYPE", "OPTIONS", "build", "BloomFilterReader", "WHEN_TOO_LARGE", "sizing"]
