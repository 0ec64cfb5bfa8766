"""An opened container: its entry table, and zero-copy access to each index body as a
``memoryview`` slice of the buffer or memory-mapped file.
"""
from __future__ import annotations

import io
import mmap
import os
import stat
import sys
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, BinaryIO, Protocol, cast

from fileindex import errors
from fileindex.container.head import ContainerHead, IndexEntry, check_body_bounds, parse_head, validate_layout
from fileindex.memo import BoundedMemo, file_identity

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

class FileIndexContainer:
    """An opened container: its HEAD, and zero-copy access to each index body.

    Lookups follow Java's reader: by exact column name, then index type; when the HEAD lists a
    (column, type) pair twice the later entry wins, as in Java's ``HashMap``.
    """

    def __init__(self, buffer: Buffer, head: ContainerHead, *, source: str = "<bytes>"):
        self._buffer = memoryview(buffer).cast("B") if not isinstance(buffer, memoryview) else buffer.cast("B")
        self.head = head
        self.source = source
        self._mapped: mmap.mmap | None = None
        # a shared container (``embedded_container``) keeps the readers opened on it, for the next query
        self.readers: dict | None = None
        self.recorded_rows: tuple[int | None] | None = None  # (``recorded_row_count``'s answer, once found)
        self._lookup: dict[str, dict[str, IndexEntry]] = {}
        for record in head.column_records:
            for entry in record.indexes:
                self._lookup.setdefault(entry.column, {})[entry.index_type] = entry

    @classmethod
    def from_bytes(cls, data: Buffer, *, source: str = "<bytes>") -> FileIndexContainer:
        view = memoryview(data).cast("B")
        return cls(view, parse_head(view), source=source)

    @classmethod
    def open(cls, path: str | os.PathLike | BinaryIO, *, name: str | None = None) -> FileIndexContainer:
        """Open a container file: a path (``-`` is standard input) or a binary file object.

        A regular file is memory-mapped (read-only; one of at most ``SMALL_FILE`` bytes is read whole): the
        HEAD is parsed, bodies are read on demand.
        A pipe or other stream is read whole. Use ``with`` or :meth:`close` to release the map.
        """
        with _opened(path) as (file, source):
            buffer, mapped = _map(file)
        try:
            container = cls.from_bytes(buffer, source=name or source)
        except BaseException:
            _close_map(mapped)
            raise
        container._mapped = mapped
        return container

    def close(self) -> None:
        """Release the memory map. Body views handed out before must not be used afterwards. A shared
        container (``embedded_container``) stays open: others hold it."""
        if self.readers is not None:
            return
        self._buffer.release()
        mapped, self._mapped = self._mapped, None
        _close_map(mapped)

    def __enter__(self) -> FileIndexContainer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def size(self) -> int:
        return len(self._buffer)

    @property
    def columns(self) -> list[str]:
        return self.head.columns

    def indexes(self, column: str) -> Mapping[str, IndexEntry]:
        """Index type → entry for ``column``; empty when the column has no index."""
        return self._lookup.get(column, {})

    def entry(self, column: str, index_type: str) -> IndexEntry | None:
        return self._lookup.get(column, {}).get(index_type)

    def __iter__(self) -> Iterator[IndexEntry]:
        return iter(self.head.entries)

    def body(self, entry: IndexEntry) -> memoryview | None:
        """The payload of ``entry`` as a view of the container's bytes; ``None`` for an empty entry."""
        if entry.is_empty:
            return None
        check_body_bounds(entry, self.head, self.size)
        return self._buffer[entry.start:entry.start + entry.length]

    def validate_layout(self) -> None:
        """Every body inside the body region, no two bodies overlapping (spec §3, §3.4)."""
        validate_layout(self.head, self.size)


class RangedFile(Protocol):
    """A file on a store as a container reads it (``fileindex.io``'s InputFile)."""

    name: str
    size: int

    def read_range(self, offset: int, length: int) -> bytes: ...


# the bytes a container's HEAD is read from (114 bytes for three columns' entries); a larger HEAD is fetched by a
# second read of its length
HEAD_BYTES = 4096
# the bytes a sidecar on a store is opened by: one GET of them, its answer read as a stream only as far as the HEAD
# and the bodies a query asks for (then ended: the rest is not sent, beyond what the connection buffered), so one
# request opens a sidecar wherever its writer put the asked bodies (pypaimon-rust orders them differently in each
# file). A bound on the bytes held while it is read (twice the largest body fetched whole, PARTIAL_BODY_BYTES):
# a body beyond it is one ranged GET more, as are the parts of a larger body
FIRST_BYTES = 4 << 20


