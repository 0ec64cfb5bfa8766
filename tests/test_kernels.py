"""The compiled kernels against the numpy reference path: same bytes, same answers, same errors.

``both_paths`` runs the code under test twice, the second time with the kernels switched off
(``fileindex.kernels.compiled`` is read at each call). Where the kernels are not built, CI fails
here: FILEINDEX_KERNELS=python is the only way to run without them (the fallback job in .ci/run,
which deselects the tests marked ``compiled``).
"""
import ast
import inspect
import os
import re
import subprocess
import sys
from array import array

import numpy as np
import pyarrow as pa
import pytest
from conftest import JAVA_VECTORS, ROOT
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pyroaring import BitMap, FrozenBitMap
from vector_cases import cases_for

from fileindex import kernels
from fileindex.indexes import bloom_filter, bsi, range_bitmap, roaring
from fileindex.indexes.bitmap import reader as bitmap_reader
from fileindex.indexes.bitmap.keys import key_kind
from fileindex.indexes.bitmap.reader import _PackedDictionary
from fileindex.indexes.bloom_filter.writer import BloomFilterWriter
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.java import fast_hash, xxh64
from fileindex.java.column_hash import column_hashes
from fileindex.java.string_buffers import binary_buffers
from fileindex.reference.vector_format import to_arrow
from fileindex.types import parse_type

compiled_only = pytest.mark.compiled  # deselected (-m "not compiled") by the fallback job in .ci/run
LONGS = st.integers(-2**63, 2**63 - 1)


def both_paths(fn, *args):
    """fn(*args) on the compiled path, then on the reference path."""
    fast = fn(*args)
    saved, kernels.compiled = kernels.compiled, None
    try:
        return fast, fn(*args)
    finally:
        kernels.compiled = saved


@compiled_only
def test_the_kernels_are_built_and_chosen():
    assert kernels.compiled is not None, "fileindex._kernels did not build: is a C compiler installed?"
    assert kernels.describe().startswith("compiled")


def _signatures(functions, skip: int) -> dict[str, tuple]:
    """name -> (parameters with their annotations, return annotation), ``skip`` leading parameters left out"""
    return {f.name: (tuple((a.arg, ast.unparse(a.annotation)) for a in f.args.args[skip:]), ast.unparse(f.returns))
            for f in functions if isinstance(f, ast.FunctionDef)}


@compiled_only
def test_the_stub_and_the_protocol_describe_the_built_module():
    stub = ast.parse((ROOT / "fileindex" / "_kernels.pyi").read_text()).body
    (protocol,) = [n for n in ast.parse(inspect.getsource(kernels)).body
                   if isinstance(n, ast.ClassDef) and n.name == "Kernels"]
    functions = _signatures(stub, 0)
    assert functions == _signatures(protocol.body, 1)
    classes = {n.name: n for n in stub if isinstance(n, ast.ClassDef)}
    attributes = {n.target.id for n in protocol.body if isinstance(n, ast.AnnAssign)}
    public = {name for name in dir(kernels.compiled) if not name.startswith("_")}
    assert public == set(functions) | set(classes) == set(_signatures(protocol.body, 1)) | attributes
    for name, (parameters, _) in functions.items():  # each docstring opens with the call: name(parameters)
        called = re.match(r"(\w+)\(([^)]*)\)", getattr(kernels.compiled, name).__doc__)
        assert called and called[1] == name and called[2].split(", ") == [p for p, _ in parameters], name
    for name, stub_class in classes.items():
        methods = {method for method in dir(getattr(kernels.compiled, name)) if not method.startswith("_")}
        assert methods == set(_signatures(stub_class.body, 1)) - {"__init__"}, name


@pytest.mark.parametrize("choice, expected", [
    ("python", "numpy reference path"),
    pytest.param("compiled", "compiled kernels", marks=compiled_only),
    pytest.param("", "compiled kernels", marks=compiled_only),
])
def test_the_environment_chooses_the_path(choice, expected):
    code = "from fileindex import kernels; print(kernels.describe())"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, kernels.ENVIRONMENT: choice},
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith(expected)


def test_a_wrong_choice_says_what_to_use():
    code = "import fileindex.kernels"
    run = subprocess.run([sys.executable, "-c", code], env={**os.environ, kernels.ENVIRONMENT: "fast"},
                         capture_output=True, text=True)
    assert run.returncode != 0 and "use one of auto, compiled, python" in run.stderr


# --------------------------------------------------------------------------- every bloom vector

BLOOM_CASES = cases_for("bloom-filter", ok=True)


@compiled_only
@pytest.mark.parametrize("case", BLOOM_CASES, ids=lambda c: c.name)
def test_bloom_vectors_build_alike_from_lists_and_arrow(case):
    values, arrow = case.values(), to_arrow(case.values(), case.data_type)
    for column in (values, arrow):
        fast, reference = both_paths(bloom_filter.build, column, case.data_type, case.options)
        assert fast == reference == case.payload()


