"""The ``range-bitmap`` index (spec §8): ``writer``, ``reader``, the key kinds and sort order (``keys``),
the deep check (``check``) and the exhaustive check (``exhaustive``).
"""

from fileindex.generated.range_bitmap import RangeBitmap
from fileindex.indexes.index_type import IndexType, KeyedSpec
from fileindex.indexes.range_bitmap import check as _check
from fileindex.indexes.range_bitmap import exhaustive as _exhaustive
from fileindex.indexes.range_bitmap.keys import INDEX_TYPE, OPTIONS, key_kind  # the package's API
from fileindex.indexes.range_bitmap.reader import RangeBitmapReader
from fileindex.indexes.range_bitmap.writer import build

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = ("a range-bitmap keeps a dictionary of every distinct value; on nearly unique values use bsi for "
                  "ranges (integer, decimal, date and timestamp columns), bloom-filter for = and IN, or no index")


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, build, RangeBitmapReader, _check.check,
    row_count_at=(5, "range_bitmap/header/row_count"),
    exact=frozenset({"eq", "neq", "in", "not_in", "lt", "lte", "gt", "gte", "between", "is_null", "is_not_null"}),
    kaitai_spec=KeyedSpec(RangeBitmap, "range_bitmap", key_kind), exhaustive=_exhaustive.check,
    when_too_large=WHEN_TOO_LARGE,
)

__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "RangeBitmapReader", "WHEN_TOO_LARGE"]
