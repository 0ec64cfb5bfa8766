"""A corpus tarball, unpacked by this project's own rules (docs/kit.md, "Untrusted corpora").

tarfile's ``filter="data"`` is not relied on (Python 3.11's misses symlink chains, CVE-2025-4517):
only regular files and folders are unpacked, each name is checked here (relative, plain parts, under
the one top-level folder), nothing is ever created through a link, and the members' count, each
member's size and the total are capped. The tarball's published ``.sha256`` is checked when present.
"""
from __future__ import annotations

import gzip
import os
import re
import tarfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from fileindex.confined import MiB, checked_name, read_regular, sha256_regular
from fileindex.errors import ConfinementError


@dataclass(frozen=True)
class Limits:
    members: int = 20_000
    member_bytes: int = 64 * MiB
    total_bytes: int = 1024 * MiB
    archive_bytes: int = 512 * MiB


LIMITS = Limits()
_CHUNK = MiB
HEADERS_PER_MEMBER = 4096  # the headers a member may take in the stream beyond its data (a long name, pax)


def checked_digest(archive: Path, limits: Limits = LIMITS) -> str:
    """What was checked of the tarball's SHA-256: against ``<archive>.sha256`` when it lies beside it
    (a ConfinementError when they differ), or a note that nothing could be."""
    published = archive.with_name(archive.name + ".sha256")
    # the user names the tarball: a link to it is theirs to make (what it holds is not trusted)
    digest, _ = sha256_regular(os.path.realpath(archive), what="the tarball", limit=limits.archive_bytes)
    if not os.path.lexists(published):
        return f"{archive.name}: SHA-256 {digest} (no {published.name} beside it to check it against)"
    text = read_regular(os.path.realpath(published), what="the published SHA-256",
                        limit=4096).decode("ascii", "replace")
    match = re.match(r"\s*([0-9a-fA-F]{64})\b", text)
    if match is None:
        raise ConfinementError(f"{published} holds no SHA-256")
    if match.group(1).lower() != digest:
        raise ConfinementError(f"{archive} has SHA-256 {digest}, not the {match.group(1).lower()} "
                               f"{published.name} publishes: a damaged or altered tarball")
    return f"{archive.name}: SHA-256 {digest} matches {published.name}"


def unpack(archive: Path, into: Path, limits: Limits = LIMITS) -> Path:
    """The corpus tarball's members written under ``into`` (a new folder); its one top-level folder."""
    into.mkdir(parents=True, exist_ok=True)
    if any(into.iterdir()):
        raise ConfinementError(f"{into} is not empty: a tarball is unpacked into a new folder")
    top: str | None = None
    count = total = 0
    try:
        with _opened(archive, limits) as packed:
            for member in packed:
                count += 1
                if count > limits.members:
                    raise ConfinementError(f"{archive}: more than {limits.members:,} members (a kit has a few "
                                           "thousand): refused")
                name = checked_name(member.name.rstrip("/"), what=f"{archive}: member")
                if top is None:
                    top = name.parts[0]
                if name.parts[0] != top:
                    raise ConfinementError(f"{archive}: member {member.name!r} lies outside {top}/: a kit tarball "
                                           "holds one folder")
                target = into.joinpath(*name.parts)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif member.isreg():
                    if member.size > limits.member_bytes:
                        raise ConfinementError(f"{archive}: member {member.name} holds {member.size:,} bytes, more "
                                               f"than the limit of {limits.member_bytes:,}")
                    total += member.size
                    if total > limits.total_bytes:
                        raise ConfinementError(f"{archive}: its members hold more than {limits.total_bytes:,} "
                                               "bytes unpacked: refused")
                    _write_member(packed, member, target)
                else:
                    raise ConfinementError(f"{archive}: member {member.name} is {_kind(member)}: a kit tarball "
                                           "holds only regular files and folders")
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as err:
        raise ConfinementError(f"{archive} is not a kit tarball: {err}") from None
    if top is None:
        raise ConfinementError(f"{archive} is empty: a kit tarball holds one folder")
    return into / top


@contextmanager
def _opened(archive: Path, limits: Limits) -> Iterator[tarfile.TarFile]:
    """The tarball (gunzipped if need be), read by tarfile only through :class:`_Bounded`."""
    with open(archive, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        with gzip.GzipFile(fileobj=raw, mode="rb") if gzipped else nullcontext(raw) as stream:
            most = limits.total_bytes + limits.members * HEADERS_PER_MEMBER
            bounded = _Bounded(cast(IO[bytes], stream), archive, most)
            with tarfile.open(fileobj=cast(IO[bytes], bounded), mode="r:") as packed:
                yield packed


class _Bounded:
    """A tar stream that tarfile may read only a chunk at a time (tarfile reads a pax or GNU long-name
    header whole, whatever size it claims) and never past ``most`` bytes."""

    def __init__(self, stream: IO[bytes], archive: Path, most: int) -> None:
        self.stream, self.archive, self.most = stream, archive, most

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > _CHUNK:
            raise ConfinementError(f"{self.archive}: a header or read of {size} bytes (more than {_CHUNK:,}): "
                                   "a kit tarball holds small headers")
        data = self.stream.read(size)
        self._check(self.stream.tell())
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        position = self.stream.tell() + offset if whence == 1 else offset
        self._check(position if whence != 2 else self.most + 1)
        return self.stream.seek(offset, whence)

    def tell(self) -> int:
        return self.stream.tell()

    def _check(self, position: int) -> None:
        if position > self.most:
            raise ConfinementError(f"{self.archive}: more than {self.most:,} bytes unpacked: refused")


def _write_member(packed: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    source = packed.extractfile(member)
    assert source is not None  # a regular member
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(target, flags, 0o644)
    except FileExistsError:
        raise ConfinementError(f"member {member.name} appears twice in the tarball") from None
    with os.fdopen(descriptor, "wb") as out:
        left = member.size
        while left:
            chunk = source.read(min(left, _CHUNK))
            if not chunk:
                raise ConfinementError(f"member {member.name} ends before its {member.size:,} bytes")
            out.write(chunk)
            left -= len(chunk)


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return f"a symlink (to {member.linkname!r})"
    if member.islnk():
        return f"a hard link (to {member.linkname!r})"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a named pipe"
    return "not a regular file or folder"
