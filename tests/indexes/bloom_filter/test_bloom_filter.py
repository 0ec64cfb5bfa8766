"""Bloom filter: golden values, a scalar reference of Java's algorithm, no false negatives, bloom math."""
import math
import random

import numpy as np
import pyarrow as pa
import pytest
from conftest import ROOT, golden
from hypothesis import given
from hypothesis import strategies as st

from fileindex.container.file import FileIndexContainer
from fileindex.errors import (
    InvalidLengthError,
    TruncatedError,
    UnsupportedTypeError,
    UsageError,
)
from fileindex.indexes import bloom_filter
from fileindex.indexes.bloom_filter.keys import bloom_parameters
from fileindex.indexes.bloom_filter.reader import BloomFilterReader
from fileindex.indexes.bloom_filter.writer import BloomFilterWriter, build
from fileindex.indexes.bloom_filter.math import (
    advise,
    diagnose,
    estimated_items,
    false_positive_rate,
)
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.java.fast_hash import hash_value
from fileindex.java_numbers import int32
from fileindex.types import parse_type
from fileindex.values import Timestamp, float32

GOLDEN = golden()


@pytest.mark.parametrize("name, value", [(k, v) for k, v in GOLDEN.items() if k.startswith("bloom.params")])
def test_sizing_golden(name, value):
    items, fpp = (part.split("=")[1] for part in name[len("bloom.params("):-1].split(","))
    sizing = bloom_parameters(int(items), float(fpp))
    assert f"numBits={sizing.num_bits} k={sizing.num_hash_functions}" == value


@pytest.mark.parametrize("items, fpp, bits, k", [
    (8, 0.3, 24, 2),  # spec table
    (0, 0.1, 8, 1),  # Math.round(inf) -> Long.MAX_VALUE -> (int) -1 -> max(1, -1)
    (10, 1.0, 8, 1),  # nb == 0: numBits gets a full 8
])
def test_sizing_edges(items, fpp, bits, k):
    sizing = bloom_parameters(items, fpp)
    assert (sizing.num_bits, sizing.num_hash_functions) == (bits, k)


@pytest.mark.parametrize("options", [{"fpp": "0"}, {"fpp": "nan"}, {"items": "-5"}, {"items": "x"}, {"items": " 5"},
                                     {"fpp": "2", "items": "10"}, {"items": "1000000000", "fpp": "0.0001"},
                                     {"item": "10"}])
def test_bad_options_say_what_to_fix(options):
    with pytest.raises(UsageError) as info:
        BloomFilterWriter(parse_type("INT"), options)
    assert any(key in str(info.value) for key in ("fpp", "items", "item", "bits"))


@pytest.mark.parametrize("type_name", ["BOOLEAN", "DECIMAL(10, 2)", "ARRAY<INT>", "MAP<STRING, INT>"])
def test_refused_types(type_name):
    with pytest.raises(UnsupportedTypeError, match="bloom-filter does not support"):
        BloomFilterWriter(parse_type(type_name))


