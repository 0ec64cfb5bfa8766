"""How the bitmap index encodes, hashes and orders the values of each column type (spec §6.1).

A key is the Python form of Java's map key: ``int`` for TINYINT..BIGINT, DATE, TIME and
TIMESTAMP (millis or micros), the ``floatToIntBits``/``doubleToLongBits`` integer for FLOAT and
DOUBLE (so -0.0 and 0.0 differ and all NaNs are one key), ``bool``, and UTF-8 ``bytes`` for
CHAR/VARCHAR. ``hash_code`` is the boxed Java object's hashCode (``BinaryString.hashCode`` for
strings), which decides HashMap order; ``sort_key`` gives the V2 comparator's order
(signed integers, ``Float.compare``, unsigned byte-lexicographic strings).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TYPE_CHECKING, TypeVar

import pyarrow as pa

from fileindex.arrow.values import integer_key
from fileindex.errors import UnsupportedTypeError, UsageError
from fileindex.frozen import frozen
from fileindex.java.hash import binary_string_hash_code, long_hash_code
from fileindex.java_numbers import DOUBLE, FLOAT, FloatingBits, int32, int32_array
from fileindex.lazy import LazyModule, numpy as np
from fileindex.types import DataType
from fileindex.values import utf8_key

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = LazyModule("pyarrow.compute")  # imported when first used: importing this module stays light


Key = TypeVar("Key", int, bytes)  # a fixed-width key (bool is an int), or a string's UTF-8 bytes


@frozen
class KeyKind(Generic[Key]):
    name: str  # the key_kind enum of specs/bitmap.ksy
    code: int
    dtype: str | None  # big-endian numpy dtype of a fixed-width key; None for strings
    hash_code: Callable[[Key], int]
    sort_key: Callable[[Key], Key]
    floating: FloatingBits | None = None  # FLOAT and DOUBLE: the key is these IEEE bits

    @property
    def width(self) -> int | None:
        return int(self.dtype[2:]) if self.dtype else None  # (">i4": 4 bytes; without numpy's dtype)

    @property
    def struct_code(self) -> str:
        """The ``struct`` format character of a fixed-width kind's keys (big-endian with ">")."""
        if self.dtype is None:
            raise UsageError(f"{self.name} keys have no fixed width")
        return _STRUCT_CODES[self.dtype[1:]]

    @property
    def fixed_width(self) -> int:
        """The byte width of a fixed-width kind's keys (every kind but strings)."""
        if self.dtype is None:
            raise UsageError(f"{self.name} keys have no fixed width")
        return int(self.dtype[2:])

    def compare(self, a, b) -> int:
        ka, kb = self.sort_key(a), self.sort_key(b)
        return (ka > kb) - (ka < kb)

    def sort_keys(self, keys: np.ndarray) -> np.ndarray:
        """Vectorized ``sort_key`` for fixed-width keys held in an int64 array."""
        return self.floating.compare_order(keys) if self.floating else keys

    def hash_codes(self, keys: np.ndarray) -> np.ndarray:
        """Vectorized ``hash_code`` for fixed-width keys held in an int64 array (int32 values)."""
        if self.name in ("i8", "f8"):  # Long.hashCode / Double.hashCode: (int)(v ^ (v >>> 32))
            return int32_array(keys ^ (keys.view(np.uint64) >> np.uint64(32)).view(np.int64))
        if self.name == "boolean":
            return np.where(keys != 0, 1231, 1237).astype(np.int64)
        return keys.astype(np.int64)  # Integer/Short/Byte.hashCode, and floatToIntBits for FLOAT

    def encoded_size(self, key: Key) -> int:
        return 4 + len(key) if isinstance(key, bytes) else self.fixed_width

    def encode(self, key: Key) -> bytes:
        if isinstance(key, bytes):  # a string's key
            return len(key).to_bytes(4, "big") + key
        if self.name == "boolean":
            return b"\x01" if key else b"\x00"
        return int(key).to_bytes(self.fixed_width, "big", signed=True)


_STRUCT_CODES = {"i1": "b", "i2": "h", "i4": "i", "i8": "q", "u1": "B"}


def _identity(key):
    return key


KINDS: dict[str, KeyKind] = {
    "i1": KeyKind("i1", 1, ">i1", int, _identity),
    "i2": KeyKind("i2", 2, ">i2", int, _identity),
    "i4": KeyKind("i4", 4, ">i4", int, _identity),
    "i8": KeyKind("i8", 8, ">i8", long_hash_code, _identity),
    "f4": KeyKind("f4", 36, ">i4", int32, FLOAT.compare_order, FLOAT),
    "f8": KeyKind("f8", 72, ">i8", long_hash_code, DOUBLE.compare_order, DOUBLE),
    "boolean": KeyKind("boolean", 16, ">u1", lambda b: 1231 if b else 1237, int),
    "string": KeyKind("string", 32, None, binary_string_hash_code, _identity),
}

_FIXED = {"TINYINT": "i1", "SMALLINT": "i2", "INT": "i4", "DATE": "i4", "TIME": "i4", "BIGINT": "i8",
          "TIMESTAMP": "i8", "TIMESTAMP_LTZ": "i8", "FLOAT": "f4", "DOUBLE": "f8", "BOOLEAN": "boolean"}


def key_kind(data_type: DataType) -> KeyKind:
    if data_type.is_string:
        return KINDS["string"]
    if data_type.root in _FIXED:
        return KINDS[_FIXED[data_type.root]]
    raise UnsupportedTypeError(f"bitmap does not support {data_type} (Paimon refuses it too)")


def key_of(value, data_type: DataType):
    """The map key of one non-null value."""
    if data_type.is_string:
        return utf8_key(value, data_type)
    if data_type.root == "BOOLEAN":
        return bool(value)
    return integer_key(value, data_type)


def string_codes(values, data_type: DataType):
    """A string column dictionary-encoded: (valid mask, code of each valid row, distinct keys).

    Codes are int64 in order of first occurrence; the distinct keys are a binary Arrow array (the
    UTF-8 bytes). Arrow input is encoded with its hash kernel (:func:`arrow_string_codes`); a Python
    list goes through a dict.
    """
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        indices, dictionary = arrow_string_codes(values)
        valid = np.asarray(indices.is_valid(), dtype=bool)
        codes = indices.fill_null(0).to_numpy(zero_copy_only=False)[valid].astype(np.int64)
        return valid, codes, dictionary
    valid = np.array([v is not None for v in values], dtype=bool)
    index: dict[bytes, int] = {}
    codes = np.array([index.setdefault(key_of(v, data_type), len(index)) for v in values if v is not None],
                     dtype=np.int64)
    return valid, codes, pa.array(list(index), type=pa.binary())


def arrow_string_codes(values: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """An Arrow string column dictionary-encoded by Arrow's hash kernel, nulls and all, without copying
    the strings: (the code of each row, null where the row is, in order of first occurrence; the
    distinct keys as a binary array of their UTF-8 bytes)."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    encoded = pc.dictionary_encode(array)
    dictionary = encoded.dictionary
    wide = pa.types.is_large_string(dictionary.type) or pa.types.is_large_binary(dictionary.type)
    return encoded.indices, dictionary.cast(pa.large_binary() if wide else pa.binary())
