"""Java's modified UTF-8 (``DataOutputStream.writeUTF`` / ``DataInputStream.readUTF``).

Each UTF-16 code unit is encoded on its own: U+0000 becomes ``C0 80`` and a supplementary
character becomes two 3-byte sequences, one per surrogate (CESU-8 style). Decoding follows
``readUTF`` exactly: it accepts what Java accepts (also raw NUL and overlong 2-/3-byte forms)
and rejects what Java rejects (4-byte leaders, stray continuation bytes, cut sequences).
"""
from __future__ import annotations

import re
import struct

from fileindex.errors import EncodeError, InvalidEncodingError

MAX_ENCODED_LENGTH = 0xFFFF
_ASTRAL = "[\U00010000-\U0010FFFF]"  # (compiled by the first encode, which re keeps: a read encodes none, #54)


def _as_surrogates(match: re.Match[str]) -> str:
    value = ord(match.group()) - 0x10000
    return chr(0xD800 + (value >> 10)) + chr(0xDC00 + (value & 0x3FF))


def encode(text: str) -> bytes:
    """The modified UTF-8 bytes of ``text``, without the 2-byte length prefix."""
    units = re.sub(_ASTRAL, _as_surrogates, text)
    return units.encode("utf-8", "surrogatepass").replace(b"\x00", b"\xc0\x80")


def encode_with_length(text: str) -> bytes:
    """``writeUTF``: a big-endian u16 byte count, then the modified UTF-8 bytes."""
    data = encode(text)
    if len(data) > MAX_ENCODED_LENGTH:
        raise EncodeError(
            f"{text[:32]!r}... encodes to {len(data)} bytes of modified UTF-8; "
            f"Java's writeUTF allows at most {MAX_ENCODED_LENGTH}"
        )
    return len(data).to_bytes(2, "big") + data


def decode(data: bytes, *, offset: int = 0, field: str = "string") -> str:
    """Decode as ``readUTF`` does. ``offset`` is where ``data`` starts, for error messages."""
    data = data if type(data) is bytes else bytes(data)
    if data.isascii() and b"\x00" not in data:
        return data.decode("ascii")
    units = []
    i, end = 0, len(data)
    while i < end:
        lead = data[i]
        kind = lead >> 4
        if kind < 8:
            units.append(lead)
            i += 1
            continue
        if kind in (12, 13):
            width = 2
        elif kind == 14:
            width = 3
        else:
            raise InvalidEncodingError(
                f"byte 0x{lead:02x} cannot start a modified UTF-8 character", offset=offset + i, field=field
            )
        if i + width > end:
            raise InvalidEncodingError(
                "modified UTF-8 character cut off at the end of the string", offset=offset + i, field=field
            )
        tail = data[i + 1:i + width]
        for j, byte in enumerate(tail, start=1):
            if byte & 0xC0 != 0x80:
                raise InvalidEncodingError(
                    f"byte 0x{byte:02x} is not a continuation byte", offset=offset + i + j, field=field
                )
        if width == 2:
            units.append(((lead & 0x1F) << 6) | (tail[0] & 0x3F))
        else:
            units.append(((lead & 0x0F) << 12) | ((tail[0] & 0x3F) << 6) | (tail[1] & 0x3F))
        i += width
    # Valid surrogate pairs join into one character; a lone surrogate stays as it is, like Java's char.
    return struct.pack(f">{len(units)}H", *units).decode("utf-16-be", "surrogatepass")
