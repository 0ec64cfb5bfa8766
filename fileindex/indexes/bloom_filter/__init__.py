"""The ``bloom-filter`` index (spec §5): ``writer``, ``reader``, Java's sizing and the bit positions of a
hash (``keys``), sizing and fill math (``math``), the deep check (``check``) and the exhaustive check
(``exhaustive``).
"""

from fileindex.generated.bloom_filter import BloomFilter
from fileindex.indexes.bloom_filter import check as _check
from fileindex.indexes.bloom_filter import exhaustive as _exhaustive
from fileindex.indexes.bloom_filter.keys import INDEX_TYPE, OPTIONS  # the package's API
from fileindex.indexes.bloom_filter.math import configured_fpp, diagnose
from fileindex.indexes.bloom_filter.reader import BloomFilterReader
from fileindex.indexes.bloom_filter.writer import build
from fileindex.indexes.index_type import FilterSizing, IndexType

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "its size follows items and fpp, not the data: lower items (or raise fpp)"


def sizing(payload) -> tuple[str, str]:
    """(verdict, advice) on how the filter was sized for what it holds (``math.diagnose``)."""
    diagnosis = diagnose(payload)
    return diagnosis.verdict, diagnosis.advice


def kaitai_spec(data_type):
    """The body's Kaitai reader (``fileindex explain``): its layout does not depend on the column type."""
    return BloomFilter, "bloom_filter"


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, build, BloomFilterReader, _check.check,
    check_needs_type=False,
    check_last=True,  # its check compares the fill with the distinct count the column's other bodies give
    kaitai_spec=kaitai_spec, exhaustive=_exhaustive.check,
    filter_sizing=FilterSizing(diagnose, configured_fpp), sizing=sizing, when_too_large=WHEN_TOO_LARGE,
)

__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "BloomFilterReader", "WHEN_TOO_LARGE", "sizing"]
