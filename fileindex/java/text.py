"""Java's ``toString`` of a double, a float and a ``LocalDateTime`` (Paimon's ``Timestamp``): how
Java prints predicate literals, and how the vectors' JSON spells floats."""
from __future__ import annotations


import datetime as dt
import decimal
import math

from fileindex.values import Timestamp
from fileindex.lazy import numpy as np


def java_float_text(value: float, single: bool) -> str:
    """``Double.toString`` / ``Float.toString``: the shortest digits, plain between 10^-3 and
    10^7, else ``d.dddE±n``."""
    special = java_special_float_text(value)
    if special is not None:
        return special
    shortest = str(np.float32(value)) if single else repr(value)
    sign, digit_tuple, exponent = decimal.Decimal(shortest).normalize().as_tuple()
    assert isinstance(exponent, int)  # a finite value (NaN and the infinities returned above)
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + exponent  # the decimal point sits after this many digits
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            whole, fraction = "0", "0" * -point + digits
        else:
            whole, fraction = (digits + "0" * point)[:point], digits[point:]
        text = f"{whole}.{fraction or '0'}"
    else:
        text = f"{digits[0]}.{digits[1:] or '0'}E{point - 1}"
    return ("-" if sign else "") + text


def java_special_float_text(value: float) -> str | None:
    """How Java writes NaN, the infinities and the zeros (``-0.0`` keeps its sign); None for any other value."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    return None


def local_date_time_text(value: Timestamp) -> str:
    """``LocalDateTime.toString``: seconds only when not zero (or a fraction follows), the fraction
    in 3, 6 or 9 digits."""
    days, rest = divmod(value.millis, 86_400_000)
    day = dt.date(1970, 1, 1) + dt.timedelta(days=days)
    seconds, milli = divmod(rest, 1000)
    nanos = milli * 1_000_000 + value.nanos_of_milli
    text = f"{day.isoformat()}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}"
    if seconds % 60 or nanos:
        text += f":{seconds % 60:02d}"
    if nanos:
        digits = 3 if nanos % 1_000_000 == 0 else 6 if nanos % 1000 == 0 else 9
        text += "." + f"{nanos:09d}"[:digits]
    return text
