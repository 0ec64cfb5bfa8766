"""A table's files through a ready filesystem object: a ``pyarrow.fs.FileSystem`` the user built (any store
pyarrow reaches, HDFS through libhdfs) or an fsspec filesystem (wrapped in pyarrow's ``PyFileSystem``), for
whatever the URIs and options of :mod:`fileindex.io.object_store` do not cover.

Such a filesystem offers no conditional create, so :meth:`ArrowFileIO.create` (a commit's ``snapshot-N``) is
refused unless the user promises a single writer (:data:`~fileindex.io.store_options.SINGLE_WRITER`).
Paths are the location's URIs; on the filesystem they are ``bucket/key`` (or the path, for HDFS).

:func:`file_io_for` picks the file access for a location: a given filesystem, an object store, HDFS; None
for a local path (the local file access).
"""
from __future__ import annotations

import os
import posixpath
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from fileindex.errors import ConfinementError, UsageError
from fileindex.io.base import FileIO, InputFile
from fileindex.io.locations import Location, UriPaths, parse_location
from fileindex.io.object_store import ObjectInfo, ObjectStoreFileIO, arrow_filesystem, arrow_path
from fileindex.io.store_options import SINGLE_WRITER, store_options


def as_arrow_filesystem(filesystem: Any) -> Any:
    """``filesystem`` as a pyarrow FileSystem: itself, or an fsspec filesystem wrapped in ``PyFileSystem``."""
    from pyarrow import fs

    if isinstance(filesystem, fs.FileSystem):
        return filesystem
    if hasattr(filesystem, "open") and hasattr(filesystem, "info") and hasattr(filesystem, "ls"):
        return fs.PyFileSystem(fs.FSSpecHandler(filesystem))
    raise UsageError(f"{type(filesystem).__name__} is not a filesystem: give a pyarrow.fs.FileSystem or an fsspec "
                     "filesystem")


class ArrowInputFile:
    """A file opened on a pyarrow filesystem (the methods of :class:`fileindex.io.base.InputFile`)."""

    local_path = None

    def __init__(self, file_io: ArrowFileIO, name: str, stream: pa.NativeFile):
        self._io, self.name, self._stream = file_io, name, stream
        self.size = stream.size()
        self.identity = (name, self.size)

    def native(self) -> pa.NativeFile:
        """The opened file, the first time; a new one (the same path opened again) after that."""
        stream, self._stream = self._stream, None
        return stream if stream is not None else self._io._open(self.name)

    def read_range(self, offset: int, length: int) -> bytes:
        with self._io._open(self.name) as stream:
            return stream.read_at(max(0, min(length, self.size - offset)), offset)

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def __enter__(self) -> ArrowInputFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class ArrowFileIO(UriPaths):
    """The files under ``root`` on a pyarrow filesystem (the methods of :class:`fileindex.io.base.FileIO`)."""

    def __init__(self, root: Location, filesystem: Any, *, single_writer: bool = False):
        self.root, self.filesystem = root, as_arrow_filesystem(filesystem)
        self.single_writer = single_writer

    def __repr__(self) -> str:
        return f"ArrowFileIO({self.root.uri!r}, {type(self.filesystem).__name__})"

    def open_input(self, path: str, *, within: Sequence[str] = (), what: str = "file") -> ArrowInputFile:
        self.confined(path, within, what)
        return ArrowInputFile(self, path, self._open(path))

    def read_bytes(self, path: str, *, limit: int, within: Sequence[str] = (), what: str = "file") -> bytes:
        with self.open_input(path, within=within, what=what) as opened:
            if opened.size > limit:
                raise ConfinementError(f"{what} {path} holds {opened.size:,} bytes, more than the limit of {limit:,}")
            return opened.native().read()

    def info(self, path: str) -> ObjectInfo | None:
        from pyarrow import fs

        found = self.filesystem.get_file_info(self._path(path))
        if found.type == fs.FileType.NotFound:
            return None
        return _info(found)

    def list(self, folder: str) -> list[ObjectInfo]:
        from pyarrow import fs

        selector = fs.FileSelector(self._path(folder), allow_not_found=True)
        return [_info(found) for found in self.filesystem.get_file_info(selector)]

    def create(self, path: str, data: bytes) -> bool:
        if not self.single_writer:
            raise UsageError(f"{self.root.uri}: a filesystem object offers no conditional create, so two writers "
                             f"could both commit; set {SINGLE_WRITER}=true if only one writer ever commits here")
        if self.info(path) is not None:
            return False
        self.replace(path, data)
        return True

    def replace(self, path: str, data: bytes) -> None:
        target = self._path(path)
        if self.root.store == "hdfs":  # a file system: written beside, then renamed over
            temporary = posixpath.join(posixpath.dirname(target), f".{posixpath.basename(target)}.{uuid.uuid4().hex}")
            self._write(temporary, data)
            self.filesystem.move(temporary, target)
        else:  # an object store's PUT replaces whole
            self._write(target, data)

    def rename(self, source: str, target: str) -> None:
        self.filesystem.move(self._path(source), self._path(target))

    def delete(self, path: str) -> None:
        try:
            self.filesystem.delete_file(self._path(path))
        except FileNotFoundError:
            pass

    def _open(self, path: str) -> pa.NativeFile:
        return self.filesystem.open_input_file(self._path(path))

    def _write(self, target: str, data: bytes) -> None:
        with self.filesystem.open_output_stream(target) as out:
            out.write(data)

    def _path(self, path: str) -> str:
        return arrow_path(self.confined(path, (), "file"))


def _info(found: Any) -> ObjectInfo:
    from pyarrow import fs

    kind = {fs.FileType.File: "file", fs.FileType.Directory: "folder"}.get(found.type, "other")
    mtime = found.mtime_ns if kind == "file" else None
    return ObjectInfo(found.base_name, kind, found.size or 0, (found.path, found.size, mtime) if kind == "file" else ())


def file_io_for(uri: str | os.PathLike, options: Mapping[str, str] | None = None, *, filesystem: Any = None,
                environ: Mapping[str, str] = os.environ) -> ObjectStoreFileIO | ArrowFileIO | None:
    """The file access for the table or warehouse at ``uri``: ``filesystem`` when one is given, the object store
    the URI names (with Paimon's option keys in ``options`` and the environment), pyarrow's HDFS client; None
    for a local path (the local file access)."""
    location = parse_location(uri)
    single_writer = str((options or {}).get(SINGLE_WRITER, "false")).lower() == "true"
    if filesystem is not None:
        return ArrowFileIO(location, filesystem, single_writer=single_writer)
    if location.is_object_store:
        return ObjectStoreFileIO(location, store_options(location, options, environ))
    if location.store == "hdfs":
        return ArrowFileIO(location, arrow_filesystem(location), single_writer=single_writer)
    return None


FileIO.register(ArrowFileIO)
InputFile.register(ArrowInputFile)
