"""The local file system under :class:`~fileindex.io.base.FileIO`.

A file is opened once, ``O_NONBLOCK | O_NOFOLLOW`` (a named pipe never blocks the open, and its last part
is not followed if it is a symlink), checked to be a regular file with ``fstat`` and, where the caller
confines it, checked to lie inside one of the given folders *where the opened file really is*
(``/proc/self/fd/N`` on Linux, else the resolved name's device and inode compared with the open
file's): a name swapped for a symlink between planning and reading is never read through the link. A
symlink as the last part is followed only when the file it leads to passes the same check (a link that
stays inside the table is read, as the table docs say). Readers are then handed the opened file, never
the name again: pyarrow opens ``/proc/self/fd/N``, which reopens that very file.
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence

import pyarrow as pa

from fileindex.confined import kind_of
from fileindex.errors import ConfinementError
from fileindex.io.base import FileInfo, FileIO, InputFile, NotRegularError, OutsideError
from fileindex.memo import file_identity
from fileindex.io.atomic import write_atomically

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FD_FOLDER = next((folder for folder in ("/proc/self/fd", "/dev/fd") if os.path.isdir(folder)), None)
_REAL_ROOTS: dict[str, str] = {}  # a confining folder's real path, resolved once per process


class LocalInputFile(InputFile):
    def __init__(self, name: str, descriptor: int, status: os.stat_result):
        self.name, self._descriptor = name, descriptor
        self.size = status.st_size
        self.identity = file_identity(name, status)

    @property
    def local_path(self) -> str | None:
        return f"{_FD_FOLDER}/{self._descriptor}" if _FD_FOLDER == "/proc/self/fd" else None

    def fileno(self) -> int:
        """The open file's descriptor (local files only: what a memory map is made from, without opening again)."""
        return self._descriptor

    def native(self) -> pa.NativeFile:
        path = self.local_path
        if path is not None:
            return pa.OSFile(path)
        return pa.PythonFile(os.fdopen(os.dup(self._descriptor), "rb"), mode="r")

    def read_range(self, offset: int, length: int) -> bytes:
        return os.pread(self._descriptor, length, offset)

    def read_all(self, limit: int, what: str) -> bytes:
        data = self.read_range(0, min(self.size, limit) + 1)
        if len(data) > limit:  # (grown since the fstat)
            raise ConfinementError(f"{what} {self.name} is larger than {limit:,} bytes")
        return data

    def close(self) -> None:
        if self._descriptor >= 0:
            os.close(self._descriptor)
            self._descriptor = -1

    def __del__(self) -> None:
        self.close()


class LocalFileIO(FileIO):
    """Local files (see the module). Holds no state of its own: every table's store shares one."""

    def open_input(self, path: str, *, within: Sequence[str] = (), what: str = "file") -> LocalInputFile:
        descriptor = _open_nofollow(path, within, what)
        try:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                raise NotRegularError(f"{what} {path} is {kind_of(status.st_mode)}, not a regular file")
            if within:
                _check_inside(descriptor, status, path, within, what)
            os.set_blocking(descriptor, True)
            return LocalInputFile(path, descriptor, status)
        except BaseException:
            os.close(descriptor)
            raise

    def read_bytes(self, path: str, *, limit: int, within: Sequence[str] = (), what: str = "file") -> bytes:
        opened = self.open_input(path, within=within, what=what)
        with opened:
            if opened.size > limit:
                raise ConfinementError(f"{what} {path} holds {opened.size:,} bytes, more than the limit of {limit:,}")
            return opened.read_all(limit, what)

    def info(self, path: str) -> FileInfo | None:
        try:
            status = os.lstat(path)
        except OSError:
            return None
        return FileInfo(os.path.basename(path), _kind(status.st_mode), status.st_size, file_identity(path, status))

    def list(self, folder: str) -> list[FileInfo]:
        try:
            with os.scandir(folder) as found:
                return [FileInfo(item.name, "link" if item.is_symlink() else "file" if item.is_file()
                                 else "folder" if item.is_dir() else "other") for item in found]
        except OSError:
            return []

    def create(self, path: str, data: bytes) -> bool:
        return write_atomically(path, data, overwrite=False)

    def replace(self, path: str, data: bytes) -> None:
        write_atomically(path, data)

    def rename(self, source: str, target: str) -> None:
        os.replace(source, target)

    def delete(self, path: str) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

    def join(self, folder: str, *names: str) -> str:
        return os.path.join(folder, *names)

    def inside(self, root: str, path: str) -> bool:
        real_root, real_path = _real_root(root), os.path.realpath(path)
        return _under(real_path, real_root)


LOCAL = LocalFileIO()


def _open_nofollow(path: str, within: Sequence[str], what: str) -> int:
    try:
        return os.open(path, _FLAGS)
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise  # missing or unreadable: the caller's OSError, naming the file
    # the last part is a symlink: followed to where it leads, checked before it is opened (and once opened, as the
    # caller's confinement checks every file, in case it was swapped meanwhile)
    target = os.path.realpath(path)
    _refuse_outside(target, path, within, what)
    try:
        return os.open(target, _FLAGS)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ConfinementError(f"{what} {path} is a symlink that keeps changing") from None
        raise


def _check_inside(descriptor: int, status: os.stat_result, path: str, within: Sequence[str], what: str) -> None:
    _refuse_outside(_where_opened(descriptor, status, path), path, within, what)


def _refuse_outside(real: str | None, path: str, within: Sequence[str], what: str) -> None:
    """An OutsideError unless ``real`` (the real path ``path`` leads to; None: it cannot be told) lies in ``within``
    (nothing to check when it is empty)."""
    if within and (real is None or not any(_under(real, _real_root(root)) for root in within)):
        shown = "a file that moved while opened" if real is None else real
        raise OutsideError(f"{what} {path} leads outside {' and '.join(within)} (to {shown}, through a symlink): "
                           "refused; nothing was read there", real)


def _where_opened(descriptor: int, status: os.stat_result, path: str) -> str | None:
    """The real path of the file the descriptor holds (None: it cannot be told)."""
    if _FD_FOLDER == "/proc/self/fd":
        try:
            return os.readlink(f"/proc/self/fd/{descriptor}")
        except OSError:
            return None
    real = os.path.realpath(path)
    try:
        named = os.stat(real)
    except OSError:
        return None
    return real if (named.st_dev, named.st_ino) == (status.st_dev, status.st_ino) else None


def _real_root(root: str) -> str:
    found = _REAL_ROOTS.get(root)
    if found is None:
        found = _REAL_ROOTS[root] = os.path.realpath(root)
    return found


def _under(real_path: str, real_root: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def _kind(mode: int) -> str:
    return ("link" if stat.S_ISLNK(mode) else "file" if stat.S_ISREG(mode) else "folder" if stat.S_ISDIR(mode)
            else "other")
