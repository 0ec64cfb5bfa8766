"""Predicate literals: their SQL spelling, and conversion to a column's type (or a message why not)."""
from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from typing import Any

from fileindex.errors import UsageError
from fileindex.frozen import frozen
from fileindex.java.text import java_special_float_text
from fileindex.types import NUMERIC_BITS, DataType
from fileindex.values import DECIMAL_CONTEXT, Timestamp, float32

_EPOCH_DATE = dt.date(1970, 1, 1)


@frozen
class ZonedTimestamp:
    """A timestamp literal written with a UTC offset (``+00:00``, ``-05:30``, ``Z``): the instant ``utc``, a value
    of a TIMESTAMP WITH LOCAL TIME ZONE column; ``text`` as written, for a TIMESTAMP column's message."""

    utc: Timestamp
    text: str


class LiteralError(UsageError):
    """A literal refused: ``part``, the piece of its text at fault (an offset), for a caret to point at."""

    def __init__(self, message: str, *, part: str | None = None):
        super().__init__(message)
        self.part = part


# (patterns compiled by their first search, which re keeps: a predicate without a timestamp compiles neither, #54)
_OFFSET = r"(?i:Z|([+-])(\d{2}):?(\d{2}))$"
# what follows a clock where an offset goes, but is none (+00, +5:30, UTC, Europe/Paris): an offset misspelt
_NOT_AN_OFFSET = r"(?<=\d)\s*(?:[+-][\d:]*|[A-Za-z][\w/+:-]*)$"


def parse_timestamp_text(text: str, zoned: bool = True) -> Timestamp | ZonedTimestamp:
    """'YYYY-MM-DD HH:MM:SS[.fffffffff]' (or with T) → Timestamp, years 0001-9999; followed by an offset
    (``+HH:MM``, ``Z``, as ``read`` prints a LOCAL TIME ZONE value) → the instant, a ZonedTimestamp. ``zoned``
    False (for a TIMESTAMP column): any offset, well written or not, is refused saying to leave it out."""
    body = text.strip()
    offset = re.search(_OFFSET, body) if len(body) > 10 else None  # (a date alone: its - is no offset)
    if offset is not None:
        if not zoned:
            raise LiteralError(f"{text!r}: {without_offset(body[:offset.start()])}", part=offset.group())
        local = parse_timestamp_text(body[:offset.start()])
        assert isinstance(local, Timestamp)
        sign, hours, minutes = offset.groups()
        if hours is not None and (int(hours) * 60 + int(minutes) > 18 * 60 or int(minutes) > 59):
            raise LiteralError(f"{text!r}: the offset {offset.group()} is out of range: an offset runs from -18:00 to "
                               "+18:00 (minutes 00 to 59), or write Z for UTC", part=offset.group())
        shift = 0 if hours is None else (int(hours) * 60 + int(minutes)) * 60_000 * (-1 if sign == "-" else 1)
        return ZonedTimestamp(Timestamp(local.millis - shift, local.nanos_of_milli), text.strip())
    if body[10:11] in ("T", "t"):
        body = f"{body[:10]} {body[11:]}"
    date_part, _, time_part = body.partition(" ")
    zone = re.search(_NOT_AN_OFFSET, time_part)
    if zone is not None:
        before = f"{date_part} {time_part[:zone.start()]}"
        if not zoned:
            raise LiteralError(f"{text!r}: {without_offset(before)}", part=zone.group().strip())
        raise _misspelt_offset(text, before, zone.group().strip())
    try:
        day = dt.date.fromisoformat(date_part)
        seconds_part, _, fraction = (time_part or "00:00:00").partition(".")
        clock = dt.time.fromisoformat(seconds_part)
    except ValueError:
        raise UsageError(f"{text!r} is not a timestamp: write 'YYYY-MM-DD HH:MM:SS[.fffffffff]'") from None
    if fraction and (not fraction.isdigit() or len(fraction) > 9):
        raise UsageError(f"{text!r}: the fraction of a second takes 1 to 9 digits")
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    days = (day - _EPOCH_DATE).days
    millis = ((days * 86400 + clock.hour * 3600 + clock.minute * 60 + clock.second) * 1000) + nanos // 1_000_000
    return Timestamp(millis, nanos % 1_000_000)


def without_offset(local: str) -> str:
    """What to write instead of a timestamp with an offset, for a TIMESTAMP column (``local``: the text before it)."""
    return (f"a TIMESTAMP column has no time zone; write its wall-clock time without the offset, TIMESTAMP "
            f"'{local.strip()}' (an offset goes with a TIMESTAMP WITH LOCAL TIME ZONE column)")


