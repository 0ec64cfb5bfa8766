"""Column values as Paimon's index writers see them, and their mapping to index keys (spec §2.3).

Python values per type: integers for TINYINT..BIGINT, DATE (days) and TIME (millis of day);
``float`` for FLOAT/DOUBLE (FLOAT is rounded to binary32); ``str`` for CHAR/VARCHAR; ``bytes``
for BINARY/VARBINARY; ``bool``; ``decimal.Decimal`` for DECIMAL; :class:`Timestamp` (or a
``datetime``) for TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE; ``None`` for null.
"""
from __future__ import annotations

import datetime as dt
import decimal
import struct
from fileindex.frozen import frozen

from fileindex.errors import UsageError
from fileindex.java_numbers import LONG_MAX, LONG_MIN
from fileindex.java_numbers import double_to_long_bits as double_to_long_bits  # re-exported: the value API
from fileindex.java_numbers import float_to_int_bits as float_to_int_bits
from fileindex.types import NUMERIC_BITS, DataType

_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@frozen(order=True)
class Timestamp:
    """Paimon's ``Timestamp``: epoch milliseconds and nanoseconds within the millisecond [0, 999999]."""

    millis: int
    nanos_of_milli: int = 0

    def __post_init__(self):
        if not 0 <= self.nanos_of_milli <= 999_999:
            raise UsageError(f"nanos_of_milli must be in [0, 999999], not {self.nanos_of_milli}")

    @classmethod
    def from_datetime(cls, value: dt.datetime) -> Timestamp:
        """A naive datetime is wall-clock time (TIMESTAMP); an aware one is an instant (LTZ)."""
        delta = value - (_EPOCH_UTC if value.tzinfo else _EPOCH)
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return cls(micros // 1000, (micros % 1000) * 1000)

    @property
    def micros(self) -> int:
        # floor semantics: nanos_of_milli is non-negative, so -1 ms + 999999 ns is -1 µs
        return self.millis * 1000 + self.nanos_of_milli // 1000


def timestamp_key(value, precision: int) -> int:
    """TIMESTAMP(p) / LTZ(p) as indexes key them: epoch millis for p <= 3, epoch micros above."""
    ts = value if isinstance(value, Timestamp) else Timestamp.from_datetime(value)
    return ts.millis if precision <= 3 else ts.micros


# Exact arithmetic for DECIMAL(38, s) values and literals (38 digits either side of the point):
# Python's default context keeps 28 significant digits and raises InvalidOperation past them.
DECIMAL_CONTEXT = decimal.Context(prec=80, traps=[decimal.InvalidOperation, decimal.Overflow])


def decimal_unscaled(value, data_type: DataType) -> int:
    """The unscaled value of a DECIMAL(p, s) (``BigDecimal.unscaledValue``), rounding HALF_UP to scale s."""
    exact = decimal.Decimal(value)
    if not exact.is_finite() or exact.adjusted() + 1 + data_type.required_scale >= DECIMAL_CONTEXT.prec:
        raise UsageError(f"{value} does not fit {data_type}")
    scaled = exact.quantize(decimal.Decimal(1).scaleb(-data_type.required_scale), rounding=decimal.ROUND_HALF_UP,
                            context=DECIMAL_CONTEXT)
    sign, digits, _ = scaled.as_tuple()  # the exponent is -scale now: the digits are the unscaled value
    unscaled = int("".join(map(str, digits)))
    return -unscaled if sign else unscaled


def held_floor(value, data_type: DataType):
    """The largest value a column of ``data_type`` holds that is at most ``value``, as indexes key it: a TIMESTAMP
    cut to the column's millis (precision up to 3) or micros (up to 6), a DECIMAL to its scale; others as given."""
    if data_type.is_timestamp:
        ts = value if isinstance(value, Timestamp) else Timestamp.from_datetime(value)
        precision = data_type.required_precision
        unit = 1_000_000 if precision <= 3 else 1000 if precision <= 6 else 1
        extra = ts.nanos_of_milli % unit
        return Timestamp(ts.millis, ts.nanos_of_milli - extra) if extra else ts
    if data_type.root == "DECIMAL" and isinstance(value, decimal.Decimal) and value.is_finite():
        quantum = decimal.Decimal(1).scaleb(-data_type.required_scale)
        try:
            floor = value.quantize(quantum, rounding=decimal.ROUND_FLOOR, context=DECIMAL_CONTEXT)
        except decimal.InvalidOperation:  # more digits than exact arithmetic keeps: no index holds it either
            return value
        return value if floor == value else floor
    return value


def held_exactly(value, data_type: DataType) -> bool:
    """Whether indexes key ``value`` without rounding it to the column's type (``held_floor``)."""
    if data_type.is_timestamp and not isinstance(value, Timestamp):
        value = Timestamp.from_datetime(value)
    return held_floor(value, data_type) is value


def decimal_unscaled_long(value, data_type: DataType) -> int:
    """The unscaled long of a DECIMAL value, as Java's ``Decimal.toUnscaledLong`` (exact, or it throws)."""
    unscaled = decimal_unscaled(value, data_type)
    if not LONG_MIN <= unscaled <= LONG_MAX:
        raise UsageError(f"{data_type} value {value}: its unscaled value {unscaled} does not fit a long, which the "
                         "index keys on (Java's toUnscaledLong throws ArithmeticException for it: it refuses it too)")
    return unscaled


def float32(value: float) -> float:
    """Round to binary32 as Java's (float) cast does."""
    return struct.unpack(">f", struct.pack(">f", value))[0]


def utf8_key(value, data_type: DataType) -> bytes:
    """The bytes Paimon hashes and compares for a CHAR/VARCHAR value: UTF-8 of a str, or given bytes."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return binary_key(value, data_type)


def binary_key(value, data_type: DataType) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise UsageError(f"{data_type} value must be a {'str or ' if data_type.is_string else ''}bytes, not {value!r}")


def check_integer(value: int, data_type: DataType) -> int:
    bits = NUMERIC_BITS.get(data_type.root, 32)
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{data_type} value must be an integer, not {value!r}")
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise UsageError(f"{value} does not fit {data_type}")
    return value


def long_key(value, data_type: DataType) -> int:
    """The signed 64-bit integer that hashing (bloom) and bsi use for integer-like types."""
    root = data_type.root
    if root in NUMERIC_BITS or root in ("DATE", "TIME"):
        return check_integer(value, data_type)
    if data_type.is_timestamp:
        return timestamp_key(value, data_type.required_precision)
    if root == "DECIMAL":
        return decimal_unscaled_long(value, data_type)
    raise UsageError(f"{data_type} has no integer key")