class RangedContainer(FileIndexContainer):
    """A container on a store, fetched by parts: its HEAD from the first bytes (version 1 has it at the start),
    each body by one ranged read when first asked for (kept), so a query of one column fetches that column's
    body and nothing else. ``opened`` reads ranges (``read_range``) and knows its size and name."""

    def __init__(self, opened: RangedFile, head_bytes: bytes, head: ContainerHead):
        super().__init__(head_bytes, head, source=opened.name)
        self._opened, self._size = opened, opened.size
        self._bodies: dict[tuple[int, int], memoryview] = {}
        self._partial: dict[tuple[int, int], PartialBody] = {}  # bodies fetched by parts (a buffer as long as each)
        self.grew: Callable[[], None] | None = None  # called when it holds a body more (a memo weighs it again)

    @property
    def size(self) -> int:
        return self._size

    @property
    def held(self) -> int:
        """The bytes this container holds: its HEAD's, the bodies fetched and the buffers of those fetched by
        parts."""
        return (len(self._buffer) + sum(len(body) for body in list(self._bodies.values()))
                + sum(len(part.buffer) for part in list(self._partial.values())))

    def _grown(self) -> None:
        if self.grew is not None:
            self.grew()

    def body(self, entry: IndexEntry) -> memoryview | None:
        if entry.is_empty:
            return None
        self._check_bounds(entry)
        key = (entry.start, entry.length)
        found = self._bodies.get(key)
        if found is None:
            found = self._bodies[key] = memoryview(self._opened.read_range(entry.start, entry.length))
            self._grown()
        return found

    def keep_bodies(self, columns: Collection[str], opened: RangedFile) -> None:
        """Fetch the bodies of ``columns``' indexes (those read whole, not by parts) from ``opened``, this object's
        version opened by a GET of its first bytes, while it holds them: the bodies lying there cost no request, the
        rest are fetched together (merged where they lie close). A body out of the object's bounds is left to
        :meth:`body`, which raises for it when a query asks."""
        wanted = []
        for column in columns:
            for entry in self.indexes(column).values():
                if entry.is_empty or entry.length > PARTIAL_BODY_BYTES or (entry.start, entry.length) in self._bodies:
                    continue
                try:
                    self._check_bounds(entry)
                except errors.DecodeError:
                    continue
                wanted.append((entry.start, entry.length))
        together = getattr(opened, "read_ranges", None)  # (an object store's: merged, sent together)
        fetched = together(wanted) if together is not None else [opened.read_range(*r) for r in wanted]
        for key, data in zip(wanted, fetched, strict=True):
            self._bodies[key] = memoryview(data)
        if wanted:
            self._grown()

    def partial_body(self, entry: IndexEntry) -> PartialBody | None:
        """The body of ``entry`` fetched by parts as its readers ask for them (one for every reader of it), where it is
        larger than ``PARTIAL_BODY_BYTES`` and not fetched whole already; None otherwise (read it by :meth:`body`)."""
        key = (entry.start, entry.length)
        if entry.is_empty or entry.length <= PARTIAL_BODY_BYTES or key in self._bodies:
            return None
        self._check_bounds(entry)
        partial = self._partial.get(key)
        if partial is None:
            partial = self._partial.setdefault(key, PartialBody(self._opened, entry.start, entry.length))
            self._grown()
        return partial

    def _check_bounds(self, entry: IndexEntry) -> None:
        """``check_body_bounds`` against the object's size, its error naming the file (a store's object shorter
        than its HEAD says)."""
        try:
            check_body_bounds(entry, self.head, self._size)
        except errors.DecodeError as err:
            raise type(err)(f"{self.source}: {err.message}", offset=err.offset, field=err.field) from None


# a body larger than this (a bitmap index of many rows) is fetched by parts, what a query needs of it: one more
# round trip (its dictionary first), most of its bytes never sent. A round trip to a store (20-50 ms) costs what
# sending about 2 MB does (at 100 MB/s), so a smaller body is cheaper fetched whole than with a request more
PARTIAL_BODY_BYTES = 2 << 20


