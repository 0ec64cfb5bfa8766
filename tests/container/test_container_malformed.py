"""Truncated and corrupted containers raise only the project's errors, at an offset inside the input."""
import random

import pytest
from conftest import index_files
from hypothesis import given
from hypothesis import strategies as st

from fileindex.container.file import FileIndexContainer
from fileindex.container.writer import write_entries
from fileindex.errors import (
    BadMagicError,
    DecodeError,
    InvalidEncodingError,
    InvalidLengthError,
    InvalidOffsetError,
    TruncatedError,
    UnsupportedVersionError,
)
from fileindex.reference.construct_parser import parse_with_construct

FILES = index_files()
SMALL = [p for p in FILES if p.stat().st_size <= 4096]


def open_and_validate(data: bytes) -> None:
    FileIndexContainer.from_bytes(data).validate_layout()


def assert_project_error(data: bytes, *, must_fail: bool) -> None:
    for decode in (open_and_validate, parse_with_construct):
        try:
            decode(data)
        except DecodeError as err:
            assert 0 <= err.offset <= len(data), err
            assert err.field.startswith("file_index_format"), err
            continue
        assert not must_fail or decode is parse_with_construct, f"{decode.__name__} accepted a strict prefix"


def prefix_lengths(size: int, head_length: int, rng: random.Random) -> list[int]:
    if size <= 4096:
        return list(range(size))
    lengths = set(range(min(head_length + 16, size)))
    lengths.update(rng.randrange(size) for _ in range(200))
    lengths.add(size - 1)
    return sorted(lengths)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_strict_prefix_fails_with_a_project_error(path):
    data = path.read_bytes()
    head_length = FileIndexContainer.from_bytes(data).head.head_length
    for length in prefix_lengths(len(data), head_length, random.Random(path.name)):
        assert_project_error(data[:length], must_fail=True)


@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.name)
def test_random_byte_flips_parse_or_raise_project_errors(path):
    data = path.read_bytes()
    rng = random.Random(path.name)
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        assert_project_error(bytes(mutated), must_fail=False)


@given(st.binary(max_size=200))
def test_arbitrary_bytes(data):
    assert_project_error(data, must_fail=False)


@given(st.binary(max_size=120))
def test_arbitrary_heads_after_a_valid_prefix(tail):
    magic_version = bytes.fromhex("00054e4ed01a35ae00000001")
    assert_project_error(magic_version + tail, must_fail=False)


VALID = write_entries([("c", "bitmap", b"\x01\x02\x03"), ("d", "bsi", None)])


def corrupt(offset: int, value: bytes) -> bytes:
    return VALID[:offset] + value + VALID[offset + len(value):]


@pytest.mark.parametrize("data, error, offset, field", [
    (corrupt(0, b"\x01"), BadMagicError, 0, "file_index_format/magic"),
    (corrupt(8, (3).to_bytes(4, "big")), UnsupportedVersionError, 8, "file_index_format/version"),
    (corrupt(12, (15).to_bytes(4, "big")), InvalidLengthError, 12, "file_index_format/len_head"),
    (corrupt(12, (0x7FFFFFFF).to_bytes(4, "big")), TruncatedError, 16, "file_index_format/head"),
    (corrupt(16, (-1).to_bytes(4, "big", signed=True)), InvalidLengthError, 16,
     "file_index_format/head/num_columns"),
    (corrupt(20, (0xFFFF).to_bytes(2, "big")), TruncatedError, 22, "file_index_format/head/columns[0]/name"),
    (corrupt(22, b"\xf0"), InvalidEncodingError, 22, "file_index_format/head/columns[0]/name"),
    (corrupt(23, (-5).to_bytes(4, "big", signed=True)), InvalidLengthError, 23,
     "file_index_format/head/columns[0]/num_indexes"),
])
def test_precise_errors(data, error, offset, field):
    with pytest.raises(error) as info:
        open_and_validate(data)
    assert (info.value.offset, info.value.field) == (offset, field)


def test_body_errors_name_the_entry():
    container = FileIndexContainer.from_bytes(VALID)
    entry = container.entry("c", "bitmap")
    beyond = corrupt(entry.entry_offset + 2 + len("bitmap"), (len(VALID)).to_bytes(4, "big"))
    with pytest.raises(InvalidLengthError) as info:
        open_and_validate(beyond)
    assert info.value.field == "file_index_format/head/columns[0]/indexes[0]/len_body"
    inside_head = corrupt(entry.entry_offset + 2 + len("bitmap"), (3).to_bytes(4, "big"))
    with pytest.raises(InvalidOffsetError):
        open_and_validate(inside_head)


def test_overlapping_bodies_are_rejected():
    data = write_entries([("a", "bitmap", b"\x01\x02"), ("b", "bitmap", b"\x03\x04")])
    container = FileIndexContainer.from_bytes(data)
    second = container.entry("b", "bitmap")
    overlapping = bytearray(data)
    at = second.entry_offset + 2 + len("bitmap")
    overlapping[at:at + 4] = (second.start - 1).to_bytes(4, "big")
    with pytest.raises(InvalidOffsetError, match="overlaps"):
        open_and_validate(bytes(overlapping))


def test_huge_declared_lengths_do_not_allocate():
    import tracemalloc

    data = corrupt(12, (0x7FFFFFFF).to_bytes(4, "big"))
    tracemalloc.start()
    with pytest.raises(TruncatedError):
        open_and_validate(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1 << 20