def _misspelt_offset(text: str, local: str, written: str) -> LiteralError:
    """``written`` where an offset goes, but none: hours alone (+00, -5:30) or a zone's name (UTC); say to write
    +HH:MM or Z."""
    numeric = re.fullmatch(r"([+-])(\d{1,2}):?(\d{2})?", written)
    if numeric:
        meant = f"{numeric[1]}{int(numeric[2]):02d}:{numeric[3] or '00'}"
        return LiteralError(f"{text!r}: the offset {written} is written short: write +HH:MM (two digits each) or Z, "
                            f"as '{local}{meant}'", part=written)
    return LiteralError(f"{text!r}: {written} is not an offset (a zone's name is not read): write +HH:MM or Z, as "
                        f"'{local}+00:00' or '{local}Z' for UTC", part=written)


def timestamp_text(ts: Timestamp) -> str:
    millis, nanos = ts.millis, ts.nanos_of_milli
    days, rest = divmod(millis, 86_400_000)
    day = _EPOCH_DATE + dt.timedelta(days=days)
    seconds, milli = divmod(rest, 1000)
    clock = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    fraction = f"{milli * 1_000_000 + nanos:09d}".rstrip("0")
    return f"{day.isoformat()} {clock}" + (f".{fraction}" if fraction else "")


def date_days(value: Any) -> int:
    if isinstance(value, dt.date):
        return (value - _EPOCH_DATE).days
    if isinstance(value, str):
        try:
            return (dt.date.fromisoformat(value.strip()) - _EPOCH_DATE).days
        except ValueError:
            raise UsageError(f"{value!r} is not a date: write 'YYYY-MM-DD'") from None
    return value


# the days since 1970-01-01 of DATE '0001-01-01' and DATE '9999-12-31' (SQL's range of a DATE)
DATE_DAYS = (dt.date.min.toordinal() - _EPOCH_DATE.toordinal(),
             dt.date(9999, 12, 31).toordinal() - _EPOCH_DATE.toordinal())


class DateDaysError(LiteralError):
    """A whole number against a DATE beyond a DATE's days (taken as days since 1970-01-01, as Paimon stores a
    DATE): a date written as digits (20240101) most likely, which would match no row. ``days``: the number."""

    def __init__(self, days: int, column: str):
        spelt = spelt_date(days)
        super().__init__(f"literal {days} does not fit column {column} of type DATE: a whole number is days since "
                         f"1970-01-01 ({DATE_DAYS[0]} to {DATE_DAYS[1]}); give the date itself, as "
                         f"datetime.date({spelt.year}, {spelt.month}, {spelt.day}) or '{spelt.isoformat()}'")
        self.days = days


def spelt_date(number: int) -> dt.date:
    """The date ``number``'s digits spell as YYYYMMDD (20240131: 2024-01-31), else an example: 2024-01-31."""
    try:
        return dt.datetime.strptime(str(number), "%Y%m%d").date()
    except ValueError:
        return dt.date(2024, 1, 31)


class _Misfit(Exception):
    """A literal that does not fit its column: the parts of the message :func:`convert` raises."""

    def __init__(self, column: str, value: Any, data_type: DataType, why: str = "", part: str | None = None):
        super().__init__(column, value, data_type, why, part)
        self.column, self.value, self.data_type, self.why, self.part = column, value, data_type, why, part

    def error(self, written: str | None) -> LiteralError:
        shown = written or (sql_literal(self.value) if not isinstance(self.value, (list, tuple)) else repr(self.value))
        return LiteralError(f"literal {shown} does not fit column {self.column} of type {self.data_type}"
                            f"{': ' + self.why if self.why else ''}", part=self.part)


def convert(value: Any, data_type: DataType, column: str, written: str | None = None) -> Any:
    """The literal as a value of ``data_type`` (None stays None), or a UsageError naming column and value (the
    literal as ``written``, where the caller has its text)."""
    try:
        return _converted(value, data_type, column)
    except _Misfit as misfit:
        raise misfit.error(written) from None


