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


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK32


def _mix_k(h: int, k: int) -> int:
    k = (k * 0xCC9E2D51) & _MASK32
    k = _rotl32(k, 15)
    k = (k * 0x1B873593) & _MASK32
    h ^= k
    h = _rotl32(h, 13)
    return (h * 5 + 0xE6546B64) & _MASK32


def binary_string_hash_code(data: bytes) -> int:
    """Paimon ``BinaryString.hashCode``: Murmur3-like, seed 42, over the UTF-8 bytes (spec §11).

    Whole 4-byte words are read little-endian (x86/ARM JVMs); each trailing byte is mixed on its
    own, sign-extended, which is not standard Murmur3 tail handling.
    """
    h = 42
    length = len(data)
    aligned = length - length % 4
    for (word,) in struct.iter_unpack("<I", data[:aligned]):
        h = _mix_k(h, word)
    for byte in data[aligned:]:
        h = _mix_k(h, (byte - 256 if byte >= 128 else byte) & _MASK32)
    h ^= length
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK32
    h ^= h >> 16
    return to_int32(h)


def long_hash_code(value: int) -> int:
    """``Long.hashCode``: (int)(v ^ (v >>> 32))."""
    value &= (1 << 64) - 1
    return to_int32(value ^ (value >> 32))
