"""The ``bitmap`` index, versions 1 and 2 (spec §6): ``writer``, ``reader``, how each column type's
values are encoded, hashed and ordered (``keys``), the deep check (``check``) and the exhaustive check
(``exhaustive``). Each is imported when first used (``fileindex.lazy``).
"""

from fileindex.indexes.index_type import IndexType, KeyedSpec
from fileindex.lazy import LazyFunction, lazy_exports

INDEX_TYPE = "bitmap"
OPTIONS = ("version", "index-block-size")
_PACKAGE = "fileindex.indexes.bitmap"

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = ("a bitmap keeps every distinct value with its rows; "
                  "on nearly unique values use bloom-filter for = and IN")


def layout(payload, options) -> str:
    """Counted by the version its body (or, unread, its options: Java's default is 2) says."""
    return f"bitmap v{payload[0] if payload else (options or {}).get('version', '2')}"


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, LazyFunction(f"{_PACKAGE}.writer", "build"),
    LazyFunction(f"{_PACKAGE}.reader", "BitmapReader"), LazyFunction(f"{_PACKAGE}.check", "check"),
    row_count_at=(1, "bitmap/header/row_count"),
    exact=frozenset({"eq", "in", "is_null", "is_not_null"}),
    extended=True,
    reads_by_parts=True,
    exact_extended=frozenset({"lt", "lte", "gt", "gte", "between"}),  # ranges from the sorted dictionary
    nano_timestamps_remain=True,  # apache/paimon #9654
    kaitai_spec=KeyedSpec(LazyFunction("fileindex.generated.bitmap", "Bitmap"), "bitmap",
                          LazyFunction(f"{_PACKAGE}.keys", "key_kind")),
    layout=layout, exhaustive=LazyFunction(f"{_PACKAGE}.exhaustive", "check"),
    check_writable=LazyFunction(f"{_PACKAGE}.writer", "check_writable"),
    when_too_large=WHEN_TOO_LARGE,
)

__getattr__ = lazy_exports(_PACKAGE, {"build": f"{_PACKAGE}.writer", "BitmapReader": f"{_PACKAGE}.reader"})
__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "BitmapReader", "WHEN_TOO_LARGE"]
