"""An Avro object container file's blocks decompressed within a budget, before fastavro decodes them.

fastavro decompresses each block whole: a 1 MB manifest of deflate or zstd "bombs" would expand to
gigabytes, and a block may claim billions of records. ``uncompressed_container`` walks the container's
framing (Avro spec, "Object Container Files"), decompresses every block with a ceiling, checks each
block's record count against its bytes (a Paimon metadata record is never empty), and returns the
same container with codec ``null``: fastavro then decodes it without decompressing a second time.
"""
from __future__ import annotations

import sys
import zlib

from fileindex.lazy import import_submodule
from fileindex.table.errors import TableError

if sys.version_info >= (3, 14):
    from compression.zstd import ZstdDecompressor
else:  # (its C module without the package's __init__, whose parameter enums and file classes a read never uses: 3 M
    # instructions of a cold read, #54)
    ZstdDecompressor = import_submodule("backports.zstd._zstd").ZstdDecompressor

MAGIC = b"Obj\x01"
SYNC_BYTES = 16
# Decompressed bytes a file may expand to: Java's manifests (8 MiB targets, zstd) expand a few times.
BASE_BUDGET = 64 << 20
BUDGET_PER_FILE_BYTE = 50


def budget_for(file_size: int) -> int:
    return BASE_BUDGET + BUDGET_PER_FILE_BYTE * file_size


class _Cursor:
    def __init__(self, data: bytes, where: str):
        self.data, self.position, self.where = memoryview(data), 0, where

    def long(self) -> int:
        """A zig-zag varint (Avro ``long``)."""
        result = shift = 0
        while True:
            if self.position >= len(self.data) or shift > 63:
                raise TableError(f"{self.where}: a length at byte {self.position} runs past the end or past 64 bits")
            byte = self.data[self.position]
            self.position += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return (result >> 1) ^ -(result & 1)

    def take(self, length: int, what: str) -> memoryview:
        if length < 0 or self.position + length > len(self.data):
            raise TableError(f"{self.where}: {what} of {length} bytes at byte {self.position} runs past the end "
                             f"of the {len(self.data)}-byte file")
        start = self.position
        self.position += length
        return self.data[start:self.position]


def _decompress(codec: str, data: bytes | memoryview, limit: int, where: str) -> bytes | memoryview:
    """``data`` decompressed, at most ``limit + 1`` bytes of it (more than ``limit`` means over budget)."""
    if codec == "deflate":
        return zlib.decompressobj(-15).decompress(data, limit + 1)
    if codec == "zstandard":  # (frame after frame, as zstd.decompress reads them)
        frames: list[bytes] = []
        left: bytes | memoryview = data
        while left and sum(map(len, frames)) <= limit:
            decompressor = ZstdDecompressor()
            frames.append(decompressor.decompress(left, max_length=limit + 1 - sum(map(len, frames))))
            if not decompressor.eof:
                break
            left = decompressor.unused_data
        return frames[0] if len(frames) == 1 else b"".join(frames)
    if codec == "bzip2":
        import bz2  # (bzip2 and xz: rare in Paimon's metadata, imported when met)

        return bz2.BZ2Decompressor().decompress(data, max_length=limit + 1)
    if codec == "xz":
        import lzma

        return lzma.LZMADecompressor().decompress(data, max_length=limit + 1)
    raise TableError(f"{where}: Avro codec {codec!r} is not one this reader decodes "
                     "(null, deflate, zstandard, bzip2, xz)")


def _encode_long(value: int) -> bytes:
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _encode_bytes(value: bytes | memoryview) -> bytes:
    return _encode_long(len(value)) + value


def container_blocks(data: bytes, where: str) -> tuple[dict[bytes, bytes], list[tuple[int, bytes | memoryview]]]:
    """``data`` (an Avro container) walked: its header's metadata and each block's record count and bytes,
    decompressed; a TableError when a block would expand past the file's budget or claims more records than its
    bytes can hold."""
    cursor = _Cursor(data, where)
    if cursor.take(4, "the magic") != MAGIC:
        raise TableError(f"{where}: not an Avro container")
    metadata: dict[bytes, bytes] = {}
    while count := cursor.long():
        if count < 0:
            count = -count
            cursor.long()  # the block's byte size
        for _ in range(count):
            key = bytes(cursor.take(cursor.long(), "a metadata key"))
            metadata[key] = bytes(cursor.take(cursor.long(), "a metadata value"))
    sync = cursor.take(SYNC_BYTES, "the sync marker")
    codec = metadata.get(b"avro.codec", b"null").decode("ascii", "replace")
    left = budget_for(len(data))
    blocks: list[tuple[int, bytes | memoryview]] = []
    while cursor.position < len(data):
        start = cursor.position
        records = cursor.long()
        block: bytes | memoryview = cursor.take(cursor.long(), "a block")
        if codec != "null":
            block = _decompress(codec, block, left, where)
        if len(block) > left:
            raise TableError(f"{where}: the block at byte {start} expands past {budget_for(len(data)) >> 20} MiB "
                             f"(the most a {len(data)}-byte file may hold here): a compression bomb?")
        if not 0 <= records <= len(block):
            raise TableError(f"{where}: the block at byte {start} claims {records} records in {len(block)} bytes")
        if cursor.take(SYNC_BYTES, "a sync marker") != sync:
            raise TableError(f"{where}: the block at byte {start} does not end with the file's sync marker")
        left -= len(block)
        blocks.append((records, block))
    return metadata, blocks


def uncompressed_container(data: bytes, where: str) -> bytes:
    """``data`` (an Avro container) with every block decompressed and codec ``null``, as :func:`container_blocks`
    checks it."""
    metadata, blocks = container_blocks(data, where)
    if metadata.get(b"avro.codec", b"null") == b"null":
        return data
    sync = data[-SYNC_BYTES:]  # (every block ends with the file's marker: container_blocks checked it)
    metadata[b"avro.codec"] = b"null"
    header = MAGIC + _encode_long(len(metadata)) + b"".join(
        _encode_bytes(k) + _encode_bytes(v) for k, v in metadata.items()) + _encode_long(0)
    return header + sync + b"".join(_encode_long(records) + _encode_long(len(block)) + block + sync
                                    for records, block in blocks)
