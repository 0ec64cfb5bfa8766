"""Options as Java reads them: MemorySize, Integer.parseInt, Double.parseDouble, and range-bitmap's
chunk-size cast to an int (2gb: Java's writer throws; 4gb: what 0b writes), each with a warning."""
import math
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileindex.errors import UsageError
from fileindex.indexes import bitmap
from fileindex.indexes.bloom_filter.keys import bloom_parameters
from fileindex.indexes.bloom_filter.writer import BloomFilterWriter
from fileindex.indexes.options import OptionWarning, parse_java_double, parse_memory_size
from fileindex.java_numbers import int32
from fileindex.indexes.range_bitmap.writer import build as range_bitmap
from fileindex.types import parse_type

BIGINT = parse_type("BIGINT")
VALUES = list(range(3000)) + [None]


@pytest.mark.parametrize("size, same_as", [("4gb", "0b"), ("4294983680b", "16kb"), ("8gb", "0b"),
                                           ("4194304k", "0b"), ("2147483647b", "2147483647b")])
def test_a_chunk_size_past_an_int_wraps_as_java_casts_it_with_a_warning(size, same_as):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrapped = range_bitmap(VALUES, BIGINT, {"chunk-size": size})
    assert wrapped == range_bitmap(VALUES, BIGINT, {"chunk-size": same_as})
    wraps = parse_memory_size(size) >= 1 << 31
    assert [w.category for w in caught] == ([OptionWarning] if wraps else [])
    if wraps:
        assert f"casts to the int {int32(parse_memory_size(size))}" in str(caught[0].message)


@pytest.mark.parametrize("size", ["2gb", "3gb", "2147483648b", "6gb"])
def test_a_chunk_size_that_wraps_negative_fails_as_java_s_writer_does(size):
    with pytest.warns(OptionWarning, match="negative"), pytest.raises(UsageError, match="Java's writer fails"):
        range_bitmap(VALUES, BIGINT, {"chunk-size": size})
    with pytest.warns(OptionWarning):  # no value, no chunk: Java allocates nothing and writes the index
        assert range_bitmap([None, None], BIGINT, {"chunk-size": size}) == range_bitmap([None, None], BIGINT)


@pytest.mark.parametrize("text, size", [("16kb", 16384), ("16KB", 16384), (" 16 kb ", 16384), ("16\tKB", 16384),
                                        ("16384", 16384), ("0b", 0), ("1 tebibytes", 1 << 40),
                                        ("9223372036854775807", (1 << 63) - 1), ("0016k", 16384)])
def test_memory_sizes_java_reads(text, size):
    assert parse_memory_size(text) == size


@pytest.mark.parametrize("text", ["", "kb", "16 kib", "16\u2003kb", "\u00a016kb", "１６kb", "-16kb", "1.5kb",
                                  "9223372036854775808", "8589934592gb", "16 k b"])
def test_memory_sizes_java_refuses(text):
    with pytest.raises(UsageError, match="memory size|Java long"):
        parse_memory_size(text)


@pytest.mark.parametrize("text, value", [("0.1", 0.1), (" 0.1\n", 0.1), ("1e-2", 0.01), ("0.01d", 0.01),
                                         ("2F", 2.0), ("0x1p-7", 2**-7), ("0x.8p1", 1.0), ("-Infinity", -math.inf),
                                         (".5", 0.5), ("5.", 5.0), ("1e400", math.inf), ("-0", -0.0)])
def test_doubles_java_reads(text, value):
    assert parse_java_double(text, option="fpp") == value


@pytest.mark.parametrize("text", ["nan", "inf", "infinity", "1_0", "١", "0,1", "0x1", "1e", ".", "", "NaNd", "+-1"])
def test_doubles_java_refuses(text):
    with pytest.raises(UsageError, match="fpp"):
        parse_java_double(text, option="fpp")


@given(st.floats(allow_nan=False))
def test_every_double_java_prints_reads_back(value):
    assert parse_java_double(repr(value).replace("inf", "Infinity"), option="x") == value


@pytest.mark.parametrize("version", [" 1", "1 ", "0x1", "1.0"])
def test_integer_options_are_not_trimmed(version):
    with pytest.raises(UsageError, match="32-bit integer"):
        bitmap.build([1, 2], parse_type("INT"), {"version": version})
    assert bitmap.build([1, 2], parse_type("INT"), {"version": "+1"}) == \
        bitmap.build([1, 2], parse_type("INT"), {"version": "1"})


@pytest.mark.parametrize("items, fpp, bits", [(100, math.nan, 8), (100, -0.1, 8), (100, -math.inf, 8),
                                             (-100, 2.0, 152)])
def test_sizings_java_accepts_build_a_useless_filter_with_a_warning(items, fpp, bits):
    with pytest.warns(OptionWarning, match="rules little out"):
        sizing = bloom_parameters(items, fpp)
    assert (sizing.num_bits, sizing.num_hash_functions) == (bits, 1)  # as Java 0.9 builds them (the oracle test)
    with pytest.warns(OptionWarning):
        writer = BloomFilterWriter(BIGINT, {"items": str(items), "fpp": repr(fpp).replace("nan", "NaN")
                                            .replace("inf", "Infinity")})
    assert writer.parameters == sizing
