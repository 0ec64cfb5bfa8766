"""The ``bitmap`` index, versions 1 and 2 (spec §6): ``writer``, ``reader``, how each column type's
values are encoded, hashed and ordered (``keys``), the deep check (``check``) and the exhaustive check
(``exhaustive``).
"""

from fileindex.generated.bitmap import Bitmap
from fileindex.indexes.bitmap import check as _check
from fileindex.indexes.bitmap import exhaustive as _exhaustive
from fileindex.indexes.bitmap.keys import key_kind
from fileindex.indexes.bitmap.reader import BitmapReader
from fileindex.indexes.bitmap.writer import INDEX_TYPE, OPTIONS, build  # the package's API
from fileindex.indexes.index_type import IndexType, KeyedSpec

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = ("a bitmap keeps every distinct value with its rows; "
                  "on nearly unique values use bloom-filter for = and IN")


def layout(payload, options) -> str:
    """Counted by the version its body (or, unread, its options: Java's default is 2) says."""
    return f"bitmap v{payload[0] if payload else (options or {}).get('version', '2')}"


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, build, BitmapReader, _check.check,
    row_count_at=(1, "bitmap/header/row_count"),
    exact=frozenset({"eq", "in", "is_null", "is_not_null"}),
    extended=True,
    exact_extended=frozenset({"lt", "lte", "gt", "gte", "between"}),  # ranges from the sorted dictionary
    nano_timestamps_remain=True,  # apache/paimon #9654
    kaitai_spec=KeyedSpec(Bitmap, "bitmap", key_kind), layout=layout, exhaustive=_exhaustive.check,
    when_too_large=WHEN_TOO_LARGE,
)

__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "BitmapReader", "WHEN_TOO_LARGE"]
