"""How the ``bsi`` index (spec §7) sees a column's values: the types it supports, and each value as a
long (integers, DATE/TIME, DECIMAL's unscaled long, TIMESTAMP millis or micros).
"""
from __future__ import annotations

from fileindex import errors
from fileindex.arrow.values import split_nulls
from fileindex.types import NUMERIC_BITS, DataType


_SUPPORTED = set(NUMERIC_BITS) | {"DATE", "TIME", "DECIMAL", "TIMESTAMP", "TIMESTAMP_LTZ"}


def check_type(data_type: DataType) -> None:
    if data_type.root not in _SUPPORTED:
        raise errors.UnsupportedTypeError(f"bsi does not support {data_type} (Paimon refuses it too)")


def value_range(data_type: DataType) -> tuple[int, int]:
    """The smallest and largest long a column of ``data_type`` stores in a bsi."""
    bits = NUMERIC_BITS.get(data_type.root, 32 if data_type.root in ("DATE", "TIME") else 64)
    if data_type.root == "DECIMAL":
        return -(10 ** data_type.required_precision - 1), 10 ** data_type.required_precision - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def _keys(values, data_type: DataType):
    try:
        return split_nulls(values, data_type)
    except (OverflowError, ValueError) as err:
        raise errors.UsageError(f"a {data_type} value does not fit a long, which bsi needs: {err}") from None