def _converted(value: Any, data_type: DataType, column: str) -> Any:
    if value is None:
        return None
    root = data_type.root
    if root in NUMERIC_BITS:
        number = _exact_integer(value)
        bits = NUMERIC_BITS[root]
        if number is None:
            raise _Misfit(column, value, data_type, _number_hint(value, whole=True))
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if not low <= number <= high:
            raise _Misfit(column, value, data_type, f"out of range (it holds {low} to {high})")
        return number
    if root in ("FLOAT", "DOUBLE"):
        if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
            raise _Misfit(column, value, data_type, _number_hint(value, whole=False))
        real = float(value)
        if math.isinf(real) and not (isinstance(value, float) and math.isinf(value)):
            raise _Misfit(column, value, data_type, "out of range")
        if root == "DOUBLE":
            return real
        try:
            return float32(real)
        except OverflowError:  # Java's (float) gives Infinity: a literal that means it says so
            raise _Misfit(column, value, data_type, "out of range") from None
    if root == "DECIMAL":
        if isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal)):
            raise _Misfit(column, value, data_type, _number_hint(value, whole=False))
        return _decimal(value, data_type, column)
    if data_type.is_string:
        if not isinstance(value, str):
            raise _Misfit(column, value, data_type, "write a string in single quotes")
        return value
    if data_type.is_binary:
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
        if isinstance(value, str):
            return value.encode("utf-8", "surrogatepass")
        raise _Misfit(column, value, data_type)
    if root == "BOOLEAN":
        if not isinstance(value, bool):
            raise _Misfit(column, value, data_type, "write TRUE or FALSE")
        return value
    if root == "DATE":
        if isinstance(value, (dt.date, str)) and not isinstance(value, dt.datetime):
            return date_days(value)
        number = _exact_integer(value)
        if number is None:
            raise _Misfit(column, value, data_type, "write DATE 'YYYY-MM-DD'")
        if not DATE_DAYS[0] <= number <= DATE_DAYS[1]:
            raise DateDaysError(number, column)
        return number
    if root == "TIME":
        if isinstance(value, str):
            try:
                clock = dt.time.fromisoformat(value.strip())
            except ValueError:
                raise _Misfit(column, value, data_type, "write 'HH:MM:SS[.fff]'") from None
            return ((clock.hour * 60 + clock.minute) * 60 + clock.second) * 1000 + clock.microsecond // 1000
        number = _exact_integer(value)
        if number is None or not 0 <= number < 86_400_000:
            raise _Misfit(column, value, data_type)
        return number
    if data_type.is_timestamp:
        if isinstance(value, str):
            value = parse_timestamp_text(value, zoned=root == "TIMESTAMP_LTZ")
        if isinstance(value, ZonedTimestamp):
            if root == "TIMESTAMP_LTZ":
                return value.utc
            offset = re.search(_OFFSET, value.text)
            assert offset is not None  # (a ZonedTimestamp is one written with an offset)
            raise _Misfit(column, value, data_type, without_offset(value.text[:offset.start()]), offset.group())
        if isinstance(value, Timestamp):
            return value
        if isinstance(value, dt.datetime):
            return Timestamp.from_datetime(value)
        raise _Misfit(column, value, data_type, "write TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.fffffffff]'")
    raise _Misfit(column, value, data_type, "this type cannot be compared with a literal")


def _decimal(value: int | decimal.Decimal, data_type: DataType, column: str) -> decimal.Decimal:
    """A DECIMAL(p, s) literal: at scale s where it has s places or fewer; a finer one as it is, compared by
    value as SQL compares it (``d = 1.005`` on DECIMAL(10, 2) matches no row, ``d > 1.005`` matches 1.01 and up:
    ``fileindex.predicate.precision``). Refused: beyond the type's range once rounded to s places (as Paimon casts
    it), or past exact arithmetic's digits."""
    precision, scale = data_type.precision, data_type.scale
    assert precision is not None and scale is not None  # parse_type gives every DECIMAL both
    exact = decimal.Decimal(value)
    if not exact.is_finite() or exact.adjusted() + 1 + scale >= DECIMAL_CONTEXT.prec or \
            len(exact.as_tuple().digits) >= DECIMAL_CONTEXT.prec:
        raise _Misfit(column, value, data_type, "it needs more digits than the type has")
    quantum = decimal.Decimal(1).scaleb(-scale)
    limit = decimal.Decimal(10) ** (precision - scale)  # every value of the type lies strictly inside ±limit
    # Paimon casts a literal to its column's type (Decimal.fromBigDecimal): rounded half up to s places, and none
    # where that has more than p digits. So 99999999.995 on DECIMAL(10, 2) is out of range as 100000000 is.
    cast = exact.quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=DECIMAL_CONTEXT)
    if cast.copy_abs() >= limit:  # (abs() would round to the default context's 28 digits)
        largest = DECIMAL_CONTEXT.subtract(limit, quantum)
        if exact.copy_abs() >= limit:
            why = f"out of range (it holds -{largest} to {largest})"
        else:  # (inside the range as written, out of it once rounded)
            why = (f"out of range once rounded as Paimon casts it to the column's type (half up to {scale} places: "
                   f"{cast}; it holds -{largest} to {largest})")
        raise _Misfit(column, value, data_type, why)
    return cast if cast == exact else exact


def _number_hint(value: Any, *, whole: bool) -> str:
    """What to write for a numeric column: a number, without quotes where the string holds one."""
    wanted = "a whole number" if whole else "a number"
    if isinstance(value, str):
        try:
            quoted = decimal.Decimal(value.strip()).is_finite()
        except decimal.InvalidOperation:
            quoted = False
        if quoted:
            return f"write {value.strip()} without quotes"
    return f"write {wanted}"


def _exact_integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, decimal.Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    return None


def sql_literal(value: Any) -> str:
    """A literal in the predicate syntax; ``parse`` reads it back to the same value."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return java_special_float_text(value) or repr(value)  # repr of a finite float has a '.' or an 'e'
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, Timestamp):
        return f"TIMESTAMP '{timestamp_text(value)}'"
    if isinstance(value, ZonedTimestamp):
        return f"TIMESTAMP '{value.text}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, (bytes, bytearray)):
        return f"X'{bytes(value).hex()}'"
    return quote_string(str(value))


_ESCAPES = {"'": "''", "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def quote_string(text: str) -> str:
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"
