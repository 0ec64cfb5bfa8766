"""Where a table lives: a URI or a plain path, parsed once into a :class:`Location`.

The schemes are those Paimon tables live under: ``s3://`` and ``s3a://`` (Amazon S3 and S3-compatible
stores), ``oss://`` (Alibaba OSS through its S3-compatible API), ``gs://`` (Google Cloud Storage),
``abfs://``, ``abfss://``, ``az://``, ``wasb://`` and ``wasbs://`` (Azure Blob Storage), ``hdfs://``
and ``viewfs://`` (HDFS, through pyarrow's HadoopFileSystem where the machine has libhdfs), ``file://``
and plain paths. Anything else is refused in one line naming these.

A location's ``key`` is the path inside its bucket or container, without leading or trailing ``/``; its
parts are plain names (never ``.`` or ``..``, never empty): an object store has no folders to climb out
of, so a key that names one is refused here, once, like a ``../`` in a table's metadata.
"""
from __future__ import annotations

import os
import urllib.parse
from collections.abc import Sequence
from fileindex.frozen import frozen

from fileindex.errors import ConfinementError, UsageError

# a URI scheme -> the kind of store it reaches
SCHEMES = {
    "s3": "s3", "s3a": "s3", "oss": "s3",
    "gs": "gcs",
    "abfs": "azure", "abfss": "azure", "az": "azure", "wasb": "azure", "wasbs": "azure",
    "hdfs": "hdfs", "viewfs": "hdfs",
    "file": "local",
}
OBJECT_STORES = ("s3", "gcs", "azure")
SUPPORTED = "s3://, s3a://, oss://, gs://, abfs://, abfss://, az://, wasb://, wasbs://, hdfs://, file:// or a path"


@frozen
class Location:
    """A parsed location. ``store`` is ``s3``, ``gcs``, ``azure``, ``hdfs`` or ``local``; ``bucket`` the bucket
    or container (empty for local paths and HDFS); ``account`` the Azure account named in the host
    (``container@account.dfs.core.windows.net``), if any; ``host`` HDFS's ``namenode:port``; ``key`` the path
    inside the bucket (an absolute path for local files)."""

    scheme: str
    store: str
    bucket: str
    key: str
    account: str | None = None
    host: str | None = None

    @property
    def is_object_store(self) -> bool:
        return self.store in OBJECT_STORES

    @property
    def uri(self) -> str:
        """The location written back as a URI (a plain path for a local file)."""
        if self.store == "local":
            return self.key
        if self.store == "hdfs":
            return f"{self.scheme}://{self.host or ''}/{self.key}"
        authority = f"{self.bucket}@{self.account}.{_azure_domain(self.scheme)}" if self.account else self.bucket
        return f"{self.scheme}://{authority}/{self.key}" if self.key else f"{self.scheme}://{authority}"

    def child(self, *names: str) -> Location:
        """The location ``names`` (each one or more ``/``-separated plain parts) lead to under this one; a
        ConfinementError for a name that would climb out (``..``), as the names a table's metadata gives are."""
        parts = [part for name in names for part in _plain_parts(name, f"a name under {self.uri}", ConfinementError)]
        if self.store == "local":
            return Location(self.scheme, self.store, "", os.path.join(self.key, *parts))
        key = "/".join([self.key, *parts] if self.key else parts)
        return Location(self.scheme, self.store, self.bucket, key, self.account, self.host)

    def contains(self, other: Location) -> bool:
        """Whether ``other`` lies at or under this location (same store, bucket and account)."""
        if (other.store, other.bucket, other.account, other.host) != (self.store, self.bucket, self.account,
                                                                       self.host):
            return False
        if self.store == "local":
            return other.key == self.key or other.key.startswith(self.key.rstrip(os.sep) + os.sep)
        return not self.key or other.key == self.key or other.key.startswith(self.key + "/")

    def __str__(self) -> str:
        return self.uri


class UriPaths:
    """The paths of a file access whose paths are URIs in one bucket or container (``root``'s): joined, compared,
    and confined to that bucket and to the folders a caller names."""

    root: Location

    def join(self, folder: str, *names: str) -> str:
        return parse_location(folder).child(*names).uri

    def inside(self, root: str, path: str) -> bool:
        return parse_location(root).contains(parse_location(path))

    def confined(self, path: str, within: Sequence[str] = (), what: str = "file") -> Location:
        """``path`` parsed; a ConfinementError naming it when it lies in another bucket, account or store, or
        outside every folder ``within`` names."""
        location = parse_location(path)
        if (location.store, location.bucket, location.account, location.host) != (
                self.root.store, self.root.bucket, self.root.account, self.root.host):
            raise ConfinementError(f"{what} {location.uri} lies outside {self.root.uri} (another bucket or store)")
        if within and not any(parse_location(folder).contains(location) for folder in within):
            raise ConfinementError(f"{what} {location.uri} lies outside {', '.join(within)}")
        return location


