"""bsi: every comparison against a brute-force model, both parsers, Java's refusals, malformed input."""
import operator
import random
from decimal import Decimal

import pytest
from fileindex.generated.bsi import Bsi
from fileindex.specs.bsi import bsi as construct_bsi
from hypothesis import given
from hypothesis import strategies as st
from structures import construct_tree, kaitai_tree, mutated_payloads, without_none
from vector_cases import cases_for

from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.errors import DecodeError, UnsupportedTypeError, UsageError
from fileindex.indexes.bsi.reader import BsiReader
from fileindex.indexes.bsi.writer import build
from fileindex.indexes.result import REMAIN, Rows
from fileindex.java_numbers import LONG_MIN
from fileindex.types import parse_type
from fileindex.values import Timestamp, long_key

LONGS = st.one_of(st.integers(-3, 3), st.sampled_from([LONG_MIN + 1, 2**63 - 1, 2**62, -2**62, 1 << 40]),
                  st.integers(LONG_MIN + 1, 2**63 - 1))


@st.composite
def columns(draw):
    type_name = draw(st.sampled_from(["BIGINT", "INT", "SMALLINT", "DATE", "DECIMAL(18, 3)", "TIMESTAMP(6)"]))
    if type_name == "BIGINT":
        pool = draw(st.lists(LONGS, min_size=1, max_size=10))
    elif type_name == "DECIMAL(18, 3)":
        pool = [Decimal(x).scaleb(-3) for x in draw(st.lists(st.integers(-10**17, 10**17), min_size=1, max_size=8))]
    elif type_name == "TIMESTAMP(6)":
        pool = draw(st.lists(st.builds(Timestamp, st.integers(-10**9, 10**9), st.integers(0, 999999)),
                             min_size=1, max_size=8))
    else:
        bits = {"INT": 31, "SMALLINT": 15, "DATE": 20}[type_name]
        pool = draw(st.lists(st.integers(-(1 << bits), (1 << bits) - 1), min_size=1, max_size=10))
    values = draw(st.lists(st.one_of(st.none(), st.sampled_from(pool)), max_size=60))
    return parse_type(type_name), values


def rows(result):
    assert isinstance(result, Rows), result
    return set(result.bitmap)


@given(columns(), st.data())
def test_comparisons_equal_a_brute_force_model(column, data):
    data_type, values = column
    reader = BsiReader(build(values, data_type), data_type)
    keys = [None if v is None else long_key(v, data_type) for v in values]
    present = [v for v in values if v is not None]

    def truth(predicate):
        return {row for row, key in enumerate(keys) if key is not None and predicate(key)}

    def compared(compare, bound):
        return truth(lambda k: compare(k, bound))

    nulls = {row for row, key in enumerate(keys) if key is None}
    assert rows(reader.visit_is_null()) == nulls
    assert rows(reader.visit_is_not_null()) == set(range(len(values))) - nulls
    probes = present[:3]
    if data_type.root in ("BIGINT", "INT"):  # literals between, beside and beyond the values too
        bits = 63 if data_type.root == "BIGINT" else 31
        probes += data.draw(st.lists(st.integers(-(1 << bits) + 1, (1 << bits) - 1), max_size=3))
    for literal in probes:
        p = long_key(literal, data_type)
        assert rows(reader.visit_equal(literal)) == compared(operator.eq, p)
        assert rows(reader.visit_not_equal(literal)) == compared(operator.ne, p)  # nulls excluded
        assert rows(reader.visit_less_than(literal)) == compared(operator.lt, p)
        assert rows(reader.visit_less_or_equal(literal)) == compared(operator.le, p)
        assert rows(reader.visit_greater_than(literal)) == compared(operator.gt, p)
        assert rows(reader.visit_greater_or_equal(literal)) == compared(operator.ge, p)
    if len(present) >= 2:
        low, high = sorted(present[:2], key=lambda v: long_key(v, data_type))
        lo, hi = long_key(low, data_type), long_key(high, data_type)
        assert rows(reader.visit_between(low, high)) == truth(lambda k: lo <= k <= hi)
        assert rows(reader.visit_in(present[:2])) == truth(lambda k: k in (lo, hi))
        assert rows(reader.visit_not_in(present[:2])) == truth(lambda k: k not in (lo, hi))
    assert reader.visit_equal(None) is REMAIN and reader.visit_in([None]) is REMAIN  # Java throws: REMAIN
    assert reader.visit_not_between(0, 1) is REMAIN