@compiled_only
@pytest.mark.parametrize("case", BLOOM_CASES, ids=lambda c: c.name)
def test_bloom_vectors_answer_alike(case):
    def answers():
        reader = bloom_filter.BloomFilterReader(case.payload(), case.data_type)
        probes = [args for method, args, _, _ in case.queries() if method == "visit_equal"]
        single = [reader.visit_equal(*args) for args in probes]
        present = [v for v in case.values() if v is not None]
        batch = reader.might_contain_column(to_arrow(present, case.data_type)).tolist() if present else []
        return single, batch

    fast, reference = both_paths(answers)
    assert fast == reference
    assert all(fast[1]), "a value written is always found"


# --------------------------------------------------------------------------- Hypothesis

@compiled_only
@settings(max_examples=150, deadline=None)
@given(st.lists(LONGS, max_size=300))
def test_fast_hash_of_longs(keys):
    array = np.array(keys, dtype=np.int64)
    fast, reference = both_paths(lambda: fast_hash.wang_mix_array(array))
    assert fast.tolist() == reference.tolist() == [fast_hash.wang_mix(k) for k in keys]
    assert [fast_hash.hash_value(k, parse_type("BIGINT")) for k in keys] == [fast_hash.wang_mix(k) for k in keys]


@compiled_only
@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=120), st.integers(0, 5), st.booleans())
def test_xxh64_of_strings(values, cut, large):
    array = pa.array(values, type=pa.large_binary() if large else pa.binary()).slice(min(cut, len(values)))
    data, offsets = binary_buffers(array)
    fast, reference = both_paths(lambda: xxh64.xxh64_offsets(data, offsets))
    assert fast.tolist() == reference.tolist() == [fast_hash.xxh64(v) for v in values[min(cut, len(values)):]]


@compiled_only
@settings(max_examples=100, deadline=None)
@given(st.one_of(st.lists(st.one_of(LONGS, st.none()), max_size=400).map(lambda v: ("BIGINT", v)),
                 st.lists(st.one_of(st.text(max_size=40), st.none()), max_size=400).map(lambda v: ("STRING", v))),
       st.integers(1, 5000), st.sampled_from(["0.5", "0.1", "0.01", "0.0001", "1e-12"]), st.booleans())
def test_bloom_build_and_probe(column, items, fpp, arrow):
    type_name, values = column
    data_type = parse_type(type_name)
    options = {"items": str(items), "fpp": fpp}
    data = to_arrow(values, data_type) if arrow else values
    fast, reference = both_paths(lambda: bloom_filter.build(data, data_type, options))
    assert fast == reference
    probes = np.array([fast_hash.hash_value(v, data_type) for v in values if v is not None] + list(range(-50, 50)),
                      dtype=np.int64)
    reader = bloom_filter.BloomFilterReader(fast, data_type)
    found_fast, found_reference = both_paths(lambda: reader.test_hashes(probes))
    assert found_fast.tolist() == found_reference.tolist()
    singles = both_paths(lambda: [reader.test_hash(h) for h in probes.tolist()])
    assert singles[0] == singles[1] == found_fast.tolist()
    literals = [v for v in values if v is not None] + (list(range(-50, 50)) if type_name == "BIGINT" else ["", "x"])
    contained = both_paths(lambda: [bloom_filter.BloomFilterReader(fast, data_type).might_contain(v)
                                    for v in literals])  # (a reader per path: it picks its probe on opening)
    assert contained[0] == contained[1]
    assert all(contained[0][:len(literals) - (100 if type_name == "BIGINT" else 2)])
    visited = both_paths(lambda: [bloom_filter.BloomFilterReader(fast, data_type).visit_equal(v)
                                  for v in [*literals, None]])
    assert visited[0] == visited[1] == [REMAIN if found else SKIP for found in contained[0]] + [REMAIN]


@compiled_only
@pytest.mark.parametrize("type_name, literals", [
    ("INT", [7, -2**31, 2**31 - 1, True, np.int32(7), np.int64(9)]),
    ("BIGINT", [7, -2**63, 2**63 - 1, False, np.int64(7)]),
    ("STRING", ["plain", "", "ünïcödé", "\ud800 lone", b"bytes", bytearray(b"plain")]),
    ("BINARY(3)", [b"abc", bytearray(b"abd"), memoryview(b"abe")]),
    ("DOUBLE", [0.5, -0.0, float("nan"), 3]),
])
def test_the_probe_answers_every_literal_as_the_python_path(type_name, literals):
    """The compiled probe hashes plain ints and strs itself and hands the rest (numpy scalars, bools, bytes, lone
    surrogates, floats) to the Python path: every answer, and every refusal, is the reference path's."""
    data_type = parse_type(type_name)
    payload = bloom_filter.build(literals[:2], data_type, {"items": "10", "fpp": "0.01"})

    def answers(literal):
        reader = bloom_filter.BloomFilterReader(payload, data_type)
        try:
            return reader.visit_equal(literal), reader.might_contain(literal), reader.visit_in([literal, literal])
        except Exception as error:  # (the refusal is compared)
            return type(error), str(error)

    for literal in [*literals, 2**40, -2**63 - 1, 2**64, "x", 1.5]:
        fast, reference = both_paths(answers, literal)
        assert fast == reference, literal
    assert all(answers(v)[0] is REMAIN for v in literals[:2])


