"""The Kaitai runtime as the fast generated readers see it (tools/regenerate.py points their import here).

``KaitaiStruct`` is the runtime's own. Generated code opens a substream over the bytes of a sized
field as ``KaitaiStream(BytesIO(raw))``; here that reads ``raw`` through the compiled
``ByteStream`` when the kernels are built (each read one C call instead of a few Python calls),
else through the runtime's ``KaitaiStream``. Both raise the runtime's own errors.
"""
from __future__ import annotations

import functools
import io
from typing import NoReturn

import kaitaistruct
from kaitaistruct import KaitaiStruct  # re-exported to the generated readers

from fileindex import kernels

__all__ = ["KaitaiStruct", "KaitaiStream", "BytesIO", "open_stream"]


def open_stream(data):
    """A stream for a generated reader over ``data``: bytes-like, or a readable, seekable binary file, read from
    its start wherever it stands (each reader of it, the debug reader placing an error too, reads the same bytes,
    at the file's offsets)."""
    if hasattr(data, "read"):
        if not (hasattr(data, "seekable") and data.seekable()):
            from fileindex.errors import UsageError

            raise UsageError("a stream that cannot seek: give its bytes (read it whole) or a seekable file")
        data.seek(0)
        return kaitaistruct.KaitaiStream(data)
    if kernels.compiled:
        return _compiled_stream()(data)
    return kaitaistruct.KaitaiStream(_ViewReader(data))


class KaitaiStream:
    """``KaitaiStream(source)`` in generated code: ``open_stream(source)``; the runtime's static helpers."""

    byte_array_index = staticmethod(kaitaistruct.KaitaiStream.byte_array_index)

    def __new__(cls, source):
        return open_stream(source)


def BytesIO(raw: bytes) -> bytes:  # the name generated code calls
    """The bytes themselves: ``open_stream`` reads them without a copy into a file object."""
    return raw


@functools.cache
def _compiled_stream() -> type:
    """``fileindex._kernels.ByteStream`` raising the runtime's errors (the class is made on first use:
    it derives from the extension, which may be switched off)."""
    compiled = kernels.compiled
    assert compiled is not None  # open_stream asks for it only with the extension on

    def _fail_eof(self, requested: int, available: int) -> NoReturn:
        raise kaitaistruct.EndOfStreamError(
            f"requested {requested} bytes, but only {available} bytes available", requested, available)

    def _fail_argument(self, message: str) -> NoReturn:
        raise kaitaistruct.InvalidArgumentError(message)

    return type("CompiledStream", (compiled.ByteStream,), {"_fail_eof": _fail_eof, "_fail_argument": _fail_argument})


class _ViewReader(io.RawIOBase):
    """A seekable binary stream over a buffer that copies only what is read (``BytesIO`` copies the
    whole buffer first: a memory-mapped container of many megabytes for a HEAD of a few hundred bytes)."""

    def __init__(self, data):
        super().__init__()
        self._view = memoryview(data).cast("B")
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = self._view[self._position:self._position + len(buffer)]
        buffer[:len(chunk)] = chunk
        self._position += len(chunk)
        return len(chunk)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        start = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: len(self._view)}[whence]
        self._position = max(0, start + offset)
        return self._position

    def tell(self) -> int:
        return self._position
