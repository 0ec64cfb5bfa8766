"""fileindex.java_numbers against the answers Java 17 gives (recorded with tests/java/JavaNumbers.java;
tests/java_compat/test_java_numbers_live.py asks a live JDK about many more values)."""
import math
import pickle
import struct

import numpy as np
import pytest

from fileindex import java_numbers
from fileindex.java_numbers import DOUBLE, FLOAT


DOUBLE_CASTS = [  # value, (int) d, (long) d, Math.round(d)
    (0.0, 0, 0, 0),
    (-0.0, 0, 0, 0),
    (0.5, 0, 0, 1),
    (-0.5, 0, 0, 0),
    (1.5, 1, 1, 2),
    (-1.5, -1, -1, -1),
    (2.5, 2, 2, 3),
    (-2.5, -2, -2, -2),
    (3.7, 3, 3, 4),
    (-3.7, -3, -3, -4),
    (0.1, 0, 0, 0),
    (-0.1, 0, 0, 0),
    (0.49999999999999994, 0, 0, 0),
    (-0.49999999999999994, 0, 0, 0),
    (4503599627370497.0, 2147483647, 4503599627370497, 4503599627370497),
    (-4503599627370497.0, -2147483648, -4503599627370497, -4503599627370497),
    (2147483647.0, 2147483647, 2147483647, 2147483647),
    (2147483647.5, 2147483647, 2147483647, 2147483648),
    (2147483648.0, 2147483647, 2147483648, 2147483648),
    (-2147483648.0, -2147483648, -2147483648, -2147483648),
    (-2147483648.5, -2147483648, -2147483648, -2147483648),
    (-2147483649.0, -2147483648, -2147483649, -2147483649),
    (9.223372036854776e+18, 2147483647, 9223372036854775807, 9223372036854775807),
    (-9.223372036854776e+18, -2147483648, -9223372036854775808, -9223372036854775808),
    (1e+300, 2147483647, 9223372036854775807, 9223372036854775807),
    (-1e+300, -2147483648, -9223372036854775808, -9223372036854775808),
    (math.inf, 2147483647, 9223372036854775807, 9223372036854775807),
    (-math.inf, -2147483648, -9223372036854775808, -9223372036854775808),
    (math.nan, 0, 0, 0),
    (5e-324, 0, 0, 0),
    (-5e-324, 0, 0, 0),
]
INT_CASTS = [  # long, (int) long
    (0x0, 0),
    (0x1, 1),
    (-0x1, -1),
    (0x7fffffff, 2147483647),
    (0x80000000, -2147483648),
    (0xffffffff, -1),
    (0x100000000, 0),
    (-0x80000000, -2147483648),
    (-0x80000001, 2147483647),
    (0x7fffffffffffffff, -1),
    (-0x8000000000000000, 0),
    (0x123456789abcdef0, -1698898192),
    (-0x123456789abcdef0, 1698898192),
]
FLOAT_BITS = [  # raw bits, floatToIntBits
    (0x00000000, 0x0),
    (0x80000000, -0x80000000),
    (0x3f800000, 0x3f800000),
    (0xbf800000, -0x40800000),
    (0x00000001, 0x1),
    (0x7f7fffff, 0x7f7fffff),
    (0x7f800000, 0x7f800000),
    (0xff800000, -0x800000),
    (0x7fc00000, 0x7fc00000),
    (0x7fc00001, 0x7fc00000),
    (0xffc00000, 0x7fc00000),
    (0x7f800001, 0x7fc00000),
    (0xff800001, 0x7fc00000),
    (0x7fffffff, 0x7fc00000),
]
DOUBLE_BITS = [  # raw bits, doubleToLongBits
    (0x0000000000000000, 0x0),
    (0x8000000000000000, -0x8000000000000000),
    (0x3ff0000000000000, 0x3ff0000000000000),
    (0xbff0000000000000, -0x4010000000000000),
    (0x0000000000000001, 0x1),
    (0x7fefffffffffffff, 0x7fefffffffffffff),
    (0x7ff0000000000000, 0x7ff0000000000000),
    (0xfff0000000000000, -0x10000000000000),
    (0x7ff8000000000000, 0x7ff8000000000000),
    (0x7ff8000000000001, 0x7ff8000000000000),
    (0xfff8000000000000, 0x7ff8000000000000),
    (0x7ff0000000000001, 0x7ff8000000000000),
    (0xfff0000000000001, 0x7ff8000000000000),
    (0x7fffffffffffffff, 0x7ff8000000000000),
]


def _signed(bits: int, width: int) -> int:
    return bits - (1 << width) if bits >> (width - 1) else bits


@pytest.mark.parametrize(("value", "as_int", "as_long", "rounded"), DOUBLE_CASTS)
def test_double_casts_and_round_are_javas(value, as_int, as_long, rounded):
    assert java_numbers.double_to_int(value) == as_int
    assert java_numbers.double_to_long(value) == as_long
    assert java_numbers.math_round(value) == rounded


