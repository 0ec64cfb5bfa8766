"""Java hashCode functions that decide the byte order of Java-written files (spec §11)."""
from __future__ import annotations

import struct

from fileindex.java.string_buffers import map_by_length, unaligned
from fileindex.java_numbers import int32, int32_array
from fileindex.lazy import numpy as np


_MASK32 = 0xFFFFFFFF


def string_hash_code(text: str) -> int:
    """``java.lang.String.hashCode``: ``31*h + c`` over UTF-16 code units, in int32."""
    h = 0
    units = text.encode("utf-16-be", "surrogatepass")
    for (unit,) in struct.iter_unpack(">H", units):
        h = (31 * h + unit) & _MASK32
    return int32(h)


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
    return int32(h)


_C1, _C2, _M1, _M2 = 0xCC9E2D51, 0x1B873593, 0x85EBCA6B, 0xC2B2AE35  # (numpy uint32 where used: numpy is imported late)
_SMALL_GROUP = 32  # below this many strings of one length, the scalar function is faster


def _rotl32_array(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint32(r)) | (x >> np.uint32(32 - r))


def _binary_string_hash_rows(data: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    """``binary_string_hash_code`` of the ``length`` bytes at each of ``starts``, as uint32, all at once."""
    words = unaligned(data, "<u4")
    h = np.full(len(starts), 42, dtype=np.uint32)
    c1, c2, m1, m2 = (np.uint32(c) for c in (_C1, _C2, _M1, _M2))

    def mix(h: np.ndarray, k: np.ndarray) -> np.ndarray:
        k = _rotl32_array(k * c1, 15) * c2
        return _rotl32_array(h ^ k, 13) * np.uint32(5) + np.uint32(0xE6546B64)

    aligned = length - length % 4
    for offset in range(0, aligned, 4):
        h = mix(h, words[starts + offset])
    for offset in range(aligned, length):
        h = mix(h, data[starts + offset].view(np.int8).astype(np.int32).view(np.uint32))  # sign-extended byte
    h ^= np.uint32(length)
    h ^= h >> np.uint32(16)
    h *= m1
    h ^= h >> np.uint32(13)
    h *= m2
    h ^= h >> np.uint32(16)
    return h


def binary_string_hash_codes(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``binary_string_hash_code`` of each ``data[offsets[i]:offsets[i+1]]``, as int32 values in an int64 array."""
    hashes = map_by_length(data, offsets, rows=_binary_string_hash_rows,
                           one=lambda b: binary_string_hash_code(bytes(b)) & _MASK32, small_group=_SMALL_GROUP,
                           dtype=np.uint32)
    return int32_array(hashes)


def long_hash_code(value: int) -> int:
    """``Long.hashCode``: (int)(v ^ (v >>> 32))."""
    value &= (1 << 64) - 1
    return int32(value ^ (value >> 32))