def parse_location(text: str | os.PathLike) -> Location:
    """``text`` (a URI or a local path) as a :class:`Location`; a UsageError in one line for anything else."""
    text = os.fspath(text)
    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"{text!r} is not a location: give {SUPPORTED}")
    scheme, has_scheme, _ = text.partition("://")
    if not has_scheme or (len(scheme) == 1 and os.name == "nt"):  # C:\... is a path
        return Location("", "local", "", os.path.abspath(text))
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        raise UsageError(f"{text}: the scheme {scheme}:// is not supported; give {SUPPORTED}")
    split = urllib.parse.urlsplit(text)
    if split.query or split.fragment:
        raise UsageError(f"{text}: a location has no ?query or #fragment")
    store = SCHEMES[scheme]
    if store == "local":
        if split.netloc not in ("", "localhost"):
            raise UsageError(f"{text}: a file:// URI names a local path (file:///path), not a host")
        return Location("file", "local", "", os.path.abspath(urllib.parse.unquote(split.path)))
    key = "/".join(_plain_parts(urllib.parse.unquote(split.path), text))
    if store == "hdfs":
        return Location(scheme, store, "", key, host=split.netloc or None)
    bucket, account = split.netloc, None
    if store == "azure" and "@" in bucket:  # container@account.dfs.core.windows.net
        bucket, host = bucket.split("@", 1)
        account = host.split(".", 1)[0]
        if not account:
            raise UsageError(f"{text}: no account after '@' (container@ACCOUNT.blob.core.windows.net)")
    if not bucket or "@" in bucket or ":" in bucket:
        what = "container" if store == "azure" else "bucket"
        raise UsageError(f"{text}: no {what} name ({scheme}://{what.upper()}/path)")
    return Location(scheme, store, bucket, key, account)


def _plain_parts(path: str, what: str, error: type[Exception] = UsageError) -> list[str]:
    parts = [part for part in path.split("/") if part]
    for part in parts:
        if part in (".", "..") or "\\" in part or "\x00" in part:
            raise error(f"{what}: {path!r} has a part {part!r}; give plain names")
    return parts


def _azure_domain(scheme: str) -> str:
    return "dfs.core.windows.net" if scheme in ("abfs", "abfss") else "blob.core.windows.net"


class UriPath:
    """A folder or file of a table on a store reached by URI, with the few ``pathlib`` operations a table's
    layout needs (``/``, ``name``, ``parent``, ``relative_to``): what a store's ``root`` is when the table is
    not on the local disk. Its text (``str``, ``os.fspath``) is the URI the store's file access takes; a name
    joined under it is a plain name (never ``..``), so it stays inside."""

    __slots__ = ("location", "_text")

    def __init__(self, location: Location | str):
        self.location = location if isinstance(location, Location) else parse_location(location)
        self._text = self.location.uri

    def __truediv__(self, name: str) -> UriPath:
        return UriPath(self.location.child(os.fspath(name)))

    @property
    def name(self) -> str:
        return self.location.key.rsplit("/", 1)[-1]

    @property
    def parent(self) -> UriPath:
        key = self.location.key.rsplit("/", 1)[0] if "/" in self.location.key else ""
        where = self.location
        return UriPath(Location(where.scheme, where.store, where.bucket, key, where.account, where.host))

    def resolve(self) -> UriPath:
        """Itself: a store reached by URI has no links to resolve."""
        return self

    def relative_to(self, folder: UriPath | str) -> str:
        """The ``/``-separated names from ``folder`` to here; a ValueError when this does not lie under it."""
        base = folder.location if isinstance(folder, UriPath) else parse_location(folder)
        if not base.contains(self.location):
            raise ValueError(f"{self} is not under {base.uri}")
        return self.location.key[len(base.key):].lstrip("/")

    def __str__(self) -> str:
        return self._text

    def __fspath__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"UriPath({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UriPath) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __lt__(self, other: UriPath) -> bool:
        return self._text < other._text

    def __reduce__(self):
        return UriPath, (self._text,)
