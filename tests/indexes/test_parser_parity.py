"""Kaitai-generated readers and Construct schemas agree on layouts not covered elsewhere: bloom, Roaring.

(Container, bitmap, bsi and range-bitmap parity live with their tests.)
"""
import pytest
from fileindex.generated.bloom_filter import BloomFilter
from fileindex.generated.roaring_bitmap import RoaringBitmap
from fileindex.specs.bloom_filter import bloom_filter as construct_bloom
from fileindex.specs.roaring_bitmap import roaring_bitmap as construct_roaring
from hypothesis import given
from hypothesis import strategies as st
from pyroaring import BitMap
from structures import construct_tree, kaitai_tree, without_none
from vector_cases import cases_for

from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.indexes import roaring


def bloom_trees(payload: bytes):
    parsed = kaitai_bridge.parse(BloomFilter, payload, root="bloom_filter", validations={})
    ours = {**kaitai_tree(parsed), "bitset": parsed.bitset}  # the bit set is a lazy instance in the spec
    return ours, construct_tree(construct_bloom.parse(payload))


@pytest.mark.parametrize("case", cases_for("bloom-filter", ok=True), ids=lambda c: c.name)
def test_bloom_vectors(case):
    ours, theirs = bloom_trees(case.payload())
    assert ours == theirs


@given(st.integers(1, 1000), st.binary(max_size=300))
def test_random_bloom_payloads(k, bits):
    payload = k.to_bytes(4, "big") + bits
    ours, theirs = bloom_trees(payload)
    assert ours == theirs and construct_bloom.build(theirs) == payload


ROWS = st.one_of(
    st.sets(st.integers(0, 2**31 - 1), max_size=50),
    st.builds(lambda start, n: set(range(start, start + n)), st.integers(0, 2**20), st.integers(0, 5000)),
    st.sampled_from([set(range(4096)), set(range(4097)), set(range(0, 8194, 2)), set(range(65530, 65545)),
                     {0, 65536, 131072, 196608}, set(range(0, 300000, 7))]),
)


def roaring_trees(data: bytes):
    ours = without_none(kaitai_tree(kaitai_bridge.parse(RoaringBitmap, data, root="roaring", validations={})))
    theirs = without_none(construct_tree(construct_roaring.parse(data)))
    return ours, theirs


@given(ROWS, st.booleans())
def test_roaring_framing(rows, optimize):
    bitmap = BitMap(rows)
    data = roaring.serialize(bitmap) if optimize else bitmap.serialize()
    ours, theirs = roaring_trees(data)
    assert ours == theirs
    assert roaring.portable_size(memoryview(data + b"tail"), 0, base=0, field="r") == len(data)
    assert roaring.deserialize(data, offset=0, field="r") == bitmap
