"""The ``bsi`` (bit-sliced) index (spec §7): ``writer``, ``reader``, the values as longs (``keys``), the
deep check (``check``) and the exhaustive check (``exhaustive``).
"""

from fileindex.generated.bsi import Bsi
from fileindex.indexes.bsi import check as _check
from fileindex.indexes.bsi import exhaustive as _exhaustive
from fileindex.indexes.bsi.reader import BsiReader
from fileindex.indexes.bsi.writer import INDEX_TYPE, OPTIONS, build  # the package's API
from fileindex.indexes.index_type import IndexType

# what to use instead when an index costs more than it can save (fileindex.indexes.advice)
WHEN_TOO_LARGE = "a bsi keeps a bitmap per bit of the values' range; use bloom-filter for = and IN, or no index"


def kaitai_spec(data_type):
    """The body's Kaitai reader (``fileindex explain``): its layout does not depend on the column type."""
    return Bsi, "bsi"


INDEX = IndexType(
    INDEX_TYPE, OPTIONS, build, BsiReader, _check.check,
    row_count_at=(1, "bsi/header/row_count"),
    exact=frozenset({"eq", "neq", "in", "not_in", "lt", "lte", "gt", "gte", "between", "is_null", "is_not_null"}),
    nano_timestamps_remain=True,  # apache/paimon #9866
    kaitai_spec=kaitai_spec, exhaustive=_exhaustive.check, when_too_large=WHEN_TOO_LARGE,
)

__all__ = ["INDEX", "INDEX_TYPE", "OPTIONS", "build", "BsiReader", "WHEN_TOO_LARGE"]
