"""Bitmap index: brute-force model checks, both encoders, both parsers, laziness, options, edges."""
import functools
import itertools
import math
import operator
import pickle
import random

import numpy as np
import pyarrow as pa
import pytest
from conftest import ROOT
from fileindex.generated.bitmap import Bitmap
from fileindex.specs.bitmap import bitmap as construct_bitmap
from hypothesis import given, settings
from hypothesis import strategies as st
from structures import construct_tree, kaitai_tree, mutated_payloads, without_none
from vector_cases import cases_for

from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.errors import DecodeError, UnsupportedTypeError, UsageError
from fileindex.indexes.bitmap.keys import key_kind, key_of
from fileindex.indexes.bitmap.reader import BitmapReader
from fileindex.indexes.bitmap.writer import build, encode, encode_with_construct, layout
from fileindex.indexes.result import REMAIN, Rows
from fileindex.types import parse_type
from fileindex.values import Timestamp, float32

TYPES = {
    "TINYINT": st.integers(-128, 127),
    "SMALLINT": st.sampled_from([-32768, -1, 0, 1, 7, 32767]),
    "INT": st.one_of(st.integers(-5, 5), st.sampled_from([16 * i for i in range(40)]),
                     st.integers(-2**31, 2**31 - 1)),
    "BIGINT": st.one_of(st.integers(-3, 3), st.integers(0, 40).map(lambda x: (x << 32) | x),
                        st.integers(-2**63, 2**63 - 1)),
    "DATE": st.integers(-1000, 1000),
    "BOOLEAN": st.booleans(),
    "FLOAT": st.sampled_from([0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan, float32(0.1)]),
    "DOUBLE": st.sampled_from([0.0, -0.0, 1.5, -2.25, math.inf, math.nan, 1e300, -1e-300]),
    "STRING": st.one_of(st.sampled_from(["", "a", "b", "aa", "é", "\u0000", "zz", "\xff", "key-1", "😀"]),
                        st.text(max_size=6)),
    "TIMESTAMP(3)": st.builds(Timestamp, st.integers(-5, 5), st.sampled_from([0, 999999])),
    "TIMESTAMP(6)": st.builds(Timestamp, st.integers(-3, 3), st.sampled_from([0, 1000, 999999])),
}


@st.composite
def columns(draw, max_size=80):
    type_name = draw(st.sampled_from(sorted(TYPES)))
    pool = draw(st.lists(TYPES[type_name], min_size=1, max_size=12))
    values = draw(st.lists(st.one_of(st.none(), st.sampled_from(pool)), max_size=max_size))
    version = draw(st.sampled_from(["1", "2"]))
    block = draw(st.sampled_from(["16kb", "64b", "40b", "1 KB"]))
    return parse_type(type_name), values, {"version": version, "index-block-size": block}


def laid_out(values, data_type, options):
    """The payload layout, or None where Java fails too: an entry larger than an index block."""
    try:
        return layout(values, data_type, options)
    except UsageError as err:
        assert "index fail" in str(err)
        return None


def truth(values, data_type, predicate):
    return {row for row, value in enumerate(values) if value is not None and predicate(key_of(value, data_type))}


def rows(result):
    assert isinstance(result, Rows), result
    return set(result.bitmap)


@given(columns())
def test_every_predicate_equals_a_brute_force_model(column):
    data_type, values, options = column
    lay = laid_out(values, data_type, options)
    if lay is None:
        return
    reader = BitmapReader(encode(lay), data_type)
    nulls = {r for r, v in enumerate(values) if v is None}
    everything = set(range(len(values)))
    assert rows(reader.visit_is_null()) == nulls
    assert rows(reader.visit_is_not_null()) == everything - nulls
    present = [v for v in values if v is not None]
    for literal in present[:4] + [TYPES_PROBE.get(data_type.root, None)]:
        if literal is None:
            continue
        matching = truth(values, data_type, functools.partial(operator.eq, key_of(literal, data_type)))
        assert rows(reader.visit_equal(literal)) == matching
        assert rows(reader.visit_not_equal(literal)) == everything - matching  # nulls included, as Java
    if present:
        literals = present[:3]
        keys = {key_of(v, data_type) for v in literals}
        matching = truth(values, data_type, lambda k: k in keys)
        assert rows(reader.visit_in(literals)) == matching
        assert rows(reader.visit_in(literals + [None])) == matching | nulls
        assert rows(reader.visit_not_in(literals)) == everything - matching
    assert reader.visit_less_than(present[0] if present else 0) is REMAIN  # Java parity by default