class PartialBody:
    """An index body of a file on a store, ``buffer`` as long as the body and filled by :meth:`fetch` as a reader
    asks for its parts (a reader never looks at a part it has not asked for). Thread-safe."""

    def __init__(self, opened: RangedFile, start: int, length: int):
        self._opened, self._start = opened, start
        self.buffer = bytearray(length)
        self._held: list[tuple[int, int]] = []  # [start, end) parts of the body fetched, sorted, disjoint
        self._lock = threading.Lock()

    def fetch(self, spans: Sequence[tuple[int, int]]) -> None:
        """Make the body's ``[start, end)`` spans present: the parts not held yet, fetched together."""
        with self._lock:
            missing = [part for start, end in spans for part in _uncovered(self._held, max(start, 0),
                                                                            min(end, len(self.buffer)))]
            if not missing:
                return
            ranges = [(self._start + start, end - start) for start, end in missing]
            together = getattr(self._opened, "read_ranges", None)  # (an object store's: merged, sent together)
            fetched = together(ranges) if together is not None else [self._opened.read_range(*r) for r in ranges]
            for (start, end), data in zip(missing, fetched, strict=True):
                if len(data) != end - start:
                    raise errors.InvalidLengthError(
                        f"{self._opened.name}: {len(data)} bytes at {self._start + start}, where the HEAD gives "
                        f"{end - start}: the file is shorter than its HEAD says", offset=self._start + start,
                        field="body")
                self.buffer[start:end] = data
            self._held = _merged([*self._held, *missing])


