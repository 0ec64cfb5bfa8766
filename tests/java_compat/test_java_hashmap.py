"""java.util.HashMap iteration order: golden lines, and the real JDK on patterned key sequences."""
import pytest
from conftest import golden
from hypothesis import given, settings
from hypothesis import strategies as st
from jdk import JavaProgram

from fileindex.indexes.bitmap.keys import KINDS
from fileindex.java.hash import string_hash_code
from fileindex.java.hashmap import (
    JavaHashMapOrder,
    compute_if_absent_order,
    compute_if_absent_order_fast,
    put_order,
)


@pytest.fixture(scope="module")
def jdk_hashmap(tmp_path_factory):
    program = JavaProgram("HashMapOrder", tmp_path_factory.mktemp("hashmap"))
    yield program
    program.close()


def test_golden_binary_string_order():
    keys = [k.encode() for k in ["x", "y", "z", "aa", "bb"]]
    kind = KINDS["string"]
    order = put_order(keys, kind.hash_code, kind.compare)  # golden.txt records put order
    assert "[" + ", ".join(k.decode() for k in order) + "]" == golden()["hashmap.order(BinaryString x,y,z,aa,bb)"]


JAVA_KIND = {"i4": "int", "i8": "long", "i2": "short", "i1": "byte", "f4": "float", "f8": "double",
             "boolean": "bool", "string": "bstr"}


def token(kind: str, key) -> str:
    if kind == "string":
        return "x" + key.hex()
    if kind == "boolean":
        return "true" if key else "false"
    return str(key)


def python_order(kind_name: str, op: str, keys: list) -> list:
    kind = KINDS[kind_name]
    order = JavaHashMapOrder(kind.hash_code, kind.compare)
    for key in keys:
        (order.put if op == "put" else order.compute_if_absent)(key)
    return list(order)


def ask_java(jdk_hashmap, kind_name: str, op: str, keys: list) -> list[str]:
    line = " ".join([JAVA_KIND[kind_name], op, *(token(kind_name, k) for k in keys)])
    answer = jdk_hashmap.ask(line)
    return answer.split(" ") if answer else []


def patterned_ints(bits: int):
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    stride = st.sampled_from([1, 16, 64, 128, 1024, 1 << 16, 65537])
    return st.builds(lambda base, s, n: [(base + s * i) for i in range(n)], st.integers(low // 2, high // 2), stride,
                     st.integers(0, 300)).map(lambda xs: [min(max(x, low), high) for x in xs])


def patterned_longs():
    # (a << 32) | a hashes to 0 for every a: a guaranteed single bucket, hence tree bins
    same_bucket = st.lists(st.integers(0, 2**31 - 1), max_size=120).map(lambda xs: [(x << 32) | x for x in xs])
    spread = st.lists(st.integers(-2**63, 2**63 - 1), max_size=200)
    return st.one_of(same_bucket, spread, patterned_ints(64))


def patterned_strings():
    base = st.sampled_from(["", "k", "key-", "prefix/long/", "é", "😀"])
    return st.builds(lambda b, xs: [f"{b}{x}".encode() for x in xs], base,
                     st.lists(st.integers(0, 5000), max_size=250))


KEYS = {
    "i4": patterned_ints(32),
    "i8": patterned_longs(),
    "i2": patterned_ints(16),
    "i1": patterned_ints(8),
    "f4": st.lists(st.integers(-2**31, 2**31 - 1).filter(lambda b: not (0x7F800000 < b & 0x7FFFFFFF)), max_size=200),
    "f8": st.lists(st.integers(0, 2**52).map(lambda m: (0x4000 << 48) | m), max_size=200),
    "string": patterned_strings(),
}


@pytest.mark.parametrize("kind_name", sorted(KEYS))
@pytest.mark.parametrize("op", ["put", "cia"])
def test_emulation_matches_the_jdk(jdk_hashmap, kind_name, op):
    @settings(max_examples=60, deadline=None)
    @given(KEYS[kind_name], st.randoms(use_true_random=False))
    def check(keys, rng):
        sequence = keys + [rng.choice(keys) for _ in range(len(keys) // 3)] if keys else keys
        expected = ask_java(jdk_hashmap, kind_name, op, sequence)
        assert [token(kind_name, k) for k in python_order(kind_name, op, sequence)] == expected

    check()


def test_tree_bins_are_reached_and_match(jdk_hashmap):
    keys = [(x << 32) | x for x in range(0, 3000, 7)]  # all in bucket 0: tree bins, splits, untreeify
    for op in ("put", "cia"):
        assert [str(k) for k in python_order("i8", op, keys)] == ask_java(jdk_hashmap, "i8", op, keys)
    strings = [f"s{i}".encode() for i in range(4000)]
    assert [token("string", k) for k in python_order("string", "cia", strings)] == \
        ask_java(jdk_hashmap, "string", "cia", strings)


def test_first_occurrence_shortcut_equals_every_call():
    """The writer replays only first occurrences plus one trailing call; the map must not differ."""
    kind = KINDS["i4"]
    for sequence in ([5, 6, 7] * 5, list(range(13)) + [0], list(range(13)), list(range(100)) + [3] * 4):
        full = JavaHashMapOrder(kind.hash_code, kind.compare)
        for key in sequence:
            full.compute_if_absent(key)
        firsts = list(dict.fromkeys(sequence))
        last_new = max(sequence.index(k) for k in firsts)
        shortcut = compute_if_absent_order(firsts, kind.hash_code, kind.compare,
                                           trailing_call=last_new < len(sequence) - 1)
        assert shortcut == list(full)


def test_string_put_order_for_index_types():
    assert put_order(["bsi", "range-bitmap", "bitmap", "bloom-filter"], string_hash_code) == \
        ["bloom-filter", "bitmap", "bsi", "range-bitmap"]


_KEY_DOMAINS = {"i1": st.integers(-128, 127), "i2": st.integers(-2**15, 2**15 - 1),
                "i4": st.integers(-2**31, 2**31 - 1), "i8": st.integers(-2**63, 2**63 - 1),
                "f4": st.integers(-2**31, 2**31 - 1),
                "f8": st.integers(-2**63, 2**63 - 1), "boolean": st.integers(0, 1)}


@pytest.mark.parametrize("kind_name", sorted(_KEY_DOMAINS))
@given(data=st.data())
def test_vectorized_hash_codes_equal_the_boxed_hash_code(kind_name, data):
    import numpy as np

    kind = KINDS[kind_name]
    keys = data.draw(st.lists(_KEY_DOMAINS[kind_name], max_size=30))
    scalar_keys = [bool(k) for k in keys] if kind_name == "boolean" else keys
    assert kind.hash_codes(np.array(keys, dtype=np.int64)).tolist() == [kind.hash_code(k) for k in scalar_keys]


@given(st.lists(st.one_of(st.integers(0, 40), st.integers(-2**31, 2**31 - 1),
                          st.integers(0, 30).map(lambda i: i << 16)), max_size=300), st.booleans())
def test_numpy_order_equals_the_emulation_whenever_it_answers(hashes, trailing):
    """Keys are the indices (distinct), their hash codes may collide."""
    fast = compute_if_absent_order_fast(hashes, trailing)
    emulated = compute_if_absent_order(range(len(hashes)), hashes.__getitem__, lambda a, b: (a > b) - (a < b),
                                       trailing_call=trailing)
    if fast is not None:
        assert fast.tolist() == emulated
    else:  # only when some bucket could have reached the treeify threshold
        assert len(hashes) >= 8