TYPES_PROBE = {"INT": 123456789, "STRING": "absent", "BIGINT": -7, "BOOLEAN": None}


@given(columns(), st.randoms(use_true_random=False))
def test_many_equalities_in_one_call_equal_one_at_a_time(column, rng):
    data_type, values, options = column
    lay = laid_out(values, data_type, options)
    if lay is None:
        return
    payload = encode(lay)
    literals = [v for v in values if v is not None][:40] + [TYPES_PROBE.get(data_type.root), None]
    rng.shuffle(literals)
    literals += literals[:3]  # repeated literals
    one_by_one = [BitmapReader(payload, data_type).visit_equal(v) for v in literals]
    batch = BitmapReader(payload, data_type).visit_equal_many(literals)
    assert [set(r.bitmap) for r in batch] == [set(r.bitmap) for r in one_by_one]


@pytest.mark.parametrize("case", cases_for("bitmap", ok=True), ids=lambda c: c.name)
def test_many_equalities_on_java_vectors(case):
    literals = [args[0] for method, args, _, _ in case.queries() if method == "visit_equal"]
    literals += [v for v in case.values() if v is not None][:50]
    batch = BitmapReader(case.payload(), case.data_type).visit_equal_many(literals)
    reader = BitmapReader(case.payload(), case.data_type)
    answer = lambda result: set(result.bitmap) if isinstance(result, Rows) else result  # noqa: E731
    assert [answer(r) for r in batch] == [answer(reader.visit_equal(v)) for v in literals]


@given(columns())
def test_extended_ranges_are_exact_and_sound(column):
    data_type, values, options = column
    lay = laid_out(values, data_type, options)
    if lay is None:
        return
    sort = key_kind(data_type).sort_key
    sorted_by_row = {row: sort(key_of(v, data_type)) for row, v in enumerate(values) if v is not None}
    reader = BitmapReader(encode(lay), data_type, extended=True)
    present = [v for v in values if v is not None]
    for literal in present[:3]:
        bound = sort(key_of(literal, data_type))
        assert rows(reader.visit_less_than(literal)) == {r for r, s in sorted_by_row.items() if s < bound}
        assert rows(reader.visit_less_or_equal(literal)) == {r for r, s in sorted_by_row.items() if s <= bound}
        assert rows(reader.visit_greater_than(literal)) == {r for r, s in sorted_by_row.items() if s > bound}
        assert rows(reader.visit_greater_or_equal(literal)) == {r for r, s in sorted_by_row.items() if s >= bound}
        high = present[-1]
        hi = sort(key_of(high, data_type))
        assert rows(reader.visit_between(literal, high)) == {r for r, s in sorted_by_row.items() if bound <= s <= hi}


@given(columns(max_size=40))
@settings(max_examples=60)
def test_numpy_encoder_equals_construct_and_both_parsers_agree(column):
    data_type, values, options = column
    lay = laid_out(values, data_type, options)
    if lay is None:
        return
    payload = encode(lay)
    assert payload == encode_with_construct(lay)
    check_parsers_agree(payload, data_type)


def check_parsers_agree(payload: bytes, data_type):
    kind = key_kind(data_type)
    parsed = kaitai_bridge.parse(lambda io: Bitmap(kind.code, io), payload, root="bitmap", validations={})
    ours = kaitai_tree(parsed)
    theirs = construct_tree(construct_bitmap(kind.name).parse(payload))
    assert without_none(ours) == without_none(theirs)


@pytest.mark.parametrize("case", cases_for("bitmap", ok=True), ids=lambda c: c.name)
def test_java_payloads_parse_identically_with_kaitai_and_construct(case):
    check_parsers_agree(case.payload(), case.data_type)


def test_reader_is_lazy_and_reads_one_block():
    data_type = parse_type("INT")
    values = [i % 5000 for i in range(20000)] + [None, None]
    payload = build(values, data_type, {"index-block-size": "256b"})
    reader = BitmapReader(payload, data_type)
    assert not reader._meta_read
    assert set(reader.visit_equal(1234).bitmap) == {1234, 6234, 11234, 16234}
    # block 0, read on opening to check the key width, and the block holding 1234
    assert len(set(reader._blocks) - {0}) == 1 and len(reader._directory_offsets) > 100
    reader.visit_equal(1234)
    assert len(set(reader._blocks) - {0}) == 1 and len(reader._rows) == 1
    single = build([7, 8, 7], data_type, {})
    lone = BitmapReader(single, data_type)
    assert set(lone.visit_equal(8).bitmap) == {1}  # -1 - row: never touches the body


