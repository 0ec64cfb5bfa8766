"""Per-index option values as Paimon parses them (spec §2.2): integers, doubles, MemorySize."""
from __future__ import annotations

import re
from typing import Mapping

from fileindex.errors import UsageError

_UNITS = {
    "b": 1, "bytes": 1,
    "k": 1024, "kb": 1024, "kibibytes": 1024,
    "m": 1024**2, "mb": 1024**2, "mebibytes": 1024**2,
    "g": 1024**3, "gb": 1024**3, "gibibytes": 1024**3,
    "t": 1024**4, "tb": 1024**4, "tebibytes": 1024**4,
}
_MEMORY_SIZE = re.compile(r"(\d+)\s*([A-Za-z]*)")
_JAVA_LONG_MAX = (1 << 63) - 1


def parse_memory_size(text: str, *, option: str = "size") -> int:
    """Paimon's ``MemorySize.parse``: digits, then an optional case-insensitive unit (default bytes)."""
    match = _MEMORY_SIZE.fullmatch(str(text).strip())
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNITS and unit != "":
        raise UsageError(
            f"{option}={text!r} is not a memory size: write digits and an optional unit "
            "(b, kb, mb, gb, tb; e.g. 16kb, '16 KB', 16384)"
        )
    value = int(match.group(1)) * _UNITS.get(unit, 1)
    if value > _JAVA_LONG_MAX:
        raise UsageError(f"{option}={text!r} is larger than a Java long")
    return value


def get_int(options: Mapping[str, str], key: str, default: int) -> int:
    if key not in options:
        return default
    text = str(options[key]).strip()
    if not re.fullmatch(r"[+-]?\d+", text) or not -(1 << 31) <= int(text) < (1 << 31):
        raise UsageError(f"option {key}={options[key]!r} must be a 32-bit integer")
    return int(text)


def get_double(options: Mapping[str, str], key: str, default: float) -> float:
    if key not in options:
        return default
    try:
        return float(str(options[key]).strip())
    except ValueError:
        raise UsageError(f"option {key}={options[key]!r} must be a number") from None


def check_known(options: Mapping[str, str], known: tuple[str, ...], index_type: str) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise UsageError(
            f"unknown {index_type} option(s) {', '.join(unknown)}; known: {', '.join(known) or 'none'}"
        )