def _uncovered(held: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` outside the sorted disjoint ``held`` spans."""
    parts = []
    for low, high in held:
        if high <= start or low >= end:
            continue
        if low > start:
            parts.append((start, low))
        start = max(start, high)
    if start < end:
        parts.append((start, end))
    return parts


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def ranged_container(opened: RangedFile, asked: Collection[str] = (), held: int = 0) -> FileIndexContainer:
    """The container of a file on a store (``opened``: its first ``held`` bytes fetched, ``read_range`` for the
    rest): a :class:`RangedContainer` for version 1, whose HEAD is at the start, with the bodies of the ``asked``
    columns fetched (``keep_bodies``); the whole file where it is small and held whole, or not of version 1."""
    from fileindex.errors import DecodeError

    if opened.size <= min(held, SMALL_FILE):  # (held whole: no request for any body, and little to keep)
        return FileIndexContainer.from_bytes(opened.read_range(0, opened.size), source=opened.name)
    first = opened.read_range(0, min(opened.size, HEAD_BYTES))
    try:
        head = parse_head(first)
        if head.version == 1 and head.head_length is not None and head.head_length > len(first):
            first = opened.read_range(0, head.head_length)
            head = parse_head(first)
    except DecodeError:
        head = None
    if head is None or head.version != 1 or head.head_length is None or head.head_length > len(first):
        return FileIndexContainer.from_bytes(opened.read_range(0, opened.size), source=opened.name)
    container = RangedContainer(opened, first, head)
    container.keep_bodies(asked, opened)
    return container


# An embedded index is bytes of a manifest entry: the same bytes always open the same container, with
# the same readers. Weighed by the bytes and about what the HEAD and its readers take decoded (measured on
# 100-row files: 3 KiB with a bloom filter's reader, 7 KiB with a bitmap's too and a key's rows read), so
# the 128 MiB hold the indexes of about 16,000 data files.
EMBEDDED: BoundedMemo[FileIndexContainer] = BoundedMemo(items=1 << 17, budget=128 << 20)
_OPENED_WEIGHT = 8192


def embedded_container(data: bytes) -> FileIndexContainer:
    """The container of an embedded index, shared per process: opened once for the same bytes, and
    keeping the readers its queries open (``readers``). A malformed HEAD raises, each time."""
    container = EMBEDDED.get(data)
    if container is None:
        container = FileIndexContainer.from_bytes(data, source="embedded")
        container.readers = {}
        EMBEDDED.put(data, container, len(data) + _OPENED_WEIGHT)
    return container


def _sidecar_memo_items() -> int:
    """A memoized sidecar keeps its memory map, and a map keeps a file descriptor: at most an eighth of them."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        soft = 1024
    return max(0, min(512, (soft if soft > 0 else 1024) // 8))


# A sidecar index file is opened once per identity (a file rewritten or replaced has a new one) and keeps the
# readers its queries open, as an embedded index does. A small one (at most SMALL_FILE bytes: most sidecars)
# is read whole and holds no descriptor, so the memo keeps as many as its budget allows, weighed by its bytes
# and what its readers take (a table of 2,000 files no longer reopens every sidecar on each plan, as a memo
# of 512 cycling through them did). A larger one stays memory-mapped, holding a descriptor: those are kept in
# MAPPED_SIDECARS, at most an eighth of the descriptor limit, weighed by about an eighth of the file (a range
# bitmap's dictionary headers and slices: 117 KiB for a 2.1 MB sidecar of 200,000 rows); the mapped bytes
# themselves are the page cache's.
SIDECARS: BoundedMemo[FileIndexContainer] = BoundedMemo(items=1 << 17, budget=128 << 20)
MAPPED_SIDECARS: BoundedMemo[FileIndexContainer] = BoundedMemo(items=_sidecar_memo_items(), budget=128 << 20)
SMALL_FILE = 64 << 10


# the identity of the sidecar last shared under each URI (a remote one, in SIDECARS)
REMOTE_IDENTITIES: BoundedMemo[tuple] = BoundedMemo(items=1 << 17, budget=32 << 20)


def shared_sidecar(identity: tuple) -> FileIndexContainer | None:
    """The container of the sidecar with this identity, if one is shared already (nothing is opened)."""
    return SIDECARS.get(identity) or MAPPED_SIDECARS.get(identity)


def first_bytes(uri: str) -> int:
    """How many first bytes the GET opening the sidecar at ``uri`` on a store asks for: ``HEAD_BYTES`` where its
    container is shared already (the GET then only tells whether the object is still that version, and a second
    plan sends kilobytes, not megabytes per file), ``FIRST_BYTES`` otherwise (read as a stream, as far as the
    query needs)."""
    identity = REMOTE_IDENTITIES.get(uri)
    return HEAD_BYTES if identity is not None and SIDECARS.get(identity) is not None else FIRST_BYTES


def sidecar_container(path: str | os.PathLike | BinaryIO, *, identity: tuple | None = None,
                      name: str | None = None) -> FileIndexContainer:
    """The container of a sidecar index file, shared per process while the file keeps its identity (given by
    a caller that opened the file, ``path`` then naming the opened file; ``name`` what errors call it). A
    malformed HEAD raises, each time."""
    if identity is None:
        path = os.fspath(cast(str, path))
        identity = file_identity(path, os.stat(path))
    container = shared_sidecar(identity)
    if container is None:
        container = FileIndexContainer.open(path, name=name)
        container.readers = {}
        if container._mapped is None:  # (read whole: no descriptor held)
            SIDECARS.put(identity, container, container.size + _OPENED_WEIGHT)
        else:
            MAPPED_SIDECARS.put(identity, container, container.size // 8 + _OPENED_WEIGHT)
    return container


MAX_REMOTE_BYTES = 1 << 31  # a container named by URI is fetched whole (no memory map of a remote object)


@contextmanager
def _opened(path: str | os.PathLike | BinaryIO) -> Iterator[tuple[BinaryIO, str]]:
    if not isinstance(path, (str, os.PathLike)):  # an open binary stream
        yield path, str(getattr(path, "name", "<stream>"))
    elif os.fspath(path) == "-":
        yield sys.stdin.buffer, "<stdin>"
    elif "://" in os.fspath(path):  # a store's URI (s3://, gs://, abfs://, ...): its bytes, in one GET
        from fileindex.io.reach import read_location

        yield io.BytesIO(read_location(os.fspath(path), MAX_REMOTE_BYTES, "index file")), os.fspath(path)
    else:
        with open(path, "rb") as file:
            yield file, os.fspath(path)


def _map(file: BinaryIO) -> tuple[bytes | mmap.mmap, mmap.mmap | None]:
    """A regular file memory-mapped (and the map, to close), anything else read whole."""
    try:
        status = os.fstat(file.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):
        status = None
    if status is None or not stat.S_ISREG(status.st_mode):
        return file.read(), None
    size = status.st_size
    if size <= SMALL_FILE:  # (read whole: fewer calls than a map and its unmapping, and no descriptor kept)
        return os.pread(file.fileno(), size, 0), None
    mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    return mapped, mapped


@contextmanager
def raw_bytes(path: str | os.PathLike | BinaryIO) -> Iterator[memoryview]:
    """A file's bytes (memory-mapped where possible) without parsing them, e.g. to explain a broken file."""
    with _opened(path) as (file, _):
        buffer, mapped = _map(file)
    view = memoryview(buffer).cast("B")
    try:
        yield view
    finally:
        view.release()
        _close_map(mapped)


def _close_map(mapped: mmap.mmap | None) -> None:
    if mapped is not None:
        try:
            mapped.close()
        except BufferError:  # a view of it is still alive (a body, a traceback): it closes when collected
            pass