@pytest.mark.parametrize("version", ["1", "2"])
@pytest.mark.parametrize("pool", [["abc", "abd", "xyz"], ["ab\x00", "abc", "x\x00\x00", "\x00\x00\x00"]])
def test_equal_length_string_keys_read_exactly_with_or_without_trailing_nuls(pool, version):
    data_type = parse_type("STRING")
    values = [pool[i % len(pool)] for i in range(3 * len(pool))] + [pool[0][:2] + "q", None]
    reader = BitmapReader(build(values, data_type, {"version": version}), data_type)
    for literal in pool + ["ab", "abcd", "\x00"]:
        assert rows(reader.visit_equal(literal)) == {r for r, v in enumerate(values) if v == literal}


def test_single_row_value_lookups_never_read_the_body():
    data_type = parse_type("STRING")
    payload = bytearray(build(["x", "y", "y"], data_type, {}))
    reader = BitmapReader(bytes(payload), data_type)
    assert set(reader.visit_equal("x").bitmap) == {0}


def test_index_fail_for_an_entry_larger_than_a_block():
    with pytest.raises(UsageError, match="index fail"):
        build(["x" * 100], parse_type("STRING"), {"index-block-size": "64b"})
    build(["x" * 100], parse_type("STRING"), {"version": "1", "index-block-size": "64b"})  # V1 has no blocks
    limit = 16384
    fits = "y" * (limit - 16)  # 4 (count) + 8 + 4 (length) + bytes == limit
    build([fits], parse_type("STRING"))
    with pytest.raises(UsageError, match="index fail"):
        build([fits + "y"], parse_type("STRING"))


@pytest.mark.parametrize("type_name", ["DECIMAL(10, 2)", "BINARY(4)", "BYTES", "ARRAY<INT>", "MAP<STRING, INT>"])
def test_types_java_refuses(type_name):
    with pytest.raises(UnsupportedTypeError, match="bitmap does not support"):
        build([None], parse_type(type_name))


@pytest.mark.parametrize("options, message", [({"version": "3"}, "version"), ({"index-block-size": "lots"}, "memory"),
                                              ({"block-size": "1kb"}, "unknown bitmap option")])
def test_bad_options(options, message):
    with pytest.raises(UsageError, match=message):
        build([1], parse_type("INT"), options)


@pytest.mark.parametrize("spelling", ["16kb", "16KB", "16 kb", "16 KB", "16384", "16k", "16 kibibytes"])
def test_memory_size_spellings(spelling):
    values = list(range(3000))
    assert build(values, parse_type("INT"), {"index-block-size": spelling}) == build(values, parse_type("INT"))


def test_large_columns_and_arrow_input():
    rng = np.random.default_rng(5)
    n = 70000  # crosses the 65536 Roaring container boundary
    ints = rng.integers(0, 3000, size=n)
    mask = rng.random(n) < 0.02
    arrow = pa.array(ints.astype(np.int32), mask=mask)
    python = [None if m else int(v) for v, m in zip(ints, mask, strict=True)]
    for version in ("1", "2"):
        payload = build(arrow, parse_type("INT"), {"version": version})
        assert payload == build(python, parse_type("INT"), {"version": version})
        reader = BitmapReader(payload, parse_type("INT"))
        assert set(reader.visit_equal(17).bitmap) == {i for i, v in enumerate(python) if v == 17}
    strings = pa.array([None if m else f"v{v}" for v, m in zip(ints, mask, strict=True)])
    assert build(strings, parse_type("STRING")) == build(strings.to_pylist(), parse_type("STRING"))


