"""The ``range-bitmap`` index (spec §8): ``writer``, ``reader``, the key kinds and sort order (``keys``),
the deep check (``check``) and the exhaustive check (``exhaustive``). Each is imported when first used
(``fileindex.lazy``).
"""

from fileindex.indexes.index_type import IndexType, KeyedSpec
from fileindex.lazy import LazyFunction, lazy_exports

INDEX_TYPE = "range-bitmap"
OPTIONS = ("chunk-size",)
_PACKAGE = "fileindex.indexes.range_bitmap"

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = ("a range-bitmap keeps a dictionary of every distinct value; on nearly unique values use bsi for "
                  "ranges (integer, decimal, date and timestamp columns), bloom-filter for = and IN, or no index")


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, LazyFunction(f"{_PACKAGE}.writer", "build"),
    LazyFunction(f"{_PACKAGE}.reader", "RangeBitmapReader"), LazyFunction(f"{_PACKAGE}.check", "check"),
    row_count_at=(5, "range_bitmap/header/row_count"),
    exact=frozenset({"eq", "neq", "in", "not_in", "lt", "lte", "gt", "gte", "between", "is_null", "is_not_null"}),
    kaitai_spec=KeyedSpec(LazyFunction("fileindex.generated.range_bitmap", "RangeBitmap"), "range_bitmap",
                          LazyFunction(f"{_PACKAGE}.keys", "key_kind")),
    exhaustive=LazyFunction(f"{_PACKAGE}.exhaustive", "check"),
    check_writable=LazyFunction(f"{_PACKAGE}.writer", "check_writable"),
    when_too_large=WHEN_TOO_LARGE,
)

__getattr__ = lazy_exports(_PACKAGE, {"build": f"{_PACKAGE}.writer", "RangeBitmapReader": f"{_PACKAGE}.reader"})
__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "RangeBitmapReader", "WHEN_TOO_LARGE"]
