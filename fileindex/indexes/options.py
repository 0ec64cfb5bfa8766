"""Per-index option values as Paimon parses them (spec §2.2): integers, doubles, MemorySize."""
from __future__ import annotations

import math
import re
from collections.abc import Mapping

from fileindex.errors import UsageError
from fileindex.java_numbers import INT_MAX, INT_MIN, LONG_MAX

_UNITS = {
    "b": 1, "bytes": 1,
    "k": 1024, "kb": 1024, "kibibytes": 1024,
    "m": 1024**2, "mb": 1024**2, "mebibytes": 1024**2,
    "g": 1024**3, "gb": 1024**3, "gibibytes": 1024**3,
    "t": 1024**4, "tb": 1024**4, "tebibytes": 1024**4,
}
_JAVA_WHITESPACE = "".join(map(chr, range(0x21)))  # what String.trim() removes: every char <= ' '
# Double.parseDouble's grammar (after trim): NaN, Infinity, decimal or hexadecimal floating-point
# literals with an optional f/F/d/D suffix; ASCII digits only (no "nan", "inf", "1_0" or "١").
_JAVA_DOUBLE = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<special>NaN|Infinity)"
    r"|(?P<decimal>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?"
    r"|(?P<hex>0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)")
_JAVA_INT = re.compile(r"[+-]?\d+")  # Integer.parseInt: no trim; any Unicode decimal digits (Character.digit)


class OptionWarning(UserWarning):
    """An option Java accepts but reads as something other than it says (e.g. a size cast to an int)."""


def parse_memory_size(text: str, *, option: str = "size") -> int:
    """Paimon's ``MemorySize.parse``: trimmed, ASCII digits, then an optional case-insensitive unit
    (default bytes), the product a Java long."""
    trimmed = str(text).strip(_JAVA_WHITESPACE)
    digits = len(trimmed) - len(trimmed.lstrip("0123456789"))
    unit = trimmed[digits:].strip(_JAVA_WHITESPACE).lower()
    if not digits or unit not in _UNITS and unit != "":
        raise UsageError(
            f"{option}={text!r} is not a memory size: write digits and an optional unit "
            "(b, kb, mb, gb, tb; e.g. 16kb, '16 KB', 16384)"
        )
    value = int(trimmed[:digits]) * _UNITS.get(unit, 1)
    if int(trimmed[:digits]) > LONG_MAX or value > LONG_MAX:
        raise UsageError(f"{option}={text!r} is larger than a Java long")
    return value


def get_int(options: Mapping[str, str], key: str, default: int) -> int:
    """``Options.getInteger``: ``Integer.parseInt`` of the text as given (no trim)."""
    if key not in options:
        return default
    text = str(options[key])
    if not _JAVA_INT.fullmatch(text) or not INT_MIN <= int(text) <= INT_MAX:
        raise UsageError(f"option {key}={options[key]!r} must be a 32-bit integer (digits only, no spaces)")
    return int(text)


def get_double(options: Mapping[str, str], key: str, default: float) -> float:
    """``Options.getDouble``: ``Double.parseDouble`` (trimmed; Java's literal syntax, not Python's)."""
    if key not in options:
        return default
    return parse_java_double(str(options[key]), option=key)


def parse_java_double(text: str, *, option: str) -> float:
    match = _JAVA_DOUBLE.fullmatch(text.strip(_JAVA_WHITESPACE))
    if match is None:
        raise UsageError(f"option {option}={text!r} must be a number as Java writes one (e.g. 0.01, 1e-3, NaN, "
                         "Infinity)")
    negative = match["sign"] == "-"
    if match["special"]:
        value = math.nan if match["special"] == "NaN" else math.inf
    elif match["decimal"]:
        value = float(match["decimal"])
    else:
        value = float.fromhex(match["hex"])
    return -value if negative else value


def check_known(options: Mapping[str, str], known: tuple[str, ...], index_type: str) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise UsageError(
            f"unknown {index_type} option(s) {', '.join(unknown)}; known: {', '.join(known) or 'none'}"
        )