STRING_SHAPES = {
    "string": lambda v: pa.array(v, pa.string()),
    "large_string": lambda v: pa.array(v, pa.large_string()),
    "dictionary": lambda v: pa.array(v, pa.string()).dictionary_encode(),
    "chunked": lambda v: pa.chunked_array([pa.array(v[:len(v) // 2], pa.string()),
                                           pa.array(v[len(v) // 2:], pa.string())]),
    "sliced": lambda v: pa.array(["cut", None, *v, "off"], pa.string()).slice(2, len(v)),
}


@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["", "a", "b", "ab", "é", "a" * 40]), st.text(max_size=6)),
                max_size=60),
       st.sampled_from(sorted(STRING_SHAPES)), st.sampled_from(["1", "2"]))
def test_an_arrow_string_column_of_any_shape_builds_as_its_python_values(values, shape, version):
    """An Arrow column is grouped by Arrow's dictionary encoding and sort (rows by code, nulls last); a list by a
    dict: the payloads agree, nulls, first-occurrence order and a last row that is no new key included."""
    options = {"version": version, "index-block-size": "64b"}
    expected = build(values, parse_type("STRING"), options)
    assert build(STRING_SHAPES[shape](values), parse_type("STRING"), options) == expected


def test_raw_java_bitmap_bodies_from_a_real_table():
    expected = {
        "asdfghjkl123_2500": {3127, 18654, 23615, 43768, 62555, 63261, 66284, 74708, 99268},
        "asdfghjkl123_5000": {2269, 21292, 23667, 35066, 42377, 46085, 64811, 79062, 96161},
        "asdfghjkl123_7500": {14856, 50768, 60230, 68792, 72208, 73800, 78261, 81346, 86520, 87420, 88501,
                              95131, 99401},
    }
    folder = ROOT / "tests" / "tables" / "raw-bitmap-bodies"
    for name in ("bitmap-index-v1", "bitmap-index-v2"):
        reader = BitmapReader((folder / name).read_bytes(), parse_type("STRING"))
        for literal, rows_expected in expected.items():
            assert set(reader.visit_equal(literal).bitmap) == rows_expected


def test_malformed_payloads_raise_project_errors_with_offsets():
    rng = random.Random(11)
    data_type = parse_type("STRING")
    payload = build(["a", None, "b", None, "a", "ccc"] * 20, data_type, {"index-block-size": "40b"})
    for cut in mutated_payloads(payload, seed=rng.randrange(1000), count=400):
        reader = BitmapReader(cut, data_type, base_offset=1000)
        for visit, args in ((reader.visit_equal, ["a"]), (reader.visit_is_null, []),
                            (reader.visit_not_in, [["b", "zz"]])):
            try:
                visit(*args)
            except DecodeError as err:
                assert 1000 <= err.offset <= 1000 + len(cut), err


@pytest.mark.parametrize("type_name", ["INT", "STRING"])
def test_a_corrupt_bitmap_is_placed_alike_by_single_and_batch_lookups(type_name):
    data_type = parse_type(type_name)
    values = [v if type_name == "INT" else f"k{v}" for v in [1, 2, 2, 3, 3, 3, 4, 4]]
    payload = bytearray(build(values, data_type, {"version": "1"}))
    reader = BitmapReader(bytes(payload), data_type)
    reader._read_meta()
    offset, _ = reader._locate(reader._sort_key(reader._key(values[3])))
    at = reader._body_start + offset
    payload[at + 4:at + 8] = b"\xff\xff\xff\x7f"  # the container count of the bitmap of 3 (its cookie intact)
    data = bytes(payload)
    with pytest.raises(DecodeError) as single:
        BitmapReader(data, data_type, base_offset=500).visit_equal(values[3])
    batches = (lambda r: r.visit_equal_many(values), lambda r: r.visit_in(values[1:4]),
               lambda r: r.visit_not_in(values), lambda r: r.prefetch(values))
    for batch in batches:
        reader = BitmapReader(data, data_type, base_offset=500)
        with pytest.raises(DecodeError) as raised:
            batch(reader)
        assert (type(raised.value), raised.value.offset, raised.value.field) == \
            (type(single.value), 500 + at, single.value.field)
        with pytest.raises(DecodeError):  # asked again, it fails again: never an empty (SKIP) answer
            reader.visit_equal(values[3])
    assert set(BitmapReader(data, data_type).visit_in(values[:2]).bitmap) == {0, 1, 2}  # the others still read


@pytest.mark.parametrize("type_name, literal", [("STRING", 5), ("STRING", 1.5), ("INT", "5"), ("INT", True)])
def test_a_literal_of_the_wrong_type_is_refused_not_misread(type_name, literal):
    data_type = parse_type(type_name)
    reader = BitmapReader(build(["5", "x"] if type_name == "STRING" else [5, 6], data_type), data_type)
    with pytest.raises(UsageError, match="must be"):
        reader.visit_equal(literal)


@st.composite
def scanned_blocks(draw):
    """Equal-length keys without a trailing NUL, often repeated, and probes of any length."""
    width = draw(st.integers(1, 4))
    pool = draw(st.lists(st.binary(min_size=width, max_size=width).filter(lambda b: not b.endswith(b"\0")),
                         min_size=1, max_size=6))
    keys = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=30))
    return keys, draw(st.lists(st.binary(max_size=width + 1), max_size=5))