@compiled_only
def test_the_probe_reads_ints_of_every_digit_count_as_the_python_path():
    """The probe reads an int of up to three 30-bit digits (below 2^63) from CPython's layout and converts any other
    the general way: every value at a digit boundary, either sign, that the filter holds is found, and each answers
    as the reference path does."""
    edges = [0, 1, 2**30 - 1, 2**30, 2**30 + 1, 2**60 - 1, 2**60, 2**60 + 1, 2**62, 7 * 2**60 + 5, 2**63 - 1]
    values = sorted({sign * edge for edge in edges for sign in (1, -1)} | {-2**63})
    data_type = parse_type("BIGINT")
    payload = bloom_filter.build(values, data_type, {"items": "40", "fpp": "0.0001"})
    reader = bloom_filter.BloomFilterReader(payload, data_type)
    assert all(reader.visit_equal(v) is REMAIN for v in values)
    for literal in {*values, *(v + 1 for v in values[:-1]), *(v - 1 for v in values[1:])}:
        fast, reference = both_paths(lambda v: bloom_filter.BloomFilterReader(payload, data_type).visit_equal(v),
                                     literal)
        assert fast is reference, literal


@compiled_only
def test_the_reader_is_its_probe_on_the_compiled_path_only():
    """With the kernels, visit_equal is the probe's C method found on the reader's type (the interpreter then
    calls it straight from a loop: no bound method, no lookup in the instance); without, the Python method."""
    import gc
    import weakref

    data_type = parse_type("BIGINT")
    payload = bloom_filter.build([1, 2, 3], data_type, {"items": "10"})
    fast, reference = both_paths(lambda: bloom_filter.BloomFilterReader(payload, data_type))
    assert isinstance(fast, bloom_filter.BloomFilterReader) and isinstance(fast, kernels.compiled.BloomProbe)
    method = vars(type(fast))["visit_equal"]  # visit() as the subclass's own method: called without a type check
    assert method.__objclass__ is type(fast) and method.__name__ == "visit" and "visit_equal" not in vars(fast)
    assert type(reference) is bloom_filter.BloomFilterReader
    assert type(bloom_filter.BloomFilterReader(payload, data_type)) is type(fast)  # one class per process
    assert [fast.visit_equal(v) for v in (1, 4, None)] == [reference.visit_equal(v) for v in (1, 4, None)]
    gone = weakref.ref(fast)
    del fast
    gc.collect()
    assert gone() is None  # (the probe holds no reference back to its reader)


@compiled_only
def test_values_written_one_at_a_time_equal_the_whole_column():
    values = [7, -1, None, 2**40, 7, 0]

    def one_at_a_time():
        writer = BloomFilterWriter(parse_type("BIGINT"), {"items": "1000"})
        for value in values:
            writer.write(value)
        return writer.serialize()

    fast, reference = both_paths(one_at_a_time)
    assert fast == reference == bloom_filter.build(values, parse_type("BIGINT"), {"items": "1000"})


@compiled_only
def test_a_large_column_equals_the_reference():
    """Compiled, integer keys are one piece and strings a piece a thread, each thread's bit set OR-ed in after."""
    keys = np.random.default_rng(7).integers(-2**63, 2**63 - 1, 600_000, dtype=np.int64)
    options = {"items": "600000", "fpp": "0.02"}
    fast, reference = both_paths(lambda: bloom_filter.build(pa.array(keys), parse_type("BIGINT"), options))
    assert fast == reference
    strings = pa.array(keys.astype(str))
    fast, reference = both_paths(lambda: bloom_filter.build(strings, parse_type("STRING"), options))
    assert fast == reference
    assert column_hashes(pa.array(keys), parse_type("BIGINT"), distinct=False).tolist() == \
        fast_hash.wang_mix_array(keys).tolist()


@compiled_only
def test_a_filter_larger_than_the_cache_answers_alike():
    """Over 4 MB the compiled probe prefetches a group of probes ahead (another loop)."""
    keys = np.random.default_rng(8).integers(-2**63, 2**63 - 1, 200_000, dtype=np.int64)
    payload = bloom_filter.build(pa.array(keys), parse_type("BIGINT"), {"items": "4000000", "fpp": "0.01"})
    assert len(payload) > 4 << 20
    reader = bloom_filter.BloomFilterReader(payload, parse_type("BIGINT"))
    probes = np.concatenate([fast_hash.wang_mix_array(keys[:5000]),
                             np.random.default_rng(9).integers(-2**63, 2**63 - 1, 5000, dtype=np.int64)])
    fast, reference = both_paths(lambda: reader.test_hashes(probes))
    assert fast.tolist() == reference.tolist() and fast[:5000].all() and not fast[5000:].all()


