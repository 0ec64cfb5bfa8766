"""How the ``range-bitmap`` index (spec §8) orders a column's values: the key kind of each type, the
sort key of a value (``Float.compare``/``Double.compare`` order for floats), and the dictionary's
chunk size.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping

from fileindex import errors
from fileindex.arrow.values import integer_key
from fileindex.indexes.bitmap.keys import KINDS, KeyKind
from fileindex.indexes.range_bitmap import INDEX_TYPE, OPTIONS
from fileindex.indexes.options import OptionWarning, check_known, parse_memory_size
from fileindex.java_numbers import int32
from fileindex.types import DataType
from fileindex.values import utf8_key
from fileindex.lazy import numpy as np


_KINDS = {"TINYINT": "i1", "SMALLINT": "i2", "INT": "i4", "DATE": "i4", "TIME": "i4", "BIGINT": "i8",
          "DECIMAL": "i8", "TIMESTAMP": "i8", "TIMESTAMP_LTZ": "i8", "FLOAT": "f4", "DOUBLE": "f8",
          "BOOLEAN": "boolean"}


_ZERO_CHUNK_DEFAULT = ("TINYINT", "SMALLINT", "BOOLEAN")


def key_kind(data_type: DataType) -> KeyKind:
    if data_type.is_string:
        return KINDS["string"]
    if data_type.root == "DECIMAL" and data_type.required_precision > 18:
        raise errors.UnsupportedTypeError(
            f"range-bitmap supports DECIMAL with a precision in [0, 18], not {data_type} (as Java): use bsi")
    if data_type.is_nano_timestamp:
        raise errors.UnsupportedTypeError(
            f"range-bitmap supports TIMESTAMP with a precision in [0, 6], not {data_type} (as Java)")
    if data_type.root not in _KINDS:
        raise errors.UnsupportedTypeError(f"range-bitmap does not support {data_type} (Paimon refuses it too)")
    return KINDS[_KINDS[data_type.root]]


def chunk_size(data_type: DataType, options: Mapping[str, str] | None) -> int:
    """The chunk limit Java's writer uses: ``(int) MemorySize.parse(chunk-size).getBytes()``, so a
    size of 2 GiB or more wraps (4gb is 0b); a negative limit fails once a chunk is made (``build``)."""
    options = options or {}
    check_known(options, OPTIONS, INDEX_TYPE)
    default = "0b" if data_type.root in _ZERO_CHUNK_DEFAULT else "16kb"
    text = options.get("chunk-size", default)
    size = parse_memory_size(text, option="chunk-size")
    limit = int32(size)
    if limit != size:
        effect = f"the same as chunk-size={limit}b" if limit >= 0 else "a negative size, which its writer fails on"
        warnings.warn(f"range-bitmap chunk-size={text!r} is {size} bytes, which Java casts to the int {limit}: "
                      f"{effect}; use at most 2147483647 bytes", OptionWarning, stacklevel=3)
    return limit


def sort_key(kind: KeyKind, key):
    """Java's comparator order: Float/Double.compare treats every NaN as one value, above +inf."""
    return kind.sort_key(kind.floating.canonical(key) if kind.floating else key)


def sort_keys(kind: KeyKind, keys: np.ndarray) -> np.ndarray:
    return kind.sort_keys(kind.floating.canonical_array(keys) if kind.floating else keys)


def key_of(value, data_type: DataType):
    if data_type.is_string:
        return utf8_key(value, data_type)
    return integer_key(value, data_type, canonical_nan=False)