@given(scanned_blocks())
def test_a_scanned_block_answers_as_the_dict_on_first_and_later_lookups(block):
    """Equal-length string keys are searched in their packed bytes on a block's first lookups (one key or several,
    an occurrence straddling two keys not taken) and hashed after; both find the last of repeated keys, as the dict
    of a malformed block does."""
    from fileindex.indexes.bitmap.reader import _HashedDictionary, _ScannedDictionary

    keys, probes = block
    offsets, lengths = np.arange(len(keys), dtype=np.int64), np.arange(len(keys), dtype=np.int64) + 100
    hashed = _HashedDictionary(keys, offsets, lengths)
    packed = np.array(keys, dtype=f"S{len(keys[0])}")
    width = len(keys[0])
    straddling = [(a + b)[shift:shift + width] for a, b in itertools.pairwise(keys) for shift in range(1, width)]
    probes = keys + probes + straddling
    expected = [hashed.locate(probe) for probe in probes]
    for probe, location in zip(probes, expected, strict=True):
        found = [max(i for i, k in enumerate(keys) if k == probe)] if probe in keys else []
        assert location == (None if not found else (found[0], found[0] + 100))
    one_by_one = _ScannedDictionary(packed, offsets, lengths)
    rounds = _ScannedDictionary._SEARCHES // len(probes) + 2
    assert [one_by_one.locate(probe) for probe in probes * rounds] == expected * rounds  # searched, then hashed
    assert one_by_one.hashed is not None
    for size in (1, 3, _ScannedDictionary._SEARCHES + 1):
        in_lists = _ScannedDictionary(packed, offsets, lengths)
        answers = [in_lists.locate_many(probes[j:j + size]) for j in range(0, len(probes), size)]
        assert [location for answer in answers for location in answer] == expected


@pytest.mark.parametrize("version", [1, 2])
def test_an_in_list_of_a_few_equal_length_strings_is_searched_without_hashing_the_dictionary(version):
    """IN 10 over 1000 equal-length string keys finds its rows by searching the keys' bytes: no dict of the
    dictionary (or V2 block) is built for it, and the rows are those of each key's equality."""
    from fileindex.indexes.bitmap.reader import _ScannedDictionary

    keys = [f"key-{j:06d}" for j in range(1000)]
    column = [keys[(7 * row) % 1000] for row in range(20_000)]
    payload = build(column, parse_type("STRING"), {"version": str(version), "index-block-size": "1mb"})
    wanted = keys[100:110] + ["key-absent", "key-0001000"]
    reader = BitmapReader(payload, parse_type("STRING"))
    rows = reader.visit_in(wanted).bitmap
    dictionaries = reader._dictionaries()
    assert all(isinstance(d, _ScannedDictionary) and d.hashed is None for d in dictionaries)
    alone = BitmapReader(payload, parse_type("STRING"))
    assert set(rows) == set().union(*(alone.visit_equal(key).bitmap for key in wanted))
    assert len(rows) == 10 * 20


