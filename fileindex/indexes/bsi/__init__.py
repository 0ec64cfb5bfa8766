"""The ``bsi`` (bit-sliced) index (spec §7): ``writer``, ``reader``, the values as longs (``keys``), the
deep check (``check``) and the exhaustive check (``exhaustive``). Each is imported when first used
(``fileindex.lazy``).
"""

from fileindex.indexes.index_type import IndexType
from fileindex.lazy import LazyFunction, lazy_exports

INDEX_TYPE = "bsi"
OPTIONS: tuple[str, ...] = ()  # Java's BitSliceIndexBitmapFileIndex takes none
_PACKAGE = "fileindex.indexes.bsi"

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "a bsi keeps a bitmap per bit of the values' range; use bloom-filter for = and IN, or no index"


def kaitai_spec(data_type):
    """The body's Kaitai reader (``fileindex explain``): its layout does not depend on the column type."""
    from fileindex.generated.bsi import Bsi

    return Bsi, "bsi"


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, LazyFunction(f"{_PACKAGE}.writer", "build"), LazyFunction(f"{_PACKAGE}.reader", "BsiReader"),
    LazyFunction(f"{_PACKAGE}.check", "check"),
    check_needs_type=False,  # its values are longs whatever the type (check.UNTYPED)
    row_count_at=(1, "bsi/header/row_count"),
    exact=frozenset({"eq", "neq", "in", "not_in", "lt", "lte", "gt", "gte", "between", "is_null", "is_not_null"}),
    nano_timestamps_remain=True,  # apache/paimon #9866
    kaitai_spec=kaitai_spec, exhaustive=LazyFunction(f"{_PACKAGE}.exhaustive", "check"),
    check_writable=LazyFunction(f"{_PACKAGE}.writer", "check_writable"),
    when_too_large=WHEN_TOO_LARGE,
)

__getattr__ = lazy_exports(_PACKAGE, {"build": f"{_PACKAGE}.writer", "BsiReader": f"{_PACKAGE}.reader"})
__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "BsiReader", "WHEN_TOO_LARGE"]
