"""range-bitmap: comparisons, find() and TopN against brute-force models; both parsers; edges."""
import itertools
import math
import operator
import random
from decimal import Decimal

import pytest
from fileindex.generated.range_bitmap import RangeBitmap
from fileindex.specs.range_bitmap import range_bitmap as construct_range_bitmap
from hypothesis import given, settings
from hypothesis import strategies as st
from index_answers import top_n_model as sorted_top_n
from pyroaring import FrozenBitMap
from structures import construct_tree, kaitai_tree, mutated_payloads, without_none
from vector_cases import cases_for

from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.errors import DecodeError, UnsupportedTypeError
from fileindex.indexes.range_bitmap.keys import key_kind, key_of, sort_key
from fileindex.indexes.range_bitmap.reader import RangeBitmapReader
from fileindex.indexes.range_bitmap.writer import build
from fileindex.indexes.result import REMAIN, Rows
from fileindex.types import parse_type
from fileindex.values import Timestamp, float32

POOLS = {
    "INT": st.integers(-2**31, 2**31 - 1),
    "BIGINT": st.one_of(st.integers(-3, 3), st.integers(-2**63, 2**63 - 1)),
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.integers(-5, 5),
    "BOOLEAN": st.booleans(),
    "DATE": st.integers(-100, 100),
    "DECIMAL(18, 2)": st.integers(-10**16, 10**16).map(lambda x: Decimal(x).scaleb(-2)),
    "TIMESTAMP(6)": st.builds(Timestamp, st.integers(-10**6, 10**6), st.integers(0, 999999)),
    "FLOAT": st.sampled_from([0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan, float32(0.1), 3.0]),
    "DOUBLE": st.sampled_from([0.0, -0.0, 2.5, -1.0, math.inf, math.nan, 1e300, -1e-300]),
    "STRING": st.one_of(st.sampled_from(["", "a", "b", "aa", "é", "\u0000", "\xff", "zz", "😀"]), st.text(max_size=5)),
}


@st.composite
def columns(draw):
    type_name = draw(st.sampled_from(sorted(POOLS)))
    pool = draw(st.lists(POOLS[type_name], min_size=1, max_size=12))
    values = draw(st.lists(st.one_of(st.none(), st.sampled_from(pool)), max_size=60))
    chunk = draw(st.sampled_from([None, "0b", "1b", "8b", "13b", "64b", "64kb"]))
    return parse_type(type_name), values, ({} if chunk is None else {"chunk-size": chunk})


def rows(result):
    assert isinstance(result, Rows), result
    return set(result.bitmap)


@given(columns(), st.data())
def test_comparisons_equal_a_brute_force_model(column, data):
    data_type, values, options = column
    reader = RangeBitmapReader(build(values, data_type, options), data_type)
    kind = key_kind(data_type)
    keys = [None if v is None else sort_key(kind, key_of(v, data_type)) for v in values]

    def truth(predicate):
        return {row for row, key in enumerate(keys) if key is not None and predicate(key)}

    def compared(compare, bound):
        return truth(lambda k: compare(k, bound))

    nulls = {row for row, key in enumerate(keys) if key is None}
    assert rows(reader.visit_is_null()) == nulls
    assert rows(reader.visit_is_not_null()) == set(range(len(values))) - nulls
    present = [v for v in values if v is not None]
    probes = present[:3] + data.draw(st.lists(POOLS[_pool_name(data_type)], max_size=3))
    for literal in probes:
        p = sort_key(kind, key_of(literal, data_type))
        assert rows(reader.visit_equal(literal)) == compared(operator.eq, p)
        assert rows(reader.visit_not_equal(literal)) == compared(operator.ne, p)
        assert rows(reader.visit_less_than(literal)) == compared(operator.lt, p)
        assert rows(reader.visit_less_or_equal(literal)) == compared(operator.le, p)
        assert rows(reader.visit_greater_than(literal)) == compared(operator.gt, p)
        assert rows(reader.visit_greater_or_equal(literal)) == compared(operator.ge, p)
    if len(probes) >= 2:
        lo, hi = sorted(sort_key(kind, key_of(v, data_type)) for v in probes[:2])
        low, high = sorted(probes[:2], key=lambda v: sort_key(kind, key_of(v, data_type)))
        assert rows(reader.visit_between(low, high)) == truth(lambda k: lo <= k <= hi)
        assert rows(reader.visit_in(probes[:2])) == truth(lambda k: k in (lo, hi))
        assert rows(reader.visit_not_in(probes[:2])) == truth(lambda k: k not in (lo, hi))
    assert reader.visit_equal(None) is REMAIN and reader.visit_less_than(None) is REMAIN


RANGE_BOUNDS = [(False, operator.gt), (True, operator.ge)], [(False, operator.lt), (True, operator.le)]