def test_v2_block_counts_are_read_and_placed_by_the_generated_reader():
    """``len_index_blocks`` and each block's ``num_entries`` come from the spec's header types: a bad
    value is placed at its spec field; a directory offset out of order at the directory."""
    from fileindex.errors import InvalidLengthError, InvalidOffsetError
    from fileindex.kaitai_runtime import open_stream

    data_type = parse_type("INT")
    payload = build(list(range(40)), data_type, {"index-block-size": "64b"})  # single rows: offsets -1 - row
    tree = Bitmap(key_kind(data_type).code, open_stream(payload))
    tree._read()
    blocks_header_at = tree._debug["index_blocks_header"]["start"]
    blocks_at = tree._debug["index_blocks"]["start"]
    assert len(tree.block_dir) >= 2

    def read(corrupt: bytearray):
        with pytest.raises(InvalidLengthError) as raised:
            BitmapReader(bytes(corrupt), data_type, base_offset=300).visit_equal(39)
        return raised.value.offset - 300, raised.value.field

    corrupt = bytearray(payload)
    corrupt[blocks_header_at:blocks_header_at + 4] = (len(payload)).to_bytes(4, "big")
    assert read(corrupt) == (blocks_header_at, "bitmap/index_blocks_header/len_index_blocks")

    last = len(tree.block_dir) - 1
    block_at = blocks_at + tree.block_dir[last].ofs_block
    corrupt = bytearray(payload)
    corrupt[block_at:block_at + 4] = (-1).to_bytes(4, "big", signed=True)
    assert read(corrupt) == (block_at, f"bitmap/index_blocks/blocks[{last}]/header/num_entries")

    ref_at = tree._debug["block_dir"]["arr"][last]["start"] + 4  # the block's ofs_block, after its INT key
    corrupt = bytearray(payload)
    corrupt[ref_at:ref_at + 4] = (8).to_bytes(4, "big")  # into block 0's first entry: its offset -1 - row
    with pytest.raises(InvalidOffsetError) as raised:  # caught at the directory: its offsets no longer run up
        BitmapReader(bytes(corrupt), data_type, base_offset=300).visit_equal(39)
    assert raised.value.field == "bitmap/block_dir"


@pytest.mark.parametrize("version", ["1", "2"])
@pytest.mark.parametrize("probe", ["visit_equal", "visit_in"])
def test_an_absent_string_key_under_a_type_the_index_was_not_built_for_is_refused(version, probe):
    """An INT index queried as STRING must fail its dictionary's checks even for a key it does not hold (a
    byte search for the key's encoding once answered such keys as absent, without reading the dictionary)."""
    int_type = parse_type("INT")
    payload = encode(layout([10, 20, 20, None, 30, 10, 20], int_type, {"version": version}))
    literal = "20" if probe == "visit_equal" else ["20", "40"]
    with pytest.raises(DecodeError):
        getattr(BitmapReader(payload, parse_type("STRING")), probe)(literal)


@pytest.mark.parametrize("compiled", [True, False], ids=["kernels", "reference"])
def test_an_in_list_naming_a_bitmap_past_java_ints_fails_at_its_offset(monkeypatch, compiled):
    """IN decodes its bitmaps straight into one row list where the kernels are built; a bitmap holding a row
    past Java's signed int (its container key changed to 0x8000) fails there as an equality does."""
    from fileindex import kernels
    from fileindex.errors import InvalidEncodingError

    if not compiled:
        monkeypatch.setattr(kernels, "compiled", None)
    payload = bytearray(build(pa.array([1, 2, 2, 3, 3, 3], pa.int32()), parse_type("INT"), {}))
    probe = BitmapReader(bytes(payload), parse_type("INT"))
    probe.visit_is_null()  # reads the dictionary
    start = probe._body_start + probe._locate(3)[0]
    payload[start + 8:start + 10] = (0x8000).to_bytes(2, "little")  # the first container's key
    reader = BitmapReader(bytes(payload), parse_type("INT"), base_offset=1000)
    assert rows(reader.visit_in([1, 2])) == {0, 1, 2}
    with pytest.raises(InvalidEncodingError, match="does not fit Java's signed int") as raised:
        reader.visit_in([2, 3])
    assert raised.value.offset == 1000 + start


@given(st.lists(st.integers(0, 50), max_size=40), st.booleans())
def test_repeated_v1_offsets_are_found_rising_or_not(offsets, rising):
    from fileindex.indexes.bitmap.reader import _repeats

    ordered = sorted(offsets) if rising else offsets
    repeated = len(set(offsets)) != len(offsets)
    assert _repeats(np.array(ordered, dtype=np.int64)) == repeated
    assert _repeats(list(ordered)) == repeated  # a small dictionary's offsets are read as a list


def either_path(fn):
    """fn() with the kernels (where built), then on the reference path (no kernels)."""
    from fileindex import kernels

    fast = fn()
    saved, kernels.compiled = kernels.compiled, None
    try:
        return fast, fn()
    finally:
        kernels.compiled = saved