def reference_payload(values, data_type, items, fpp) -> bytes:
    """Java's BloomFilter64, one value and one bit at a time, with Python integers only."""
    sizing = bloom_parameters(items, fpp)
    bits = bytearray(sizing.num_bits // 8)
    for value in values:
        if value is None:
            continue
        h = hash_value(value, data_type)
        h1, h2 = int32(h), int32(h >> 32)
        for i in range(1, sizing.num_hash_functions + 1):
            c = int32(h1 + i * h2)
            if c < 0:
                c = ~c
            pos = c % sizing.num_bits
            bits[pos >> 3] |= 1 << (pos & 7)
    return sizing.num_hash_functions.to_bytes(4, "big") + bytes(bits)


def ts(millis, nanos):
    return Timestamp(millis, nanos)


TYPES = {
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.integers(-32768, 32767),
    "INT": st.integers(-2**31, 2**31 - 1),
    "BIGINT": st.integers(-2**63, 2**63 - 1),
    "DATE": st.integers(-100000, 100000),
    "TIME(3)": st.integers(0, 86399999),
    "FLOAT": st.floats(width=32, allow_nan=True),
    "DOUBLE": st.floats(allow_nan=True),
    "STRING": st.text(),
    "BYTES": st.binary(),
    "TIMESTAMP(3)": st.builds(ts, st.integers(-2**50, 2**50), st.integers(0, 999999)),
    "TIMESTAMP(6)": st.builds(ts, st.integers(-2**50, 2**50), st.integers(0, 999999)),
    "TIMESTAMP(9) WITH LOCAL TIME ZONE": st.builds(ts, st.integers(-2**50, 2**50), st.integers(0, 999999)),
}


@st.composite
def columns(draw):
    type_name = draw(st.sampled_from(sorted(TYPES)))
    values = draw(st.lists(st.one_of(st.none(), TYPES[type_name]), max_size=60))
    items = draw(st.integers(0, 200))
    fpp = draw(st.sampled_from([0.5, 0.1, 0.01, 0.001, 1e-6]))
    return parse_type(type_name), values, items, fpp


@given(columns())
def test_writer_equals_scalar_reference_and_has_no_false_negatives(column):
    data_type, values, items, fpp = column
    options = {"items": str(items), "fpp": repr(fpp)}
    payload = build(values, data_type, options)
    assert payload == reference_payload(values, data_type, items, fpp)
    reader = BloomFilterReader(payload, data_type)
    for value in values:
        if value is not None:
            assert reader.visit_equal(value) is REMAIN
    present = [v for v in values if v is not None]
    if present:
        assert reader.visit_in(present[:3] + [present[0]]) is REMAIN


def test_arrow_input_equals_python_input():
    rng = random.Random(7)
    ints = [rng.randrange(-2**31, 2**31) if rng.random() > 0.1 else None for _ in range(5000)]
    strings = [None if v is None else f"s{v}" for v in ints]
    options = {"items": "5000", "fpp": "0.01"}
    int_type, str_type = parse_type("INT"), parse_type("STRING")
    assert build(pa.array(ints, pa.int32()), int_type, options) == build(ints, int_type, options)
    chunked = pa.chunked_array([strings[:100], strings[100:]])
    assert build(chunked, str_type, options) == build(strings, str_type, options)
    floats = [float32(rng.uniform(-1e6, 1e6)) for _ in range(500)] + [float("nan"), -0.0, 0.0, math.inf]
    float_type = parse_type("FLOAT")
    assert build(pa.array(floats, pa.float32()), float_type, options) == build(floats, float_type, options)
    micros = [rng.randrange(-2**50, 2**50) for _ in range(500)]
    stamps = pa.array(micros, pa.timestamp("us"))
    python = [Timestamp(m // 1000, (m % 1000) * 1000) for m in micros]
    for precision in (3, 6):
        ts_type = parse_type(f"TIMESTAMP({precision})")
        assert build(stamps, ts_type, options) == build(python, ts_type, options)


def test_reader_answers():
    data_type = parse_type("INT")
    reader = BloomFilterReader(build([1, 2, 3, None], data_type, {"items": "100", "fpp": "0.001"}), data_type)
    assert reader.visit_equal(1) is REMAIN
    assert reader.visit_equal(None) is REMAIN
    assert reader.visit_in([]) is REMAIN  # Java returns null: the safe answer is REMAIN
    assert reader.visit_in([2, None]) is REMAIN
    absent = [v for v in range(1000, 1200) if reader.visit_equal(v) is SKIP]
    assert len(absent) > 190
    assert reader.visit_in(absent[:5]) is SKIP
    assert reader.visit_in(absent[:5] + [3]) is REMAIN
    for visit in ("visit_is_null", "visit_is_not_null"):
        assert getattr(reader, visit)() is REMAIN
    assert reader.visit_not_equal(1) is REMAIN and reader.visit_less_than(0) is REMAIN
    assert reader.visit_not_in([1, 2]) is REMAIN


def test_all_null_column_skips_every_value():
    data_type = parse_type("BIGINT")
    reader = BloomFilterReader(build([None] * 5, data_type, {"items": "8", "fpp": "0.3"}), data_type)
    assert reader.visit_equal(0) is SKIP and reader.visit_is_null() is REMAIN


def test_k_is_read_as_a_proper_big_endian_int():
    """Java's sign-extension quirk misreads k >= 128; the format itself is a plain int."""
    data_type = parse_type("INT")
    sizing = bloom_parameters(1, 1e-60)
    assert sizing.num_hash_functions >= 128
    payload = build([5], data_type, {"items": "1", "fpp": "1e-60"})
    reader = BloomFilterReader(payload, data_type)
    assert reader.num_hash_functions == sizing.num_hash_functions
    assert reader.visit_equal(5) is REMAIN


@pytest.mark.parametrize("payload, error, field", [
    (b"\x00\x00", TruncatedError, "bloom_filter/num_hash_functions"),
    (b"\x00\x00\x00\x00\xff", InvalidLengthError, "bloom_filter/num_hash_functions"),
    (b"\xff\xff\xff\xff\xff", InvalidLengthError, "bloom_filter/num_hash_functions"),
    (b"\x00\x00\x00\x09\xff", InvalidLengthError, "bloom_filter/num_hash_functions"),
])
def test_malformed_payloads(payload, error, field):
    with pytest.raises(error) as info:
        BloomFilterReader(payload, parse_type("INT"), base_offset=100)
    assert info.value.field == field and info.value.offset == 100


def test_batch_probe_equals_single_probes():
    data_type = parse_type("BIGINT")
    values = list(range(0, 20000, 3))
    reader = BloomFilterReader(build(values, data_type, {"items": "7000", "fpp": "0.05"}), data_type)
    probes = list(range(0, 3000))
    batch = reader.might_contain_column(pa.array(probes, pa.int64()))
    assert batch.tolist() == [reader.might_contain(p) for p in probes]
    assert all(batch[v] for v in range(0, 3000, 3))


def test_measured_false_positive_rate_matches_theory():
    """1,000,000 absent probes: the measured rate is within 5% (relative) of (1-e^(-kn/m))^k."""
    rng = np.random.default_rng(42)
    n, items, fpp = 20000, 20000, 0.02
    values = rng.choice(2**40, size=n, replace=False).astype(np.int64)
    data_type = parse_type("BIGINT")
    payload = build(pa.array(values), data_type, {"items": str(items), "fpp": str(fpp)})
    reader = BloomFilterReader(payload, data_type)
    probes = rng.integers(2**41, 2**62, size=1_000_000, dtype=np.int64)
    measured = reader.might_contain_column(pa.array(probes)).mean()
    theory = false_positive_rate(reader.num_bits, reader.num_hash_functions, n)
    assert abs(measured - theory) / theory < 0.05, (measured, theory)
    assert theory < fpp * 1.1  # Java's sizing delivers what was asked
    diagnosis = diagnose(payload)
    assert abs(diagnosis.estimated_items - n) / n < 0.02
    assert diagnosis.verdict == "ok"


def test_estimate_and_advice():
    assert estimated_items(1000, 3, 0) == 0
    assert math.isinf(estimated_items(1000, 3, 1000))
    advice = advise([10, 2500, 900], 0.01)
    assert advice.items == 2500 and advice.expected_fpp <= 0.0101
    assert advice.bytes == bloom_parameters(2500, 0.01).payload_length
    with pytest.raises(UsageError):
        advise([], 0.01)


def test_java_default_filters_in_tables_are_diagnosed_oversized():
    path = next((ROOT / "tests" / "tables" / "parquet" / "append_with_bloomfilter.db").rglob("*.index"))
    container = FileIndexContainer.open(path)
    distinct = {"f0": 5, "f1": 6, "f2": 5, "f3": 8, "f4": 6}
    for entry in container:
        diagnosis = diagnose(container.body(entry))
        assert diagnosis.bytes == 599071 and diagnosis.num_hash_functions == 3
        assert round(diagnosis.estimated_items) == distinct[entry.column]
        assert diagnosis.delivered_fpp < 1e-15
        assert diagnosis.verdict == "oversized"
        assert "599071" in diagnosis.advice


@pytest.mark.parametrize("held, verdict", [(1000, "ok"), (300, "ok"), (100, "oversized"), (2000, "overfull")])
def test_the_sizing_verdict_follows_how_many_values_the_filter_holds(held, verdict):
    payload = build(list(range(held)), parse_type("INT"), {"items": "1000", "fpp": "0.01"})
    assert diagnose(payload).verdict == verdict


@pytest.mark.parametrize("held, target", [(2000, "raise items above "), (100, " fpp=0.01 would take")])
def test_the_advice_names_the_configured_fpp_and_the_observed_one_where_the_options_are_known(held, target):
    """Java sizes fpp=0.01 as 9592 bits and 7 hash functions, whose estimate from m and k is 0.00781; the options say
    0.01, and at 2000 values the filter answers about 0.144."""
    options = {"items": "1000", "fpp": "0.01"}
    payload = build(list(range(held)), parse_type("INT"), options)
    known, unknown = diagnose(payload, options), diagnose(payload)
    assert known.verdict == unknown.verdict != "ok"
    assert "the configured fpp=0.01" in known.advice and f"its rate is about {known.delivered_fpp:.3g}" in known.advice
    assert target in known.advice, known.advice
    assert "configured" not in unknown.advice and "a false-positive rate of 0.00781" in unknown.advice
    assert diagnose(payload, {"items": "5000", "fpp": "0.01"}).advice == unknown.advice  # (options that changed since)


def test_bloom_module_registers_its_options():
    assert bloom_filter.OPTIONS == ("items", "fpp")


@pytest.mark.parametrize("type_name, literal", [("STRING", 5), ("BYTES", 5), ("BYTES", "x"), ("INT", "5")])
def test_a_literal_of_the_wrong_type_is_refused_not_misread(type_name, literal):
    data_type = parse_type(type_name)
    values = [b"5", b"x"] if type_name == "BYTES" else ["5", "x"] if type_name == "STRING" else [5, 6]
    reader = BloomFilterReader(build(values, data_type), data_type)
    with pytest.raises(UsageError, match="must be"):
        reader.visit_equal(literal)


@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=50), st.integers(2, 4000), st.integers(1, 12),
       st.randoms(use_true_random=False))
def test_single_hash_probe_equals_the_vectorized_probe(hashes, size, k, rng):
    payload = k.to_bytes(4, "big") + rng.randbytes(size)
    reader = BloomFilterReader(payload, parse_type("BIGINT"))
    assert [reader.test_hash(h) for h in hashes] == reader.test_hashes(np.array(hashes, dtype=np.int64)).tolist()