@given(columns(), st.data())
def test_ranges_answered_at_once_equal_a_brute_force_model(column, data):
    """visit_range (a lower and an upper bound from codes, slices skipped for an empty range, a few codes
    found one by one) against the rows a brute force finds, for bounds anywhere (also crossed or outside)."""
    data_type, values, options = column
    reader = RangeBitmapReader(build(values, data_type, options), data_type)
    kind = key_kind(data_type)
    keys = [None if v is None else sort_key(kind, key_of(v, data_type)) for v in values]
    present = [v for v in values if v is not None]
    probes = present[:4] + data.draw(st.lists(POOLS[_pool_name(data_type)], min_size=1, max_size=3))
    for low in probes:
        for high in probes:
            lo, hi = sort_key(kind, key_of(low, data_type)), sort_key(kind, key_of(high, data_type))
            for (low_inclusive, below), (high_inclusive, above) in itertools.product(*RANGE_BOUNDS):
                expected = {row for row, key in enumerate(keys) if key is not None and below(key, lo)
                            and above(key, hi)}
                got = reader.visit_range(low, high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)
                assert rows(got) == expected, (low, low_inclusive, high, high_inclusive)
    assert reader.visit_range(None, probes[0], low_inclusive=False, high_inclusive=False) == \
        REMAIN.and_(reader.visit_less_than(probes[0]))


def _pool_name(data_type):
    for name in POOLS:
        if parse_type(name) == data_type:
            return name
    raise KeyError(data_type)


@given(columns(), st.data())
def test_find_matches_binary_search(column, data):
    data_type, values, options = column
    reader = RangeBitmapReader(build(values, data_type, options), data_type)
    kind = key_kind(data_type)
    distinct = sorted({sort_key(kind, key_of(v, data_type)) for v in values if v is not None})
    reader._read_header()
    if not distinct:
        return
    import bisect

    probes = distinct + [sort_key(kind, key_of(v, data_type)) for v in data.draw(
        st.lists(POOLS[_pool_name(data_type)], max_size=5))]
    for key in probes:
        position = bisect.bisect_left(distinct, key)
        found = position < len(distinct) and distinct[position] == key
        assert reader.find(key) == (position if found else -position - 1)


def top_n_model(values, data_type, k, descending, nulls_first, found, strict):
    """Java's TopN semantics (spec §8.5), by sorting; a range bitmap without a non-null value answers every row."""
    kind = key_kind(data_type)
    keys = [None if v is None else sort_key(kind, key_of(v, data_type)) for v in values]
    if all(key is None for key in keys):
        return set(range(len(values)))
    return sorted_top_n(keys, k, descending, nulls_first, found, strict)


@given(columns(), st.integers(0, 12), st.booleans(), st.booleans(), st.booleans(), st.data())
@settings(max_examples=150)
def test_top_n_equals_a_sorting_model(column, k, descending, nulls_first, strict, data):
    data_type, values, options = column
    reader = RangeBitmapReader(build(values, data_type, options), data_type)
    found = None
    if values and data.draw(st.booleans()):
        found = FrozenBitMap(data.draw(st.sets(st.integers(0, len(values) - 1))))
    result = reader.visit_top_n(k, descending=descending, nulls_first=nulls_first, found=found, strict=strict)
    expected = top_n_model(values, data_type, k, descending, nulls_first, found, strict)
    assert rows(result) == expected


def test_spec_top_n_examples():
    data_type = parse_type("INT")
    reader = RangeBitmapReader(build([1, 3, 5, 7, 9, None, None, 10], data_type), data_type)
    top = lambda k, **kw: rows(reader.visit_top_n(k, **kw))  # noqa: E731
    found = FrozenBitMap([0, 3, 4, 5])
    assert top(3, descending=False, nulls_first=True) == {0, 5, 6}
    assert top(3, descending=False, nulls_first=True, found=found) == {0, 3, 5}
    assert top(3, descending=False, nulls_first=False) == {0, 1, 2}
    assert top(3, descending=True, nulls_first=True) == {5, 6, 7}
    assert top(3, descending=True, nulls_first=False) == {3, 4, 7}
    assert top(3, descending=True, nulls_first=False, found=FrozenBitMap([0, 3, 4])) == {0, 3, 4}
    asc = RangeBitmapReader(build([1, 1, 1, 2, 3], data_type), data_type)
    assert rows(asc.visit_top_n(2, descending=False, strict=False)) == {0, 1, 2}
    desc = RangeBitmapReader(build([5, 4, 4, 4, 3], data_type), data_type)
    assert rows(desc.visit_top_n(2, descending=True, strict=False)) == {0, 1, 2, 3}
    nulls = RangeBitmapReader(build([None, None, None, 1], data_type), data_type)
    assert rows(nulls.visit_top_n(2, descending=True, nulls_first=True, strict=False)) == {0, 1, 2}
    assert rows(nulls.visit_top_n(2, descending=True, nulls_first=True)) == {0, 1}
    only_nulls = RangeBitmapReader(build([None] * 5, data_type), data_type)
    assert rows(only_nulls.visit_top_n(1, descending=True)) == set(range(5))
    assert rows(only_nulls.visit_is_null()) == set(range(5))  # Java <= 2.0.0 answered {0, 4}