@compiled_only
@pytest.mark.parametrize("num_bits", [8, 72, 9_585_064, 33_554_424])
def test_the_bits_set_from_hashes_keys_and_strings_are_the_reference_positions(num_bits):
    """Below 4 MB the kernels set bits in groups of 8 rows, their positions computed 4 to a vector where the
    processor has AVX2: every k (past the 32 the groups take) and every count of rows around a group's edge sets
    exactly the reference's bits, from hashes, keys and strings alike."""
    from fileindex.indexes.bloom_filter.keys import bit_positions

    keys = np.random.default_rng(num_bits).integers(-2**63, 2**63 - 1, 1000, dtype=np.int64)
    strings = pa.array([str(key) for key in keys.tolist()])
    for k in [0, 1, 2, 3, 7, 10, 31, 32, 33]:
        for rows in [0, 1, 7, 8, 9, 15, 16, 17, 1000]:
            bits = [np.zeros(num_bits // 8, dtype=np.uint8) for _ in range(3)]
            kernels.compiled.bloom_add_hashes(bits[0], fast_hash.wang_mix_array(keys[:rows]), num_bits, k)
            kernels.compiled.bloom_add_longs(bits[1], keys[:rows], num_bits, k)
            cut = binary_buffers(strings.slice(0, rows))
            kernels.compiled.bloom_add_strings(bits[2], *cut, cut[1].itemsize, num_bits, k)
            expected = np.zeros(num_bits, dtype=bool)
            expected[bit_positions(fast_hash.wang_mix_array(keys[:rows]), num_bits, k).ravel()] = True
            assert bits[0].tobytes() == bits[1].tobytes() == np.packbits(expected, bitorder="little").tobytes()
            expected[:] = False
            expected[bit_positions(xxh64.xxh64_offsets(*cut), num_bits, k).ravel()] = True
            assert bits[2].tobytes() == np.packbits(expected, bitorder="little").tobytes(), (k, rows)


@compiled_only
@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.one_of(st.integers(0, 40), st.integers(0, 2**63 - 1))), max_size=300),
       st.integers(0, 64))
def test_bit_slices(pairs, num_bits):
    rows = np.flatnonzero([keep for keep, _ in pairs])
    values = np.array([value for keep, value in pairs if keep], dtype=np.int64)
    for column, bits in ((values, num_bits), ((values & 0xFFFFFFFF).astype(np.uint32), min(num_bits, 32))):
        fast, reference = both_paths(roaring.serialized_bit_slices, rows, column, bits)
        expected = [[int(r) for r, v in zip(rows, column, strict=True) if int(v) >> b & 1] for b in range(bits)]
        assert fast == reference and [list(BitMap.deserialize(s)) for s in fast] == expected


@compiled_only
@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "", "ccc", "d" * 20])), max_size=200))
def test_rows_grouped_by_code_as_arrow_sorts_them(values):
    from fileindex.indexes.bitmap.writer import _rows_by_code

    encoded = pa.array(values, pa.string()).dictionary_encode()
    valid = len(values) - encoded.null_count
    fast, reference = both_paths(_rows_by_code, encoded.indices, len(encoded.dictionary), valid)
    assert fast[0].tolist() == reference[0].tolist() and fast[1].tolist() == reference[1].tolist()


def _dense_slices_column() -> tuple[np.ndarray, np.ndarray]:
    """Rows and values whose slices hold every kind of container: bitsets (bit 0: every other row of 2^18), runs (bit
    1: blocks of 4096 and a whole 2^16-row chunk) and arrays of about 4096 rows, on both sides of it (bit 2)."""
    rows = np.arange(1 << 18)
    values = (rows & 1) | ((rows >> 12 & 1) * 2) | (((rows >= 1 << 16) & (rows < 1 << 17)) * 2)
    picked = np.random.default_rng(4).choice(1 << 16, 4096 + 4097, replace=False) + (1 << 17)
    values[picked[:4096]] |= 4  # container 2: 4096 rows, an array; container 3: 4097, a bitset
    values[picked[4096:] + (1 << 16)] |= 4
    values[(1 << 17) + 3 * np.arange(2500)] |= 8  # 2500 rows in as many runs: an array
    return rows, values


@compiled_only
def test_bit_slices_of_every_container_kind():
    rows, values = _dense_slices_column()
    fast, reference = both_paths(roaring.serialized_bit_slices, rows, values, 4)
    assert fast == reference
    assert [len(BitMap.deserialize(s)) for s in fast] == [int((values >> b & 1).sum()) for b in range(4)]


@compiled_only
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 70_000),
                                   st.integers(0, 300).map(lambda r: 65_536 * 3 + r)), max_size=400), max_size=8),
       st.sampled_from([0, 1, 2, 4095, 4096, 4097]), st.integers(1, 3))
def test_serialized_groups_match_pyroaring(groups, run_count, run_length):
    """Any rows (repeats, any order), and runs whose array, run and bitset sizes tie or nearly: Java's runOptimize
    takes runs only where strictly smaller (cardinality 2r + 1 in r runs stays an array)."""
    runs = (np.arange(run_count)[:, None] * (run_length + 1) + np.arange(run_length)[None, :]).ravel()
    groups = [*groups, runs.tolist(), (runs[: 2 * run_count + 1] + (5 << 16)).tolist(), list(range(65_536))]
    counts = np.array([len(g) for g in groups], dtype=np.int64)
    rows = np.array([r for g in groups for r in g], dtype=np.uint32)
    starts = np.cumsum(counts) - counts
    fast, reference = both_paths(roaring.serialize_groups, rows, starts, counts)
    assert fast[0] == reference[0] and fast[1].tolist() == reference[1].tolist()


@compiled_only
@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(LONGS.filter(lambda v: v != -2**63), st.none()), max_size=300))
def test_bsi_and_range_bitmap_build_alike(values):
    for index, type_name in ((bsi, "BIGINT"), (range_bitmap, "BIGINT"), (range_bitmap, "STRING")):
        column = values if type_name == "BIGINT" else [None if v is None else str(v % 97) for v in values]
        fast, reference = both_paths(index.build, column, parse_type(type_name))
        assert fast == reference