def lookups(payload, data_type, literals):
    """What a new reader answers (row lists; REMAIN) for the literals one by one, in one batch and prefetched, or
    where it fails, the error's type, offset and field."""
    def asked(ask):
        reader = BitmapReader(payload, data_type, base_offset=100)
        try:
            return [sorted(r.bitmap) if isinstance(r, Rows) else r for r in ask(reader)]
        except DecodeError as error:
            return type(error), error.offset, error.field

    return [asked(lambda r: [r.visit_equal(v) for v in literals]), asked(lambda r: r.visit_equal_many(literals)),
            asked(lambda r: (r.prefetch(literals), [r.visit_equal(v) for v in literals])[1]),
            asked(lambda r: [r.visit_in(literals[:5]), r.visit_in(literals), r.visit_not_in(literals[3:9])])]


@st.composite
def packed_columns(draw):
    """A column of 65-150 distinct INT, DATE or FLOAT values (a V1 dictionary, or V2 index blocks, of more than 64
    4-byte keys, which the reader packs; V2 blocks of 1 kB: a packed block and a small one after it), each in 1-40
    of its rows (one row: an inline entry), with nulls; its index, and sometimes one stored bitmap corrupted: a
    container count of 2^31 - 1, a container key past Java's ints, or a byte changed."""
    type_name = draw(st.sampled_from(["INT", "DATE", "FLOAT"]))
    data_type = parse_type(type_name)
    count, rng = draw(st.integers(65, 150)), draw(st.randoms(use_true_random=False))
    pool = rng.sample(range(-2**20, 2**20), count)
    pool = [float32(v / 7) for v in pool] if type_name == "FLOAT" else pool
    values = [v for v in pool for _ in range(rng.choice([1, 1, 2, 3, 40]))] + [None] * rng.randrange(3)
    rng.shuffle(values)
    options = draw(st.sampled_from([{"version": "1"}, {"version": "2"}, {"version": "2", "index-block-size": "1kb"}]))
    payload = bytearray(build(values, data_type, options))
    corruption = draw(st.sampled_from([None, "count", "key", "byte"]))
    stored = [v for v in pool if values.count(v) > 1]
    if corruption:
        probe = BitmapReader(bytes(payload), data_type)
        probe._read_meta()
        start = probe._body_start + probe._locate(probe._sort_key(probe._key(rng.choice(stored))))[0]
        if corruption == "count":
            payload[start + 4:start + 8] = b"\xff\xff\xff\x7f"
        elif corruption == "key":
            payload[start + 8:start + 10] = (0x8000).to_bytes(2, "little")
        else:
            payload[rng.randrange(start, len(payload))] ^= 1 << rng.randrange(8)
    literals = rng.sample(pool, 20) + [pool[0], float32(0.5) if type_name == "FLOAT" else 2**21, None]
    return data_type, values, bytes(payload), literals, corruption


@settings(max_examples=60, deadline=None)
@given(packed_columns())
def test_packed_4_byte_keys_answer_and_fail_alike_on_either_path(column):
    """With the kernels, a packed V1 dictionary's (or V2 block's) lookups locate and decode in one kernel call, its
    bitmaps of few
    rows kept as row lists (an IN list's merged in one sort); they answer each literal and IN list with the rows of
    the reference path (no kernels) and of a brute-force model, and a corrupt bitmap fails with the same error at the
    same offset, one by one, batched or in an IN list."""
    data_type, values, payload, literals, corruption = column
    fast, reference = either_path(lambda: lookups(payload, data_type, literals))
    assert fast == reference
    if corruption is None:
        nulls = {r for r, value in enumerate(values) if value is None}
        expected = [truth(values, data_type, functools.partial(operator.eq, key_of(v, data_type)))
                    if v is not None else nulls for v in literals]
        assert fast[:3] == [[sorted(rows) for rows in expected]] * 3
        in_lists = [set().union(*expected[:5]), set().union(*expected),
                    set(range(len(values))) - set().union(*expected[3:9])]
        assert fast[3] == [sorted(rows) for rows in in_lists]


@pytest.mark.parametrize("case", [c for c in cases_for("bitmap", ok=True) if c.options.get("version") == "1"],
                         ids=lambda c: c.name)
def test_java_v1_vectors_answer_alike_on_either_path(case):
    literals = [args[0] for method, args, _, _ in case.queries() if method == "visit_equal"]
    literals += [v for v in case.values() if v is not None][:300]
    fast, reference = either_path(lambda: lookups(case.payload(), case.data_type, literals))
    assert fast == reference and not isinstance(fast[0], tuple)


