"""The ``bloom-filter`` index (spec §5): ``writer``, ``reader``, Java's sizing and the bit positions of a
hash (``keys``), sizing and fill math (``math``), the deep check (``check``) and the exhaustive check
(``exhaustive``). Each is imported when first used (``fileindex.lazy``).
"""

from fileindex.indexes.index_type import FilterSizing, IndexType
from fileindex.lazy import LazyFunction, lazy_exports

INDEX_TYPE = "bloom-filter"
OPTIONS = ("items", "fpp")
_PACKAGE = "fileindex.indexes.bloom_filter"

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "its size follows items and fpp, not the data: lower items (or raise fpp)"

_diagnose = LazyFunction(f"{_PACKAGE}.math", "diagnose")


def sizing(payload, options=None) -> tuple[str, str]:
    """(verdict, advice) on how the filter was sized for what it holds (``math.diagnose``; ``options``: those it
    was built with, where known)."""
    diagnosis = _diagnose(payload, options)
    return diagnosis.verdict, diagnosis.advice


def kaitai_spec(data_type):
    """The body's Kaitai reader (``fileindex explain``): its layout does not depend on the column type."""
    from fileindex.generated.bloom_filter import BloomFilter

    return BloomFilter, "bloom_filter"


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, LazyFunction(f"{_PACKAGE}.writer", "build"),
    LazyFunction(f"{_PACKAGE}.reader", "BloomFilterReader"), LazyFunction(f"{_PACKAGE}.check", "check"),
    check_needs_type=False,
    check_last=True,  # its check compares the fill with the distinct count the column's other bodies give
    kaitai_spec=kaitai_spec, exhaustive=LazyFunction(f"{_PACKAGE}.exhaustive", "check"),
    check_writable=LazyFunction(f"{_PACKAGE}.writer", "check_writable"),
    filter_sizing=FilterSizing(_diagnose, LazyFunction(f"{_PACKAGE}.math", "configured_fpp")), sizing=sizing,
    when_too_large=WHEN_TOO_LARGE,
)

__getattr__ = lazy_exports(_PACKAGE, {"build": f"{_PACKAGE}.writer", "BloomFilterReader": f"{_PACKAGE}.reader"})
__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "BloomFilterReader", "WHEN_TOO_LARGE", "sizing"]