@st.composite
def framed_bitmaps(draw):
    """Serialized bitmaps of 0-6 containers, each an array, a bitmap or runs (cardinalities at the
    4096 boundary; with and without runs, so with and without the offsets table), often cut or with
    a byte changed, at a random start inside a longer buffer."""
    bitmap = BitMap()
    for high in draw(st.lists(st.integers(0, 2**16 - 1), unique=True, max_size=6)):
        base = high << 16
        cardinality = draw(st.sampled_from([1, 2, 100, 4095, 4096, 4097, 20000, 65536]))
        if draw(st.booleans()):  # evenly spread: an array or a bitmap
            # a list: pyroaring's update with a stepped range ending at 2**32 never returns
            bitmap.update(list(range(base, base + 65536, 65536 // cardinality)[:cardinality]))
        else:
            first = draw(st.integers(0, 65536 - cardinality))
            bitmap.add_range(base + first, base + first + cardinality)
    if draw(st.booleans()):
        bitmap.run_optimize()
    prefix = draw(st.binary(max_size=8))
    data = bytearray(prefix + bitmap.serialize() + draw(st.binary(max_size=8)))
    start = draw(st.one_of(st.just(len(prefix)), st.integers(0, len(data))))
    for _ in range(draw(st.integers(0, 1))):
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data[:draw(st.one_of(st.just(len(data)), st.integers(0, len(data))))]), start


@compiled_only
@settings(max_examples=300, deadline=None)
@given(framed_bitmaps())
def test_roaring_framing_alike(framed):
    data, start = framed
    view = memoryview(data)
    try:
        expected = roaring.reference_portable_size(view, start, base=0, field="r")
    except Exception as error:  # the reference raises the placed error; the kernel says it does not frame
        assert kernels.compiled.roaring_size(view, start) == -1, error
        with pytest.raises(type(error)):
            roaring.portable_size(view, start, base=0, field="r")
    else:
        assert kernels.compiled.roaring_size(view, start) == expected
        assert roaring.portable_size(view, start, base=0, field="r") == expected


@compiled_only
@settings(max_examples=300, deadline=None)
@given(framed_bitmaps())
def test_roaring_rows_decodes_only_what_pyroaring_reads_alike(framed):
    """A bitmap the kernels decode is one pyroaring (CRoaring's checks) reads as the same rows, each a signed
    int; anything else (cut, changed, a row of 2^31 or more) they leave to the Python loop, which raises."""
    data, start = framed
    rows = kernels.compiled.roaring_rows(data, [(start, len(data))], 1 << 20)
    bitmaps = kernels.compiled.roaring_bitmaps(data, [(start, len(data))], FrozenBitMap.deserialize)
    for decoded in ([] if rows is None else [array("I", rows).tolist()]) + ([] if bitmaps is None else bitmaps):
        expected = FrozenBitMap.deserialize(data[start:])
        assert list(decoded) == list(expected)
        assert not expected or expected.max() < 2**31
    assert rows is None or bitmaps is not None  # the strict decoder accepts no more than pyroaring


@compiled_only
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=30), st.binary(min_size=1, max_size=3))
def test_roaring_cookies_alike(offsets, noise):
    """The bitmap reader's cookie look at the offsets a block names: the kernel's answer is numpy's, for offsets at
    bitmaps, between them, and near or past the end."""
    body = bytearray(noise)
    for bitmap in (BitMap([1]), BitMap(range(5)), BitMap(range(0, 100, 7))):
        bitmap.run_optimize()  # the two cookies: with and without run containers
        body += bitmap.serialize() + noise
    reader = bitmap_reader.BitmapReader(b"", parse_type("INT"))
    reader._view, reader._body_start = memoryview(bytes(2) + body), 2
    reader._size = len(reader._view)
    fast, reference = both_paths(reader._roaring_at, np.array(offsets, dtype=np.int64))
    assert fast == reference


ROW_SPANS = st.lists(st.tuples(st.integers(0, 2**31 - 1), st.sampled_from([1, 2, 3, 100, 4097, 70000])),
                     max_size=5)


@compiled_only
@settings(max_examples=100, deadline=None)
@given(st.lists(ROW_SPANS, min_size=1, max_size=4), st.booleans(), st.binary(max_size=5))
def test_roaring_rows_decodes_every_bitmap_java_writes(bitmaps, optimize, gap):
    """Bitmaps of arrays, bitmap containers and runs with rows below 2^31, back to back: each decoded (into one
    row list, its rows concatenated in span order; past the limit, none), or deserialized from C."""
    data, spans, expected = bytearray(gap), [], []
    for ranges in bitmaps:
        bitmap = BitMap()
        for first, length in ranges:
            bitmap.add_range(first, min(first + length, 2**31))
        if optimize:
            bitmap.run_optimize()
        spans.append((len(data), len(data) + len(bitmap.serialize())))
        data += bitmap.serialize() + gap
        expected += list(bitmap)
    rows = kernels.compiled.roaring_rows(data, spans, len(expected))
    assert rows is not None and array("I", rows).tolist() == expected
    bitmaps = kernels.compiled.roaring_bitmaps(data, spans, FrozenBitMap.deserialize)
    assert bitmaps is not None and [row for bitmap in bitmaps for row in bitmap] == expected
    if expected:
        assert kernels.compiled.roaring_rows(data, spans, len(expected) - 1) is None


