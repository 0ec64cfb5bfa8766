import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileindex.errors import EncodeError, InvalidEncodingError
from fileindex.java import utf as java_utf


def test_spec_example_nul_and_surrogate_pair():
    assert java_utf.encode_with_length("é\u0000😀").hex() == "000ac3a9c080eda0bdedb880"


@pytest.mark.parametrize("raw, text", [
    (b"abc", "abc"),
    (b"\xc0\x80", "\u0000"),
    (b"\x00", "\u0000"),  # readUTF accepts a raw NUL byte too
    (b"\xed\xa0\xbd\xed\xb8\x80", "😀"),
    (b"\xed\xa0\xbd", "\ud83d"),  # a lone surrogate is a legal Java char
    (b"\xc1\x81", "A"),  # overlong forms are accepted by readUTF
])
def test_decode_accepts_what_read_utf_accepts(raw, text):
    assert java_utf.decode(raw) == text


@pytest.mark.parametrize("raw, bad_at", [
    (b"ab\xf0\x9f\x98\x80", 2),  # 4-byte UTF-8 is not modified UTF-8
    (b"\x80", 0),
    (b"a\xc3", 1),  # cut 2-byte character
    (b"\xe2\x82", 0),  # cut 3-byte character
    (b"\xc3\x41", 1),  # bad continuation byte
])
def test_decode_rejects_with_offset(raw, bad_at):
    with pytest.raises(InvalidEncodingError) as info:
        java_utf.decode(raw, offset=100, field="x/name")
    assert info.value.offset == 100 + bad_at
    assert info.value.field == "x/name"


@given(st.text())
def test_round_trip_any_text(text):
    encoded = java_utf.encode(text)
    assert b"\x00" not in encoded
    assert all(b < 0xF0 for b in encoded)
    assert java_utf.decode(encoded) == text


def test_length_limit_is_65535_encoded_bytes():
    assert len(java_utf.encode_with_length("x" * 65535)) == 65537
    with pytest.raises(EncodeError, match="65535"):
        java_utf.encode_with_length("é" * 32768)
