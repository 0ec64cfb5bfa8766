"""Files that a folder's own documents name (a kit corpus, a vectors folder), read only inside that folder.

A name is relative (never absolute, never with a ``..`` part); resolved, symlinks included, it must
still lie inside the folder; what it names must be a regular file (a device, a pipe or a socket is
refused before it is read, and opening never waits on a pipe) of at most ``limit`` bytes. Every
refusal is a :class:`~fileindex.errors.ConfinementError` naming the file; a missing or unreadable
file stays the ``OSError`` the caller reports.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

from fileindex.errors import ConfinementError

MiB = 1 << 20
MAX_FILE_BYTES = 64 * MiB  # one file a corpus or a vectors folder names (the largest kit file is ~1 MiB)
MAX_JSON_BYTES = 16 * MiB  # one JSON document (manifest.json, vectors.json, a sidecar, a dataset)
_CHUNK = MiB


def checked_name(name, *, what: str) -> PurePosixPath:
    """``name`` as a relative path of plain parts (a ConfinementError for anything else)."""
    if not isinstance(name, str) or not name or "\x00" in name or "\\" in name:
        raise ConfinementError(f"{what} {name!r} is not a relative file name")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ConfinementError(f"{what} {name!r} is an absolute path: name a file inside the folder")
    if any(part == ".." for part in path.parts):
        raise ConfinementError(f"{what} {name!r} leads out of the folder ('..')")
    return path


def inside(folder: str | Path, name, *, what: str) -> Path:
    """The path ``name`` gives under ``folder``, resolved; refused when it is not a relative name or
    resolves (through symlinks) outside the folder."""
    root = Path(os.path.realpath(folder))
    resolved = Path(os.path.realpath(root / checked_name(name, what=what)))
    if not resolved.is_relative_to(root):
        raise ConfinementError(f"{what} {name!r} resolves outside {folder} (a symlink out of the folder)")
    return resolved


def read_regular(path: str | Path, *, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (not followed if it is a symlink)."""
    with _open_regular(path, what=what, limit=limit) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew while read
        raise ConfinementError(f"{what} {path} is larger than {limit:,} bytes")
    return data


def sha256_regular(path: str | Path, *, what: str, limit: int = MAX_FILE_BYTES) -> tuple[str, int]:
    """(SHA-256, size) of a regular file of at most ``limit`` bytes, read in chunks."""
    import hashlib  # (here: its OpenSSL is 12 M instructions of a cold read, which hashes nothing)

    digest, size = hashlib.sha256(), 0
    with _open_regular(path, what=what, limit=limit) as stream:
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise ConfinementError(f"{what} {path} is larger than {limit:,} bytes")
            digest.update(chunk)
    return digest.hexdigest(), size


def read_inside(folder: str | Path, name, *, what: str, limit: int = MAX_FILE_BYTES) -> bytes:
    return read_regular(inside(folder, name, what=what), what=what, limit=limit)


def folder_inside(folder: str | Path, name, *, what: str) -> Path:
    """A folder ``name`` gives under ``folder`` (Tier 2's table root)."""
    path = inside(folder, name, what=what)
    if not path.is_dir():
        raise ConfinementError(f"{what} {name!r} is not a folder inside {folder}")
    return path


def _open_regular(path: str | Path, *, what: str, limit: int):
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP:  # the last part is a symlink (O_NOFOLLOW)
            raise ConfinementError(f"{what} {path} is a symlink, not a regular file") from None
        raise  # missing or unreadable: the caller's OSError, naming the file
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ConfinementError(f"{what} {path} is {kind_of(status.st_mode)}, not a regular file")
        if status.st_size > limit:
            raise ConfinementError(f"{what} {path} holds {status.st_size:,} bytes, more than the limit of "
                                   f"{limit:,}")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def kind_of(mode: int) -> str:
    """What a file mode is, in words."""
    for test, name in ((stat.S_ISLNK, "a symlink"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"