@pytest.mark.parametrize("type_name", ["DECIMAL(19, 2)", "TIMESTAMP(7)", "BYTES", "ARRAY<INT>"])
def test_types_java_refuses(type_name):
    with pytest.raises(UnsupportedTypeError):
        build([None], parse_type(type_name))


def test_default_chunk_size_depends_on_type():
    values = list(range(-100, 100))
    assert build(values, parse_type("SMALLINT")) == build(values, parse_type("SMALLINT"), {"chunk-size": "0b"})
    assert build(values, parse_type("INT")) == build(values, parse_type("INT"), {"chunk-size": "16 KB"})
    assert build(values, parse_type("INT")) != build(values, parse_type("INT"), {"chunk-size": "0b"})



def check_parsers_agree(payload, data_type):
    kind = key_kind(data_type)
    parsed = kaitai_bridge.parse(lambda io: RangeBitmap(kind.code, io), payload, root="r", validations={})
    # the dictionary and the bit-sliced index are lazy instances in the spec
    dictionary = parsed.dictionary
    bsi = parsed.bsi
    ours = {**kaitai_tree(parsed),
            "bsi": {**kaitai_tree(bsi), "ebm": kaitai_tree(bsi.ebm), "slices": kaitai_tree(bsi.slices)},
            "dictionary": {**kaitai_tree(dictionary), "chunk_offsets": dictionary.chunk_offsets,
                           "chunks": kaitai_tree(dictionary.chunks), "keys": dictionary.keys}}
    theirs = construct_tree(construct_range_bitmap(kind.name).parse(payload))
    ours["dictionary"]["chunks"] = ours["dictionary"]["chunks"]["chunks"]
    theirs["dictionary"]["chunks"] = theirs["dictionary"]["chunks"]["chunks"]
    assert without_none(ours) == without_none(theirs)


@pytest.mark.parametrize("case", cases_for("range-bitmap", ok=True), ids=lambda c: c.name)
def test_java_payloads_parse_identically_with_kaitai_and_construct(case):
    check_parsers_agree(case.payload(), case.data_type)


@given(columns())
@settings(max_examples=60)
def test_random_payloads_parse_identically(column):
    data_type, values, options = column
    payload = build(values, data_type, options)
    check_parsers_agree(payload, data_type)
    schema = construct_range_bitmap(key_kind(data_type).name)
    assert schema.build(schema.parse(payload)) == payload  # Construct writes what it reads


def test_malformed_payloads_raise_project_errors():
    rng = random.Random(9)
    data_type = parse_type("STRING")
    payload = build([f"v{rng.randrange(50)}" if rng.random() > 0.1 else None for _ in range(300)], data_type,
                    {"chunk-size": "32b"})
    for cut in mutated_payloads(payload, seed=rng.randrange(1000)):
        reader = RangeBitmapReader(cut, data_type, base_offset=700)
        try:
            reader.validate()
            reader.visit_less_than("v20")
            reader.visit_top_n(5, descending=True)
        except DecodeError as err:
            assert 700 <= err.offset <= 700 + len(cut), err


def test_a_bad_string_chunk_header_is_placed_at_its_spec_field():
    """String chunk headers are read by the generated ``chunk`` type where the offsets table puts them;
    a bad version is placed by the debug reader, a bad offset at its entry in the offsets table."""
    from fileindex.errors import InvalidOffsetError, UnsupportedVersionError
    from fileindex.kaitai_runtime import open_stream

    data_type = parse_type("STRING")
    payload = build([f"v{i % 40:02d}" for i in range(200)], data_type, {"chunk-size": "32b"})
    tree = RangeBitmap(key_kind(data_type).code, open_stream(payload))
    tree._read()
    dictionary = tree.dictionary
    dictionary_at = tree._debug["_m_dictionary"]["start"]
    chunk_list = dictionary.chunks
    chunks_at = dictionary_at + dictionary._debug["_m_chunks"]["start"]
    assert len(chunk_list.chunks) >= 3
    last = len(chunk_list.chunks) - 1
    version_at = chunks_at + chunk_list._debug["chunks"]["arr"][last]["start"]
    corrupt = bytearray(payload)
    corrupt[version_at] = 2
    with pytest.raises(UnsupportedVersionError) as err:
        RangeBitmapReader(bytes(corrupt), data_type, base_offset=100).visit_less_than("v20")
    expected_field = f"range_bitmap/dictionary/chunks/chunks[{last}]/version"
    assert (err.value.offset, err.value.field) == (100 + version_at, expected_field)

    assert len(dictionary.chunk_offsets) == len(chunk_list.chunks)  # reading the lazy instance records its _debug
    entry_at = dictionary_at + dictionary._debug["_m_chunk_offsets"]["arr"][last]["start"]
    corrupt = bytearray(payload)
    corrupt[entry_at:entry_at + 4] = (1 << 20).to_bytes(4, "big")
    with pytest.raises(InvalidOffsetError) as err:
        RangeBitmapReader(bytes(corrupt), data_type, base_offset=100).visit_less_than("v20")
    assert (err.value.offset, err.value.field) == (100 + entry_at, f"range_bitmap/dictionary/chunk_offsets[{last}]")