@given(st.lists(st.integers(-2**31, 2**31 - 1), max_size=200), st.lists(st.integers(-2**33, 2**33), max_size=20),
       st.randoms(use_true_random=False))
def test_packed_dictionary_lookups_alike(keys, probes, rng):
    records = np.array([((key & 0xFFFFFFFF) << 32) | rng.randrange(2**32) for key in keys], dtype=np.uint64)
    dictionary = _PackedDictionary(records.view(np.int64), key_kind(parse_type("INT")))
    wanted = [key for key in probes + keys[:5] if -2**31 <= key < 2**31]
    fast, reference = both_paths(dictionary.locate_many, wanted)
    assert fast == reference
    assert both_paths(lambda: [dictionary.locate(key) for key in wanted]) == (fast, fast)


@compiled_only
@settings(max_examples=100, deadline=None)
@given(st.lists(framed_bitmaps(), min_size=1, max_size=4), st.lists(st.integers(0, 2**31 - 1), max_size=3),
       st.sampled_from([0, 1, 50, 4096, 1 << 20]), st.randoms(use_true_random=False))
def test_packed_rows_are_the_located_bitmaps_rows(framed, inline, limit, rng):
    """packed_rows is packed_locate and roaring_rows in one call: None where no entry holds the key; else the rows
    of the bitmap at the entry's offset (a negative offset: its one inline row), or the offset where roaring_rows
    would not decode that bitmap (cut, changed, a row past 2^31 - 1, more rows than the limit), as pyroaring reads
    it where it is decoded."""
    body, data, offsets = 3, bytearray(b"xyz"), []
    for chunk, start in framed:
        offsets.append(len(data) - body + start)
        data += chunk
    offsets += [-1 - row for row in inline] + [len(data) - body + rng.randrange(1, 5)]  # the last past the data
    keys = rng.sample(range(-1000, 1000), len(offsets))
    entries = [(key & 0xFFFFFFFF) << 32 | offset & 0xFFFFFFFF for key, offset in zip(keys, offsets, strict=True)]
    records = np.array(entries, dtype=np.uint64)
    dictionary = _PackedDictionary(records.view(np.int64), key_kind(parse_type("INT")))
    probes = keys + [1000, -1001, 2**40]
    answers = kernels.compiled.packed_rows(dictionary.packed, dictionary.samples, dictionary.STEP, probes, data,
                                           body, limit)
    for answer, location in zip(answers, dictionary.locate_many(probes), strict=True):
        if location is None:
            assert answer is None
            continue
        offset = location[0]
        if offset < 0:
            assert array("I", answer).tolist() == [-1 - offset]
            continue
        decoded = kernels.compiled.roaring_rows(data, [(body + offset, len(data))], limit)
        if decoded is None:
            assert answer == offset
        else:
            assert answer == decoded
            assert array("I", answer).tolist() == list(FrozenBitMap.deserialize(data[body + offset:]))
    lengths = np.array([rng.choice([len(data), 4, 20]) for _ in offsets], dtype=np.int32)  # a V2 block's
    records = np.array(entries, dtype=np.uint64).view(np.int64)
    bounded = _PackedDictionary(records, key_kind(parse_type("INT")), lengths)
    answers = kernels.compiled.packed_rows(bounded.packed, bounded.samples, bounded.STEP, probes, data, body, limit,
                                           bounded.lengths)
    for answer, location in zip(answers, bounded.locate_many(probes), strict=True):
        if location is not None and location[0] >= 0:  # decoded only where the bitmap lies within its length
            end = body + location[0] + location[1]
            decoded = None if end > len(data) else kernels.compiled.roaring_rows(data[:end], [(end - location[1], end)],
                                                                                 limit)
            assert answer == (location[0] if decoded is None else decoded)


@compiled_only
@given(st.lists(st.lists(st.integers(0, 2**32 - 1), max_size=30), max_size=6))
def test_rows_union_is_the_sorted_set_of_the_parts(parts):
    union = kernels.compiled.rows_union([array("I", part).tobytes() for part in parts])
    assert array("I", union).tolist() == sorted(set().union(*map(set, parts)))


# --------------------------------------------------------------------------- misuse