def test_array_forms_of_the_double_casts_and_round_are_javas():
    values = np.array([case[0] for case in DOUBLE_CASTS])
    for function, column in ((java_numbers.double_to_int_array, 1), (java_numbers.double_to_long_array, 2),
                             (java_numbers.math_round_array, 3)):
        result = function(values)
        assert result.dtype == np.int64
        assert result.tolist() == [case[column] for case in DOUBLE_CASTS], function.__name__


def test_int32_of_a_long_is_javas():
    assert [java_numbers.int32(value) for value, _ in INT_CASTS] == [expected for _, expected in INT_CASTS]
    in_range = [(value, expected) for value, expected in INT_CASTS if -(1 << 63) <= value < 1 << 63]
    result = java_numbers.int32_array(np.array([value for value, _ in in_range], dtype=np.int64))
    assert result.dtype == np.int64 and result.tolist() == [expected for _, expected in in_range]
    unsigned = np.array([0, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF], dtype=np.uint32)
    assert java_numbers.int32_array(unsigned).tolist() == [0, 2147483647, -2147483648, -1]


def test_int64_wraps_as_long_arithmetic():
    assert java_numbers.int64(java_numbers.LONG_MAX + 1) == java_numbers.LONG_MIN  # Long.MAX_VALUE + 1
    assert java_numbers.int64(java_numbers.LONG_MIN - 1) == java_numbers.LONG_MAX
    assert java_numbers.int64(-1 & 0xFFFFFFFFFFFFFFFF) == -1
    assert java_numbers.int64(java_numbers.LONG_MAX * 31) == 9223372036854775777  # Long.MAX_VALUE * 31


@pytest.mark.parametrize(("floating", "table", "pack"), [(FLOAT, FLOAT_BITS, ">I"), (DOUBLE, DOUBLE_BITS, ">Q")])
def test_canonical_nan_bits_are_javas(floating, table, pack):
    raw = [_signed(bits, floating.width) for bits, _ in table]
    expected = [java for _, java in table]
    assert [floating.canonical(bits) for bits in raw] == expected
    assert floating.canonical_array(np.array(raw, dtype=np.int64)).tolist() == expected
    assert [bool(floating.is_nan(bits)) for bits in raw] == [java == floating.canonical_nan for java in expected]
    values = np.array(raw, dtype=np.int64).astype(floating.numpy_int).view(floating.numpy_float)
    assert floating.bits_array(values).tolist() == expected
    non_nan = [bits for bits in raw if not floating.is_nan(bits)]
    assert floating.bits_array(values, canonical_nan=False)[: len(non_nan)].tolist() == non_nan
    float_format = ">f" if floating is FLOAT else ">d"
    for bits, java in zip(raw, expected, strict=True):
        value = struct.unpack(float_format, struct.pack(pack, bits & ((1 << floating.width) - 1)))[0]
        assert floating.to_bits(value) == java
        if not math.isnan(value):
            assert floating.to_raw_bits(value) == bits


def test_raw_bits_keep_a_nan_payload():
    payload = np.array([0x7FC00001], dtype=np.int32).view(np.float32)
    assert FLOAT.bits_array(payload, canonical_nan=False).tolist() == [0x7FC00001]
    assert FLOAT.bits_array(payload).tolist() == [FLOAT.canonical_nan]
    assert java_numbers.float_to_int_bits(math.nan) == 0x7FC00000
    assert java_numbers.double_to_long_bits(-math.nan) == 0x7FF8000000000000


# Float.compare / Double.compare order, ascending: -0.0 below 0.0, every NaN one value above +Infinity
ASCENDING = [-math.inf, -3.4028234663852886e38, -1.0, -1.401298464324817e-45, -0.0, 0.0, 1.401298464324817e-45, 1.0,
             3.4028234663852886e38, math.inf, math.nan]


@pytest.mark.parametrize("floating", [FLOAT, DOUBLE])
def test_compare_order_is_float_compares(floating):
    keys = [floating.compare_order(floating.to_bits(value)) for value in ASCENDING]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    array = floating.compare_order(floating.bits_array(np.array(ASCENDING)))
    assert array.tolist() == keys
    assert floating.compare_order(np.array(keys)).tolist() == [floating.to_bits(v) for v in ASCENDING]  # inverse
    back = [floating.from_bits(floating.compare_order(key)) for key in keys]
    assert [struct.pack(">d", v) for v in back[:-1]] == [struct.pack(">d", v) for v in ASCENDING[:-1]]  # -0.0 too
    assert math.isnan(back[-1])
    other_nan = floating.canonical(floating.canonical_nan | 1)
    assert floating.compare_order(other_nan) == keys[-1]


def test_float_and_double_pickle_with_what_holds_them():
    for floating in (FLOAT, DOUBLE):
        copy = pickle.loads(pickle.dumps(floating))
        assert copy == floating and copy.magnitude == floating.magnitude
        assert pickle.loads(pickle.dumps(floating.compare_order))(-1) == floating.compare_order(-1)
