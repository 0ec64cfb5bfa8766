"""The one way a table's bytes are reached: :class:`FileIO`, the file-access interface a table's store holds.

Everything that opens, reads, lists, creates, replaces, renames or deletes a file of a table goes through
a ``FileIO``; the planners, readers, rewrite and commit never touch a file system themselves. Paths are
strings (a local path, or later an object store's URI); nothing in the interface is a file descriptor or
a ``pathlib.Path``, so an object-store implementation (``pyarrow.fs`` for reads, a conditional ``put`` for
create-if-absent) can stand in for :class:`~fileindex.io.local.LocalFileIO` without touching its callers.

What an object store charges for shapes the interface: a listing (LIST) is asked for only where Paimon
itself lists (snapshots, schemas, branches, orphans); a data file is opened without a stat before it (a
missing one is found when opened); metadata is read whole with a size cap; data files are handed to
pyarrow as one random-access file (:meth:`FileIO.open_input`).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from fileindex.frozen import frozen

import pyarrow as pa

from fileindex.errors import ConfinementError


class OutsideError(ConfinementError):
    """A file that lies (after links) outside every folder it was confined to."""

    def __init__(self, message: str, real: str | None):
        super().__init__(message)
        self.real = real  # where it leads (None: it could not be told)


class NotRegularError(ConfinementError):
    """A named pipe, a device, a socket or a folder where a regular file was expected."""


@frozen
class FileInfo:
    """A file's name in its folder, its size and what it is; ``identity`` changes whenever the file is
    replaced or written (local: device, inode, size, mtime and ctime; an object store: size and ETag), so
    caches key decoded files by it."""

    name: str
    kind: str  # "file", "folder", "link" (local only: a symlink, not followed) or "other" (a pipe, a device)
    size: int = 0
    identity: tuple = ()


class InputFile(ABC):
    """A file opened for reading, once: a regular file, confined where the caller asked. Reads of it read
    the file that was opened, whatever becomes of its name meanwhile. Close it (or use ``with``) when done."""

    name: str  # as given to open_input (for messages)
    size: int
    identity: tuple

    @abstractmethod
    def native(self) -> pa.NativeFile:
        """A random-access file pyarrow reads (Parquet, ORC), of the opened file; the caller closes it."""

    @property
    def local_path(self) -> str | None:
        """A local path that opens exactly the opened file (not its name again), for readers that take a
        path; None where there is none (an object store)."""
        return None

    @abstractmethod
    def read_range(self, offset: int, length: int) -> bytes:
        """``length`` bytes from ``offset`` (fewer at the end of the file)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> InputFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class FileIO(ABC):
    """Access to the files of a table (see the module)."""

    @abstractmethod
    def open_input(self, path: str, *, within: Sequence[str] = (), what: str = "file") -> InputFile:
        """``path`` opened once for reading, refused in one line (:class:`~fileindex.errors.ConfinementError`)
        unless it is a regular file lying, after every link, inside one of the folders ``within`` names (none
        given: anywhere); a missing file is the ``FileNotFoundError`` the caller reports."""

    @abstractmethod
    def read_bytes(self, path: str, *, limit: int, within: Sequence[str] = (), what: str = "file") -> bytes:
        """The whole of a small regular file (metadata), refused when over ``limit`` bytes; confined as
        :meth:`open_input`."""

    @abstractmethod
    def info(self, path: str) -> FileInfo | None:
        """What is at ``path``, links not followed (None: nothing)."""

    @abstractmethod
    def list(self, folder: str) -> list[FileInfo]:
        """The entries of ``folder`` (links not followed; none for a folder that is not there)."""

    @abstractmethod
    def create(self, path: str, data: bytes) -> bool:
        """Write ``path`` holding ``data`` only if it is absent, atomically (False: another writer has it)."""

    @abstractmethod
    def replace(self, path: str, data: bytes) -> None:
        """Write ``path`` holding ``data``, atomically replacing what was there."""

    @abstractmethod
    def rename(self, source: str, target: str) -> None: ...

    @abstractmethod
    def delete(self, path: str) -> None:
        """Remove the file at ``path``; nothing there is not an error."""

    @abstractmethod
    def join(self, folder: str, *names: str) -> str:
        """``folder``/``name``... in the file system's own path syntax."""

    @abstractmethod
    def inside(self, root: str, path: str) -> bool:
        """Whether ``path`` lies inside the folder ``root`` (local: after resolving links on both sides)."""