@pytest.mark.parametrize("version", ["1", "2"])
def test_listed_rows_make_the_bitmap_only_when_asked(version):
    data_type = parse_type("INT")
    payload = build([v % 100 for v in range(1000)], data_type, {"version": version})
    result = BitmapReader(payload, data_type).visit_equal(7)
    expected = set(range(7, 1000, 100))
    from fileindex import kernels

    if kernels.compiled is not None:  # decoded by the kernel into a row list: counted without a bitmap
        assert result._bitmap is None and result.cardinality == 10 and result.remain() and result._bitmap is None
    assert set(result.bitmap) == expected and result == Rows(expected) and result.cardinality == 10
    assert pickle.loads(pickle.dumps(result)) == result


@pytest.mark.compiled  # (the packed path is the kernels'; the reference path searches its own way)
def test_keys_of_a_small_v2_block_beside_packed_ones_are_located_once(monkeypatch):
    """V2 blocks of 1 kB over 4-byte keys: packed blocks and a small one after them. A lookup through the
    packed path takes each key's location from the block search itself, never a second search."""
    data_type = parse_type("INT")
    values = [v % 300 for v in range(3000)]  # (blocks of 85 keys: the last holds 45)
    payload = build(values, data_type, {"version": "2", "index-block-size": "1kb"})
    monkeypatch.setattr(BitmapReader, "_locate_in_blocks", lambda *_: pytest.fail("a key located a second time"))
    reader = BitmapReader(payload, data_type)
    for value in (0, 100, 260, 299):
        assert set(reader.visit_equal(value).bitmap) == set(range(value, 3000, 300))


@pytest.mark.parametrize("version", ["1", "2"])
def test_is_null_answers_from_the_null_rows_listed_and_alike_on_either_path(version):
    """With the kernels, IS NULL decodes the null bitmap into a row list: its count and remain make no bitmap, and a
    bitmap asked for (IS NOT NULL's complement, an AND) holds the same rows as the reference path's."""
    from fileindex import kernels

    values = [None if i % 7 == 3 or 3000 <= i < 3100 else i % 50 for i in range(70_000)]
    nulls = {row for row, value in enumerate(values) if value is None}
    payload = build(pa.array(values, pa.int32()), parse_type("INT"), {"version": version})

    def answered():
        reader = BitmapReader(payload, parse_type("INT"))
        is_null = reader.visit_is_null()
        listed = is_null._bitmap is None
        return listed, is_null.cardinality, set(is_null.bitmap), set(reader.visit_is_not_null().bitmap)

    fast, reference = either_path(answered)
    assert fast[1:] == reference[1:] == (len(nulls), nulls, set(range(len(values))) - nulls)
    assert fast[0] is (kernels.compiled is not None) and reference[0] is False


@pytest.mark.parametrize("version", ["1", "2"])
@pytest.mark.parametrize("corruption", ["count", "key", "order"])
def test_a_corrupt_null_bitmap_fails_at_its_offset_on_either_path(version, corruption):
    """Null bitmap bytes that no Roaring reader takes (a container count past the bytes, a row past Java's signed
    int, two rows out of order) fail IS NULL and IS NOT NULL with the placed error, never an answer or a crash."""
    values = [None if i % 5 == 0 else i % 9 for i in range(400)]
    payload = bytearray(build(pa.array(values, pa.int32()), parse_type("INT"), {"version": version}))
    probe = BitmapReader(bytes(payload), parse_type("INT"))
    probe._read_meta()
    start = probe._body_start + probe.null_offset  # cookie 12346, container count, key, cardinality - 1, rows
    if corruption == "count":
        payload[start + 4:start + 8] = b"\xff\xff\xff\x7f"
    elif corruption == "key":
        payload[start + 8:start + 10] = (0x8000).to_bytes(2, "little")
    else:
        payload[start + 16:start + 20] = payload[start + 18:start + 20] + payload[start + 16:start + 18]
    data = bytes(payload)

    def failed():
        found = []
        for visit in ("visit_is_null", "visit_is_not_null"):
            with pytest.raises(DecodeError) as raised:
                getattr(BitmapReader(data, parse_type("INT"), base_offset=700), visit)()
            found.append((type(raised.value), raised.value.offset))
        return found

    fast, reference = either_path(failed)
    assert fast == reference and {offset for _, offset in fast} == {700 + start}