@compiled_only
@pytest.mark.parametrize("call, message", [
    (lambda k: k.wang_mix(np.zeros(3, np.int64), np.zeros(2, np.int64)), "out holds 2 hashes for 3 keys"),
    (lambda k: k.wang_mix(b"1234567", bytearray(8)), "not a whole number of 8-byte elements"),
    (lambda k: k.bloom_add_longs(bytearray(2), np.zeros(1, np.int64), 24, 3), "does not hold num_bits=24"),
    (lambda k: k.bloom_add_longs(bytearray(1), np.zeros(1, np.int64), 0, 3), "does not hold num_bits=0"),
    (lambda k: k.xxh64_offsets(b"abc", np.array([0, 4], np.int32), 4, np.zeros(1, np.int64)), "outside the 3 data"),
    (lambda k: k.xxh64_offsets(b"abc", np.array([2, 1], np.int32), 4, np.zeros(1, np.int64)), "or decreases"),
    (lambda k: k.xxh64_offsets(b"abc", np.array([0, 1], np.int32), 2, np.zeros(1, np.int64)), "4 or 8 bytes"),
    (lambda k: k.xxh64_offsets(b"abc", np.array([], np.int32), 4, np.zeros(0, np.int64)), "at least one offset"),
    (lambda k: k.bloom_test_hashes(bytearray(1), np.zeros(2, np.int64), 8, 1, bytearray(1)), "1 answers for 2"),
    (lambda k: k.roaring_bit_slices(np.zeros(2, np.uint32), np.zeros(3, np.uint64), 8, 0, 8), "3 values for 2 rows"),
    (lambda k: k.roaring_bit_slices(np.zeros(1, np.uint32), np.zeros(1, np.uint64), 8, 60, 5), r"bits \[60, 65\)"),
    (lambda k: k.roaring_bit_slices(np.zeros(1, np.uint32), np.zeros(1, np.uint64), 8, -1, 2), r"bits \[-1, 1\)"),
    (lambda k: k.roaring_bit_slices(np.zeros(1, np.uint32), np.zeros(1, np.uint16), 2, 0, 8), "value width 2"),
    (lambda k: k.roaring_bit_slices(b"12345", np.zeros(1, np.uint64), 8, 0, 8),
     "not a whole number of 4-byte elements"),
    (lambda k: k.roaring_serialize(np.zeros(3, np.uint32), np.array([2], np.int64), np.array([2], np.int64),
                                   np.zeros(1, np.int64)), r"group 0: rows \[2, 2 \+ 2\) are outside the 3 rows"),
    (lambda k: k.roaring_serialize(np.zeros(3, np.uint32), np.array([0], np.int64), np.array([-1], np.int64),
                                   np.zeros(1, np.int64)), "outside the 3 rows"),
    (lambda k: k.roaring_serialize(np.zeros(3, np.uint32), np.zeros(2, np.int64), np.zeros(1, np.int64),
                                   np.zeros(2, np.int64)), "1 counts for 2 starts"),
    (lambda k: k.roaring_serialize(np.zeros(3, np.uint32), np.zeros(1, np.int64), np.zeros(1, np.int64),
                                   np.zeros(2, np.int64)), "2 sizes for 1 starts"),
    (lambda k: k.group_rows(np.array([0, 2], np.int32), np.zeros(2, np.uint32), np.zeros(2, np.int64)),
     "a code is 2 or more"),
    (lambda k: k.group_rows(np.array([0, -1], np.int32), np.zeros(2, np.uint32), np.zeros(1, np.int64)),
     "rows has room for 2 rows; the codes give 1"),
    (lambda k: k.BloomProbe(bytearray(2), 24, 1, 0, 0, False, REMAIN, SKIP, len), "does not hold num_bits=24"),
    (lambda k: k.packed_rows(np.zeros(3, np.int64), np.zeros(1, np.int64), 2, [], b"", 0, 1), "every 2-th of 3"),
    (lambda k: k.packed_rows(np.zeros(1, np.int64), np.zeros(1, np.int64), 64, [], b"ab", 3, 1), "at 3 do not start"),
    (lambda k: k.packed_rows(np.zeros(2, np.int64), np.zeros(1, np.int64), 64, [], b"ab", 0, 1, np.zeros(1, np.int32)),
     "1 lengths for 2 entries"),
    (lambda k: k.rows_union([b"1234", b"123"]), "whole uint32 rows"),
])
def test_kernels_check_their_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call(kernels.compiled)


@compiled_only
def test_read_only_output_and_a_literal_of_no_kind_are_refused():
    with pytest.raises(TypeError):
        kernels.compiled.wang_mix(np.zeros(1, np.int64), b"\0" * 8)
    with pytest.raises(TypeError, match="fallback must be callable"):
        kernels.compiled.BloomProbe(bytearray(1), 8, 1, 0, 0, False, REMAIN, SKIP, None)
    probe = kernels.compiled.BloomProbe(bytearray(1), 8, 1, 0, 0, False, REMAIN, SKIP, lambda literal: literal)
    with pytest.raises(TypeError, match="initialised once"):
        probe.__init__(bytearray(1), 8, 1, 0, 0, False, REMAIN, SKIP, len)
    assert probe.visit(1.5) == 1.5 and probe.test(1.5) is None and probe.test("s") is None  # none it hashes
    with pytest.raises(TypeError, match="subclass of BloomProbe"):
        kernels.compiled.BloomProbe.visit_method(int)
    unset = kernels.compiled.BloomProbe.__new__(kernels.compiled.BloomProbe)
    with pytest.raises(ValueError, match="not initialised"):
        unset.visit(0)


def test_writers_pickle_on_either_path():
    import pickle

    def pickled():
        writer = BloomFilterWriter(parse_type("INT"), {"items": "100"})
        writer.write_column([1, 2, 3])
        copy = pickle.loads(pickle.dumps(writer))
        copy.write_column([4])
        writer.write_column([4])
        return copy.serialize(), writer.serialize()

    for copy, original in both_paths(pickled):
        assert copy == original


# --------------------------------------------------------------------------- the generated readers' stream

READS = ["read_u1", "read_s1", "read_u2be", "read_s2be", "read_u4be", "read_s4be", "read_u8be", "read_s8be",
         "read_u2le", "read_s2le", "read_u4le", "read_s4le", "read_u8le", "read_s8le", "read_bytes_full", "pos",
         "size", "is_eof", "align_to_byte"]
