"""fileindex.java_numbers against a live JDK (tests/java/JavaNumbers.java), scalar and array forms,
on edge values and seeded random ones: bit patterns of every kind (NaN payloads, subnormals,
infinities) and doubles near the halves and bounds that casts and Math.round decide."""
import struct

import numpy as np
import pytest
from jdk import JavaProgram

from fileindex import java_numbers
from fileindex.java_numbers import DOUBLE, FLOAT

pytestmark = pytest.mark.java
_RNG = np.random.default_rng(32)


@pytest.fixture(scope="module")
def jdk(tmp_path_factory):
    program = JavaProgram("JavaNumbers", tmp_path_factory.mktemp("numbers"))
    yield program
    program.close()


def ask(jdk, op: str, operands: list[int], width: int = 64) -> list[int]:
    mask = (1 << width) - 1
    return [int(v) for v in jdk.ask(op + " " + " ".join(format(x & mask, "x") for x in operands)).split()]


def _doubles() -> np.ndarray:
    bounds = np.array([2.0 ** 31, 2.0 ** 52, 2.0 ** 53, 2.0 ** 63, 0.5, 1.0])
    near = np.concatenate([bounds, -bounds])
    near = np.concatenate([near, np.nextafter(near, np.inf), np.nextafter(near, -np.inf)])
    halves = _RNG.integers(-(1 << 40), 1 << 40, 400) + 0.5
    halves = np.concatenate([halves, np.nextafter(halves, np.inf), np.nextafter(halves, -np.inf)])
    spread = _RNG.standard_normal(400) * 10.0 ** _RNG.integers(-3, 22, 400)
    patterns = _RNG.integers(-(1 << 63), (1 << 63) - 1, 400, dtype=np.int64, endpoint=True).view(np.float64)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324])
    return np.concatenate([near, halves, spread, patterns, special])


def _bits(values: np.ndarray) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()


@pytest.mark.parametrize(("op", "scalar", "array"), [
    ("d2i", java_numbers.double_to_int, java_numbers.double_to_int_array),
    ("d2l", java_numbers.double_to_long, java_numbers.double_to_long_array),
    ("round", java_numbers.math_round, java_numbers.math_round_array),
])
def test_double_casts_and_round(jdk, op, scalar, array):
    values = _doubles()
    java = ask(jdk, op, _bits(values))
    assert [scalar(v) for v in values.tolist()] == java
    assert array(values).tolist() == java


def test_int32_of_longs(jdk):
    longs = _RNG.integers(-(1 << 63), (1 << 63) - 1, 1000, dtype=np.int64, endpoint=True)
    longs = np.concatenate([longs, np.array([0, -1, 1 << 31, -(1 << 31) - 1, (1 << 32) - 1], dtype=np.int64)])
    java = ask(jdk, "int", longs.tolist())
    assert [java_numbers.int32(v) for v in longs.tolist()] == java
    assert java_numbers.int32_array(longs).tolist() == java


def _float_patterns(floating) -> np.ndarray:
    width = floating.width
    random = _RNG.integers(-(1 << (width - 1)), (1 << (width - 1)) - 1, 1000, dtype=np.int64, endpoint=True)
    nan_payloads = floating.infinity + _RNG.integers(1, 1 << 20, 50)
    special = [0, 1, floating.infinity, floating.canonical_nan, floating.magnitude]
    positive = np.concatenate([nan_payloads, special]).astype(np.int64)
    return np.concatenate([random, positive, positive | -(1 << (width - 1))])  # and each with the sign set


@pytest.mark.parametrize(("floating", "op"), [(FLOAT, "f2b"), (DOUBLE, "d2b")])
def test_canonical_nan_bits(jdk, floating, op):
    raw = _float_patterns(floating)
    java = ask(jdk, op, raw.tolist(), floating.width)
    assert [floating.canonical(bits) for bits in raw.tolist()] == java
    assert floating.canonical_array(raw).tolist() == java
    assert floating.bits_array(raw.astype(floating.numpy_int).view(floating.numpy_float)).tolist() == java
    pack, unpack = (">i", ">f") if floating is FLOAT else (">q", ">d")
    assert [floating.to_bits(struct.unpack(unpack, struct.pack(pack, bits))[0]) for bits in raw.tolist()] == java


@pytest.mark.parametrize(("floating", "op"), [(FLOAT, "fcmp"), (DOUBLE, "dcmp")])
def test_compare_order(jdk, floating, op):
    raw = _float_patterns(floating)
    left, right = raw, _RNG.permutation(raw)
    right[:100] = left[:100]  # equal values too
    pairs = np.stack([left, right], axis=1).reshape(-1)
    java = ask(jdk, op, pairs.tolist(), floating.width)
    keys_left = floating.compare_order(floating.canonical_array(left))
    keys_right = floating.compare_order(floating.canonical_array(right))
    assert ((keys_left > keys_right).astype(int) - (keys_left < keys_right)).tolist() == java
    scalar_left = [floating.compare_order(floating.canonical(x)) for x in left.tolist()]
    scalar_right = [floating.compare_order(floating.canonical(x)) for x in right.tolist()]
    assert [(a > b) - (a < b) for a, b in zip(scalar_left, scalar_right, strict=True)] == java
