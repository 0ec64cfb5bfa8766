"""Java hashCode functions that decide the byte order of Java-written files (spec §11)."""
from __future__ import annotations

import struct

_MASK32 = 0xFFFFFFFF


def to_int32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def string_hash_code(text: str) -> int:
    """``java.lang.String.hashCode``: ``31*h + c`` over UTF-16 code units, in int32."""
    h = 0
    units = text.encode("utf-16-be", "surrogatepass")
    for (unit,) in struct.iter_unpack(">H", units):
        h = (31 * h + unit) & _MASK32
    return to_int32(h)