OPERATIONS = st.one_of(st.sampled_from(READS).map(lambda name: (name, ())),
                       st.integers(-2, 12).map(lambda n: ("read_bytes", (n,))),
                       st.integers(-1, 40).map(lambda n: ("seek", (n,))))


def outcome(stream, name, args):
    import kaitaistruct

    try:
        return "ok", getattr(stream, name)(*args)
    except kaitaistruct.KaitaiStructError as err:
        return type(err).__name__, str(err)


@compiled_only
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=32), st.lists(OPERATIONS, max_size=25))
def test_the_compiled_stream_reads_as_the_kaitai_runtime(data, operations):
    import io

    import kaitaistruct

    from fileindex.kaitai_runtime import open_stream

    compiled, runtime = open_stream(data), kaitaistruct.KaitaiStream(io.BytesIO(data))
    assert type(compiled).__name__ == "CompiledStream"
    for name, args in operations:
        assert outcome(compiled, name, args) == outcome(runtime, name, args), name
        assert compiled.pos() == runtime.pos()


@compiled_only
def test_the_compiled_stream_fails_like_the_runtime():
    import kaitaistruct

    from fileindex.kaitai_runtime import open_stream

    stream = open_stream(b"\x01\x02\x03")
    assert stream.read_u2be() == 0x0102
    with pytest.raises(kaitaistruct.EndOfStreamError, match="requested 4 bytes, but only 1 bytes available"):
        stream.read_s4be()
    with pytest.raises(kaitaistruct.InvalidArgumentError):
        stream.read_bytes(-1)
    with pytest.raises(kaitaistruct.InvalidArgumentError):
        stream.seek(-1)
    with pytest.raises(kaitaistruct.EndOfStreamError):
        stream.read_bytes(1 << 64)  # a u8 length from a corrupt file
    stream.seek(10)  # beyond the end is allowed; reading there fails
    assert stream.is_eof() and stream.read_bytes_full() == b""
    with pytest.raises(kaitaistruct.EndOfStreamError):
        stream.read_u1()
    stream.close()
    with pytest.raises(ValueError, match="closed"):
        stream.size()


@compiled_only
def test_a_container_opens_alike_through_either_stream():
    from fileindex.container.file import FileIndexContainer

    for path in sorted(JAVA_VECTORS.glob("*.index"))[:60]:
        fast, reference = both_paths(lambda file: FileIndexContainer.open(file).head, path)
        assert fast == reference


# --------------------------------------------------------------------------- the container's column table

def _head_outcome(data: bytes):
    from fileindex.container.head import parse_head
    from fileindex.errors import FileIndexError

    try:
        return "ok", parse_head(memoryview(data))
    except FileIndexError as err:
        return type(err).__name__, str(err), err.offset, err.field


@st.composite
def mutated_heads(draw):
    """A Java-written container (or one with many columns, or its version-2 framing), mutated where its
    entry table lies: cut short, bytes set, a count or length set to an extreme."""
    from fileindex.container.writer import reframe, write_entries

    heads = sorted(JAVA_VECTORS.glob("*.index"))
    data = draw(st.one_of(st.sampled_from(heads).map(lambda path: path.read_bytes()),
                          st.lists(st.tuples(st.text(max_size=4), st.sampled_from(["bitmap", "bloom-filter", "x"]),
                                             st.binary(max_size=3)), max_size=6).map(write_entries)))
    if draw(st.booleans()):
        data = reframe(data, 2)
    data = bytearray(data)
    head_end = min(len(data), int.from_bytes(data[12:16], "big") if data[8:12] == b"\0\0\0\1" else len(data))
    region = st.one_of(st.integers(0, max(0, head_end - 1)), st.integers(max(0, len(data) - 64), len(data) - 1))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(region)
        if draw(st.booleans()):
            data[at] = draw(st.integers(0, 255))
        else:
            data[at:at + 4] = draw(st.sampled_from([b"\x7f\xff\xff\xff", b"\xff\xff\xff\xff", b"\0\0\0\0",
                                                    b"\x80\0\0\0"]))
    return bytes(data[:draw(st.one_of(st.just(len(data)), st.integers(0, len(data))))])


@compiled_only
@settings(max_examples=400, deadline=None)
@given(mutated_heads())
@example(bytes.fromhex("00054e4ed01a35ae00000001000000310000000100033000800000000100076269746d6170000000310000000000000000"))
def test_the_compiled_column_table_reads_as_the_generated_reader(data):
    """Same head or same placed error: the kernel walks what the generated reader reads, and leaves
    whatever it would not read to the generated readers."""
    fast, reference = both_paths(_head_outcome, data)
    assert fast == reference


@compiled_only
def test_every_java_container_head_is_walked_by_the_kernel():
    from fileindex.container.head import _compiled_head
    from fileindex.container.writer import reframe

    for path in sorted(JAVA_VECTORS.glob("*.index")):
        for data in (path.read_bytes(), reframe(path.read_bytes(), 2)):
            walked = _compiled_head(kernels.compiled, memoryview(data))
            assert walked is not None and walked == both_paths(_head_outcome, data)[1][1], path.name