@given(st.lists(st.one_of(st.none(), LONGS), max_size=40))
def test_extreme_literals(values):
    data_type = parse_type("BIGINT")
    reader = BsiReader(build(values, data_type), data_type)
    present = {row for row, v in enumerate(values) if v is not None}
    assert rows(reader.visit_greater_than(LONG_MIN)) == present
    assert rows(reader.visit_greater_or_equal(LONG_MIN)) == present
    assert rows(reader.visit_less_than(LONG_MIN)) == set()
    assert rows(reader.visit_less_or_equal(LONG_MIN)) == set()
    assert rows(reader.visit_equal(LONG_MIN)) == set()
    assert rows(reader.visit_not_equal(LONG_MIN)) == present
    top = 2**63 - 1
    assert rows(reader.visit_less_or_equal(top)) == present
    assert rows(reader.visit_greater_than(top)) == set()


def test_long_min_is_refused_like_java():
    with pytest.raises(UsageError, match="Long.MIN_VALUE"):
        build([LONG_MIN, 1], parse_type("BIGINT"))


@pytest.mark.parametrize("type_name", ["STRING", "BOOLEAN", "FLOAT", "DOUBLE", "BYTES", "ARRAY<INT>"])
def test_types_java_refuses(type_name):
    with pytest.raises(UnsupportedTypeError, match="bsi does not support"):
        build([None], parse_type(type_name))


def test_decimal_that_does_not_fit_a_long():
    with pytest.raises(UsageError, match="does not fit a long"):
        build([Decimal("123456789012345678.90")], parse_type("DECIMAL(20, 2)"))


def check_parsers_agree(payload: bytes):
    ours = kaitai_tree(kaitai_bridge.parse(Bsi, payload, root="bsi", validations={}))
    theirs = construct_tree(construct_bsi.parse(payload))
    assert without_none(ours) == without_none(theirs)



@pytest.mark.parametrize("case", cases_for("bsi", ok=True), ids=lambda c: c.name)
def test_java_payloads_parse_identically_with_kaitai_and_construct(case):
    check_parsers_agree(case.payload())


@given(columns())
def test_random_payloads_parse_identically(column):
    data_type, values = column
    payload = build(values, data_type)
    check_parsers_agree(payload)
    assert construct_bsi.build(construct_bsi.parse(payload)) == payload  # Construct writes what it reads


def test_malformed_payloads_raise_project_errors():
    rng = random.Random(5)
    data_type = parse_type("INT")
    payload = build([rng.randrange(-10**6, 10**6) if rng.random() > 0.1 else None for _ in range(300)], data_type)
    for cut in mutated_payloads(payload, seed=rng.randrange(1000)):
        try:
            reader = BsiReader(cut, data_type, base_offset=500)
            reader.validate()
            reader.visit_less_than(17)
        except DecodeError as err:
            assert 500 <= err.offset <= 500 + len(cut), err


@given(st.lists(st.one_of(st.none(), st.integers(-2**63 + 1, 2**63 - 1)), max_size=200))
def test_halves_built_together_or_one_after_the_other_are_the_same_bytes(values):
    from fileindex.indexes.bsi import writer

    together = build(values, parse_type("BIGINT"))
    saved, writer.HALVES_AT_ONCE = writer.HALVES_AT_ONCE, -1
    try:
        assert build(values, parse_type("BIGINT")) == together
    finally:
        writer.HALVES_AT_ONCE = saved


def test_header_fields_are_read_and_placed_by_the_generated_reader():
    """The fixed fields of the payload and of each half come from the spec's header types, read
    where the framed bitmaps before them end; a bad one is placed at its spec field."""
    from fileindex.errors import InvalidLengthError, SchemaMismatchError, UnsupportedVersionError
    from fileindex.kaitai_runtime import open_stream

    data_type = parse_type("INT")
    payload = build([5, -3, None, 17, -20, 5], data_type)
    tree = Bsi(open_stream(payload))
    tree._read()
    reader = BsiReader(payload, data_type)
    assert (reader.row_count, reader.positive.max, reader.negative.max) == (6, 17, 20)
    assert [len(reader.positive.slices), len(reader.negative.slices)] == [5, 5]
    negative_at = tree._debug["negative"]["start"]
    count_at = tree.negative.index._debug["slices_header"]["start"]
    cases = [
        (0, 2, UnsupportedVersionError, "bsi/header/version"),
        (1, 0xFF, InvalidLengthError, "bsi/header/row_count"),
        (negative_at + 1, 3, UnsupportedVersionError, "bsi/negative/header/version"),
        (count_at, 0x7F, InvalidLengthError, "bsi/negative/index/slices_header/num_slices"),
    ]
    for at, byte, error, field in cases:
        corrupt = bytearray(payload)
        corrupt[at] = byte
        with pytest.raises(error) as raised:
            BsiReader(bytes(corrupt), data_type, base_offset=40)
        assert (raised.value.offset, raised.value.field) == (40 + at, field)
    corrupt = bytearray(payload)
    corrupt[negative_at + 10] = 0x7F  # the top byte of the negative half's max
    with pytest.raises(SchemaMismatchError) as raised:
        BsiReader(bytes(corrupt), data_type)
    assert (raised.value.offset, raised.value.field) == (negative_at + 10, "bsi/negative/header/max")
