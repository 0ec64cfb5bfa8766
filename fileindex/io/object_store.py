"""A table's files on S3, GCS or Azure Blob: the file access the table's store holds for an object store.

Every request costs tens of milliseconds and a charge, so each operation sends as few as it can:

* :meth:`ObjectStoreFileIO.read_bytes` (metadata: snapshots, schemas, manifests): one GET, refused unread
  past its size cap (the answer's headers give the size before the body is taken);
* :meth:`ObjectStoreFileIO.open_input` (data files, for pyarrow): one GET of the object's last 64 KiB (a
  suffix range), whose answer also gives the size and ETag, so a Parquet footer costs nothing more;
  Azure has no suffix range, so there it is a HEAD, and the tail is fetched by the first read into it;
* :meth:`ObjectStoreFileIO.open_whole` (a data file most of which will be read): one GET of the whole object;
  :meth:`ObjectStoreFileIO.open_sized` (a data file, its size from its manifest entry): as ``open_input``, and on
  Azure a plain range of the last 64 KiB instead of the HEAD (the whole object for ``open_whole``);
* :meth:`ObjectInputFile.read_range`: one ranged GET; :meth:`ObjectInputFile.read_ranges`: the ranges
  merged where the gap between them is small, one GET per merged range, sent together;
  :meth:`ObjectInputFile.prefetch` (a row group's column chunks, before pyarrow reads them one at a time): the
  same, held in memory for the reads that follow;
* :meth:`ObjectStoreFileIO.info`: one HEAD; nothing is ever LISTed unless :meth:`ObjectStoreFileIO.list` is
  asked;
* :meth:`ObjectStoreFileIO.create`: a conditional PUT, the commit point: ``If-None-Match: *`` on S3 and Azure
  (through obstore), ``ifGenerationMatch=0`` on GCS (an upload through GCS's JSON API, whose precondition
  the emulators enforce too). A lost race is ``False``, never an overwrite. A store whose conditional create
  is not known to work (OSS's S3 API) is refused for commits unless :data:`SINGLE_WRITER` is set.

Reads go through obstore, whose stores are thread-safe; :func:`arrow_filesystem` gives pyarrow's own
filesystem for the same location and options (pyarrow.dataset, HDFS, a user's own filesystem). Every
error a client library raises is re-raised with the store's secrets taken out of its text.

The methods are those of :class:`fileindex.io.base.FileIO` and ``InputFile`` (paths are URIs).
"""
from __future__ import annotations

import io
import json
import os
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

import pyarrow as pa

from fileindex.errors import ConfinementError, FileIndexError, InvalidLengthError, StoreError, UsageError
from fileindex.io.base import FileIO, InputFile
from fileindex.io.locations import Location, UriPaths, parse_location
from fileindex.io.store_options import SINGLE_WRITER, StoreOptions, scrub, store_options

TAIL = 64 * 1024  # bytes of an object's end fetched when it is opened (a Parquet footer, as pyarrow reads it)
GAP = 64 * 1024  # ranges closer than this are fetched as one (a request costs more than these bytes)
MAX_CONCURRENT = 8  # ranges of one file fetched at once
# prefetched ranges merged up to this length (pyarrow's pre-buffering default): longer ones go as GETs side by side
RANGE_LIMIT = 32 << 20
_NO_SUFFIX_RANGE = ("azure",)
# how long a request may take, and be tried again, before the store is said to be out of reach: a few tries in
# seconds, not the client library's ten tries in up to three minutes (connection errors, timeouts and 5xx answers
# are retried, each after a backoff of 100 ms doubling up to 2 s). A server that takes a connection and then sends
# nothing (or stops sending) is given up on after READ_TIMEOUT; one that trickles, after REQUEST_TIMEOUT. Each is
# the default of its option (store_options.TIMEOUTS), in seconds.
CONNECT_TIMEOUT, READ_TIMEOUT, REQUEST_TIMEOUT = 5.0, 20.0, 60.0
MAX_RETRIES, RETRY_TIMEOUT_SECONDS = 3, 15
_STATUS = re.compile(r"non-2xx status code: (\d{3}(?: [A-Za-z]+)*)")  # what the client says of an HTTP error


class ObjectChangedError(StoreError):
    """An object replaced or deleted since it was opened: its reads would mix two versions."""


@dataclass(frozen=True)
class ObjectInfo:
    """An object's (or a common prefix's) name in its folder, kind (``file`` or ``folder``), size and identity
    (URI, size, ETag, generation): the fields of :class:`fileindex.io.base.FileInfo`."""

    name: str
    kind: str
    size: int = 0
    identity: tuple = ()


def coalesce(ranges: Sequence[tuple[int, int]], gap: int = GAP, limit: int | None = None) -> list[tuple[int, int]]:
    """``(offset, length)`` ranges merged where they overlap or lie less than ``gap`` bytes apart, sorted; with
    ``limit``, two that do not overlap are not merged where the merged range would be longer than that."""
    merged: list[list[int]] = []
    for offset, length in sorted(ranges):
        stop = offset + length
        if merged and offset <= merged[-1][1] + gap and (
                limit is None or offset < merged[-1][1] or max(merged[-1][1], stop) - merged[-1][0] <= limit):
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([offset, stop])
    return [(start, end - start) for start, end in merged]


class ObjectInputFile:
    """An object opened for reading: its size and identity as they were when opened; reads ask for that
    version (``If-Match``), so an object replaced meanwhile is an error, never a mix of two versions."""

    local_path = None

    def __init__(self, io_: ObjectStoreFileIO, location: Location, size: int, etag: str | None,
                 version: str | None, tail: bytes | None = None):
        self._io, self._location = io_, location
        self.name = location.uri
        self.size = size
        self.identity = (location.uri, size, etag, version)
        self._etag, self._version = etag, version
        self._tail = tail  # the object's last min(TAIL, size) bytes; None: not fetched yet
        self._head: bytes | bytearray = b""  # the object's first bytes, when it was opened by them (open_head)
        self._blocks: tuple[tuple[int, bytes], ...] = ()  # (offset, bytes) fetched ahead by prefetch
        self._stream: _HeadStream | None = None  # the answer of a streamed open_head, read on as reads ask

    def _streamed_to(self, end: int) -> None:
        """The first ``end`` bytes held, read on from the streamed answer that opened the object where it reaches
        them (nothing where it does not: those are ranged GETs); an answer ending short of them (an object shorter
        than its size said) is an InvalidLengthError at that offset."""
        stream = self._stream
        if stream is None or not len(self._head) < end <= stream.reach:
            return
        with stream.lock:  # (the reads of one open may come from several threads)
            while len(self._head) < end:
                chunk = stream.next_chunk()
                if chunk is None:
                    raise InvalidLengthError(
                        f"{self.name}: the object's bytes end at {len(self._head):,}, where its size is "
                        f"{self.size:,}: it was cut short", offset=len(self._head), field="object")
                cast(bytearray, self._head).extend(chunk)

    def read_range(self, offset: int, length: int) -> bytes:
        """``length`` bytes from ``offset`` (fewer at the end of the object); the object's last 64 KiB are
        fetched once, by the first read that reaches into them, and served from memory after that, as are the
        ranges :meth:`prefetch` holds and the first bytes :meth:`ObjectStoreFileIO.open_head` fetched."""
        end = min(offset + length, self.size)
        if offset >= end:
            return b""
        self._streamed_to(end)
        first = len(self._head)
        if end <= first:
            return bytes(self._head[offset:end])
        if offset < first:  # (a range running past the first bytes held: only the rest is fetched)
            return (bytes(self._head[offset:])
                    + self._io._get_range(self._location, first, end, self._etag, self._version))
        tail_start = self._tail_start()
        if offset >= tail_start:
            if self._tail is None:
                self._tail = self._io._get_range(self._location, tail_start, self.size, self._etag, self._version)
            return self._tail[offset - tail_start:end - tail_start]
        held = self._prefetched(offset, end, tail_start)
        if held is not None:
            return held
        return self._io._get_range(self._location, offset, end, self._etag, self._version)

    @property
    def first_held(self) -> int:
        """How many of the object's first bytes are read without a request more: those the GET that opened it
        (``open_head``) fetched, or for a streamed one, those its answer reaches."""
        return max(len(self._head), min(self._stream.reach, self.size) if self._stream is not None else 0)

    def prefetch(self, ranges: Sequence[tuple[int, int]], gap: int = GAP) -> int:
        """Fetch the ``(offset, length)`` ranges ahead of the reads that will ask for them (a row group's column
        chunks, before pyarrow reads them one by one): merged as :meth:`read_ranges` merges them, without the
        bytes of the object's end already held, sent together, and held in place of what an earlier prefetch
        held until :meth:`release`. The number of GETs sent."""
        tail_start = self._tail_start() if self._tail is not None else self.size
        # (a range a footer puts before the object's start is not asked for: the reader refuses that chunk itself)
        wanted = [(offset, min(offset + length, tail_start) - offset) for offset, length in ranges
                  if 0 <= offset < min(offset + length, tail_start)]
        fetches = coalesce(wanted, gap, RANGE_LIMIT)
        self._blocks = tuple(zip((start for start, _ in fetches), self._fetched(fetches), strict=True))
        return len(fetches)

    def _tail_start(self) -> int:
        """Where the object's end held in memory starts (the last 64 KiB, or more where it was opened so)."""
        return self.size - len(self._tail) if self._tail is not None else max(0, self.size - TAIL)

    def release(self) -> None:
        """Drop the ranges :meth:`prefetch` holds."""
        self._blocks = ()

    def _prefetched(self, offset: int, end: int, tail_start: int) -> bytes | None:
        """The bytes ``[offset, end)`` out of a prefetched range (the object's held end completing one that
        reaches it); None where no prefetched range holds them."""
        for start, data in self._blocks:
            stop = start + len(data)
            if start <= offset < stop:
                if end <= stop:
                    return data[offset - start:end - start]
                if stop >= tail_start and self._tail is not None:
                    return data[offset - start:] + self._tail[stop - tail_start:end - tail_start]
        return None

    def _fetched(self, fetches: list[tuple[int, int]]) -> list[bytes]:
        """The bytes of each ``(offset, length)`` range, one GET each, sent together."""
        if len(fetches) <= 1:
            return [self.read_range(*r) for r in fetches]
        with ThreadPoolExecutor(min(MAX_CONCURRENT, len(fetches))) as pool:
            return list(pool.map(lambda r: self.read_range(*r), fetches))

    def read_ranges(self, ranges: Sequence[tuple[int, int]], gap: int = GAP) -> list[bytes]:
        """The bytes of each ``(offset, length)`` range, in the order given: ranges less than ``gap`` bytes apart
        are fetched as one GET, and the GETs are sent together."""
        fetches = coalesce(ranges, gap)
        fetched = self._fetched(fetches)
        answers = []
        for offset, length in ranges:
            index = next(i for i, (start, size) in enumerate(fetches) if start <= offset <= start + size)
            start = fetches[index][0]
            answers.append(fetched[index][offset - start:offset - start + length])
        return answers

    def native(self) -> pa.NativeFile:
        """A random-access file pyarrow reads (each read one ranged GET, the tail served from memory)."""
        return pa.PythonFile(_RangeStream(self), mode="r")

    def close(self) -> None:
        """Drop the bytes held (what was read of them was copied out) and end a streamed answer unread (the rest of
        it is not transferred, beyond what the connection buffered): reads after this are requests."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()
        self._tail, self._blocks, self._head = None, (), b""

    def __enter__(self) -> ObjectInputFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _HeadStream:
    """The streamed answer to a GET of an object's first ``reach`` bytes, read a chunk at a time as far as reads ask
    (under ``lock``) and ended unread past that."""

    CHUNK = 64 << 10  # bytes asked of the client library per read: at most this much read past what is asked

    def __init__(self, location: Location, io_: ObjectStoreFileIO, answer: Any, reach: int):
        self._location, self._io, self.reach = location, io_, reach
        self._chunks: Any = answer.stream(min_chunk_size=self.CHUNK)
        self.lock = threading.Lock()

    def next_chunk(self) -> bytes | None:
        """The answer's next bytes; None at its end."""
        try:
            return self._io._call(self._location, lambda: next(self._chunks, None))
        except (FileNotFoundError, _Changed):  # (the client library's retry of a broken answer found another version)
            raise _changed(self._location) from None

    def close(self) -> None:
        with self.lock:
            self._chunks = iter(())  # (the client library's stream dropped: its connection closed, the rest unread)


class _RangeStream(io.RawIOBase):
    """The file-like object pa.PythonFile reads: seek, tell and read, each read one ``read_range``."""

    def __init__(self, opened: ObjectInputFile):
        self._opened, self._position = opened, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._opened.size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer) -> int:
        data = self._opened.read_range(self._position, len(buffer))
        buffer[:len(data)] = data
        self._position += len(data)
        return len(data)

    def readall(self) -> bytes:
        data = self._opened.read_range(self._position, self._opened.size - self._position)
        self._position += len(data)
        return data


class ObjectStoreFileIO(UriPaths):
    """The files of one bucket or container (see the module). Paths are URIs (``s3://bucket/key``); one in
    another bucket, account or store is refused as lying outside the table."""

    def __init__(self, root: Location, options: StoreOptions, store: Any = None):
        if not root.is_object_store:
            raise UsageError(f"{root}: not an object store")
        self.root, self.options = root, options
        try:
            self._store = store if store is not None else obstore_store(root, options)
        except (FileIndexError, ImportError):
            raise
        except Exception as err:  # a malformed key or endpoint: the client library's words, without secrets
            said = (_malformed_key(str(err)) or _unusable_key_file(str(err), root, options)
                    or scrub(str(err).split(chr(10), 1)[0], options.secrets()))
            raise UsageError(f"{root}: {said}") from None
        self._gcs = _GcsUploads(root.bucket, options) if root.store == "gcs" else None

    @classmethod
    def at(cls, uri: str, options: Mapping[str, str] | None = None,
           environ: Mapping[str, str] = os.environ) -> ObjectStoreFileIO:
        """The file access for the table or warehouse at ``uri`` with Paimon's option keys and the environment."""
        root = parse_location(uri)
        return cls(root, store_options(root, options, environ))

    def __repr__(self) -> str:
        return f"ObjectStoreFileIO({self.root.uri!r}, endpoint={self.options.endpoint!r})"

    def __reduce__(self):  # a Spark task rebuilds its own client from the same location and options
        return ObjectStoreFileIO, (self.root, self.options)

    # -- reads ---------------------------------------------------------------------------------------

    def open_input(self, path: str, *, within: Sequence[str] = (), what: str = "file",
                   suffix: int = TAIL) -> ObjectInputFile:
        """``path`` opened for reading (see the module) by a GET of its last ``suffix`` bytes; a ConfinementError
        unless it lies inside one of the folders ``within`` names; a missing object is a FileNotFoundError naming
        it."""
        location = self.confined(path, within, what)
        if self.root.store not in _NO_SUFFIX_RANGE:
            try:
                result = self._call(location, lambda: _obstore().get(self._store, location.key,
                                                                     options={"range": {"suffix": suffix}}))
                tail = self._call(location, lambda: bytes(result.bytes()))
                meta = result.meta
                return ObjectInputFile(self, location, meta["size"], meta.get("e_tag"), meta.get("version"), tail)
            except StoreError:  # an empty object has no last bytes to ask for: S3 answers 200, GCS a bad range
                pass
        meta = self._call(location, lambda: _obstore().head(self._store, location.key))
        return ObjectInputFile(self, location, meta["size"], meta.get("e_tag"), meta.get("version"))

    def open_whole(self, path: str, size: int, *, within: Sequence[str] = (), what: str = "file") -> ObjectInputFile:
        """``path`` opened by one GET of its last ``size`` bytes (its size as the caller knows it: then the whole
        object, and every read is served from memory): how a data file most of which will be read is opened."""
        return self.open_sized(path, size, within=within, what=what, suffix=max(size, TAIL))

    def open_sized(self, path: str, size: int, *, within: Sequence[str] = (), what: str = "file",
                   suffix: int = TAIL) -> ObjectInputFile:
        """:meth:`open_input` of an object whose size the caller knows (a data file's, from its manifest entry):
        where the store has no suffix range (Azure), its last ``suffix`` bytes by a plain range of that size, not a
        HEAD first. An object of another size is opened as it is (its answer gives the size), its bytes unused."""
        if self.root.store not in _NO_SUFFIX_RANGE or size <= 0:
            return self.open_input(path, within=within, what=what, suffix=suffix)
        location = self.confined(path, within, what)
        start = max(0, size - suffix)
        try:
            result = self._call(location, lambda: _obstore().get(self._store, location.key,
                                                                 options={"range": (start, size)}))
            data = self._call(location, lambda: bytes(result.bytes()))
        except StoreError:  # (shorter than that: the range is refused) opened by a HEAD
            return self.open_input(path, within=within, what=what, suffix=suffix)
        meta = result.meta
        held = data if meta["size"] == size and len(data) == size - start else None
        return ObjectInputFile(self, location, meta["size"], meta.get("e_tag"), meta.get("version"), held)

    def open_head(self, path: str, *, within: Sequence[str] = (), what: str = "file", length: int = TAIL,
                  streamed: bool = False) -> ObjectInputFile:
        """``path`` opened by one GET of its first ``length`` bytes (whose answer gives the size and ETag too),
        kept for reads into them until :meth:`ObjectInputFile.close`: how a sidecar index is opened (its HEAD is at
        its start; the bodies a query asks for, where they lie in those bytes, cost no request more; others are
        fetched one ranged GET each). ``streamed``: the answer is read as a stream, its first chunk now and the rest
        only as far as reads ask (:meth:`ObjectInputFile.close` ends it unread past that), so
        ``length`` can reach the bodies a query may ask for wherever they lie, without their bytes all sent."""
        location = self.confined(path, within, what)
        result = self._call(location, lambda: _obstore().get(self._store, location.key,
                                                             options={"range": (0, length)}))
        meta = result.meta
        opened = ObjectInputFile(self, location, meta["size"], meta.get("e_tag"), meta.get("version"))
        if streamed:
            opened._head, opened._stream = bytearray(), _HeadStream(location, self, result, length)
            opened._streamed_to(min(1, opened.size))  # (its first chunk)
        else:
            opened._head = self._call(location, lambda: bytes(result.bytes()))[:meta["size"]]
        return opened

    def read_bytes(self, path: str, *, limit: int, within: Sequence[str] = (), what: str = "file") -> bytes:
        """The whole of a small object in one GET, refused (its body not read) when over ``limit`` bytes."""
        location = self.confined(path, within, what)
        result = self._call(location, lambda: _obstore().get(self._store, location.key))
        if result.meta["size"] > limit:
            raise ConfinementError(f"{what} {location.uri} holds {result.meta['size']:,} bytes, more than the "
                                   f"limit of {limit:,}")
        return self._call(location, lambda: bytes(result.bytes()))

    def info(self, path: str) -> ObjectInfo | None:
        """The object at ``path`` (one HEAD), None when there is none."""
        location = self.confined(path, (), "file")
        try:
            meta = self._call(location, lambda: _obstore().head(self._store, location.key))
        except FileNotFoundError:
            return None
        return _info(location.key.rsplit("/", 1)[-1], location, meta)

    def list(self, folder: str) -> list[ObjectInfo]:
        """The objects and common prefixes directly under ``folder`` (one LIST a thousand entries). A folder's own
        marker (an empty object ``folder/``, which Hadoop's S3A, pyarrow and the consoles create) is no file of
        it: the client lists it under the folder's name, without its slash."""
        location = self.confined(folder, (), "folder")
        prefix = location.key + "/" if location.key else None
        found = self._call(location, lambda: _obstore().list_with_delimiter(self._store, prefix))
        listed = [*found["common_prefixes"], *(meta["path"] for meta in found["objects"])]
        stray = next((key for key in listed if key != location.key and not _directly_in(key, prefix or "")), None)
        if stray is not None:  # (taken by its last part, it was a file of this folder)
            raise StoreError(f"{location.uri}: the store listed {stray!r}, which does not lie directly in the "
                             "folder asked for: a server that is not an object store, or one answering wrongly")
        folders = [ObjectInfo(p.rstrip("/").rsplit("/", 1)[-1], "folder") for p in found["common_prefixes"]]
        files = [_info(meta["path"].rsplit("/", 1)[-1], self.root.child(meta["path"]), meta)
                 for meta in found["objects"] if meta["path"] != location.key]  # (not a folder's marker: see below)
        return folders + files

    # -- writes --------------------------------------------------------------------------------------

    @property
    def conditional_create(self) -> bool:
        """Whether :meth:`create` is atomic on this store (S3, GCS, Azure; not OSS's S3 API)."""
        return self.options.s3_compatible is None

    def create(self, path: str, data: bytes) -> bool:
        """Write ``path`` holding ``data`` only if it is absent, atomically; False when another writer has it."""
        location = self.confined(path, (), "file")
        if not self.conditional_create:
            if not self.options.single_writer:
                raise UsageError(f"{self.root.scheme}://: this store offers no conditional create, so two writers "
                                 f"could both commit; set {SINGLE_WRITER}=true if only one writer ever commits here")
            if self.info(path) is not None:  # one writer: nobody else can come between the HEAD and the PUT
                return False
            self.replace(path, data)
            return True
        gcs = self._gcs
        try:
            if gcs is not None:
                self._call(location, lambda: gcs.upload(location.key, data, only_if_absent=True))
            else:
                self._call(location, lambda: _obstore().put(self._store, location.key, data, mode="create"))
        except _Exists:
            return False
        return True

    def replace(self, path: str, data: bytes) -> None:
        """Write ``path`` holding ``data`` (one PUT, atomic on an object store), over what was there."""
        location, gcs = self.confined(path, (), "file"), self._gcs
        if gcs is not None:
            self._call(location, lambda: gcs.upload(location.key, data, only_if_absent=False))
        else:
            self._call(location, lambda: _obstore().put(self._store, location.key, data))

    def rename(self, source: str, target: str) -> None:
        """Copy then delete: not atomic on an object store, so it is used only for names one writer owns."""
        origin, destination = self.confined(source, (), "file"), self.confined(target, (), "file")
        if self._gcs is not None:
            self.replace(target, self.read_bytes(source, limit=1 << 62))
        else:
            self._call(origin, lambda: _obstore().copy(self._store, origin.key, destination.key))
        self.delete(source)

    def delete(self, path: str) -> None:
        """Remove the object at ``path``; nothing there is not an error."""
        location = self.confined(path, (), "file")
        try:
            self._call(location, lambda: _obstore().delete(self._store, location.key))
        except FileNotFoundError:
            pass

    # -- requests ------------------------------------------------------------------------------------

    def _get_range(self, location: Location, start: int, end: int, etag: str | None,
                   version: str | None = None) -> bytes:
        options: dict[str, Any] = {"range": (start, end)}
        if version:  # GCS: the generation opened (fake-gcs-server ignores If-Match)
            options["version"] = version
        elif etag:
            options["if_match"] = etag
        try:
            return self._call(location, lambda: bytes(_obstore().get(self._store, location.key,
                                                                      options=options).bytes()))
        except (FileNotFoundError, _Changed):  # that version is gone (GCS: 404), or no longer current (412)
            raise _changed(location) from None

    def _call(self, location: Location, request: Callable[[], Any]) -> Any:
        """``request()``, with a client library's error re-raised without secrets: FileNotFoundError for a
        missing object, ``_Exists`` for a lost conditional create, StoreError for anything else."""
        try:
            return _interruptibly(request)
        except (FileIndexError, _Exists, _Changed):
            raise
        except FileNotFoundError as err:
            raise FileNotFoundError(f"{location.uri}: no such object") from _scrubbed(err, self.options)
        except Exception as err:
            if type(err).__name__ == "AlreadyExistsError":
                raise _Exists() from None
            if type(err).__name__ == "PreconditionError":
                raise _Changed() from None
            raise StoreError(f"{location.uri}: {self._said(err)}") from None

    def _said(self, err: Exception) -> str:
        """What a client library's error means, in a few words without secrets: a bucket or container that is not
        there, an endpoint out of reach, credentials refused, else the error's first line."""
        text, kind = str(err), type(err).__name__
        container = "container" if self.root.store == "azure" else "bucket"
        endpoint = scrub(self.options.endpoint or "its default endpoint", self.options.secrets())
        option = {"s3": "s3.endpoint", "azure": "azure.endpoint", "gcs": "gcs.endpoint"}[self.root.store]
        if any(code in text for code in ("NoSuchBucket", "ContainerNotFound", "no bucket named")):
            return f"{container} {self.root.bucket} does not exist at {endpoint}"
        key_file = _unusable_key_file(text, self.root, self.options)
        if key_file:
            return key_file
        if "169.254.169.254" in text or "metadata" in text.lower():  # (the credential chain's last resort)
            return ("no credentials: none in the options or the environment, and no instance metadata service "
                    f"answered; give them as options ({_CREDENTIAL_OPTIONS[self.root.store]}) or in the environment")
        if kind in ("PermissionDeniedError", "UnauthenticatedError") or any(
                status in text for status in ("403 Forbidden", "401 Unauthorized")):
            return (f"access denied at {endpoint}: the store refused the credentials given (options, the "
                    "environment or the credential chain) for this object")
        if endpoint.startswith("https://") and "InvalidContentType" in text:  # (its answer to TLS was not TLS)
            return (f"the server at {endpoint} does not speak TLS (https): if it is plain http, write "
                    f"{option}=http://{endpoint.removeprefix('https://')} (an endpoint without a scheme is https)")
        if "error sending request" in text or "timed out" in text.lower() or "dns error" in text:
            return (f"cannot reach the store at {endpoint} (no answer; tried {1 + MAX_RETRIES} times at most): "
                    f"check {option} and the network")
        answered = _STATUS.search(text)
        if answered and answered.group(1)[:3] in ("429", "500", "502", "503", "504"):  # (retried: see MAX_RETRIES)
            return (f"the store at {endpoint} answered {answered.group(1)} to every try ({1 + MAX_RETRIES} at most, "
                    f"within {RETRY_TIMEOUT_SECONDS} s): it is overloaded or failing; try again later")
        if answered:  # (a missing object is FileNotFoundError already: this is a server that is not the store)
            return (f"the server at {endpoint} answered {answered.group(1)} to a request for {container} "
                    f"{self.root.bucket}: check {option} (is it the store's endpoint?)")
        return scrub(text.split("\n", 1)[0], self.options.secrets())


def _directly_in(key: str, prefix: str) -> bool:
    """Whether a listed key (an object, or a common prefix ending in ``/``) is a child of the folder ``prefix``."""
    name = key.rstrip("/")
    return name.startswith(prefix) and len(name) > len(prefix) and "/" not in name[len(prefix):]


def _unusable_key_file(text: str, root: Location, options: StoreOptions) -> str | None:
    """A GCS service-account file the client library cannot use (not there, not JSON, a private key that is no
    PEM key: "Error reading pem file: no items found"), said naming the option and the file; None otherwise."""
    path = options.credentials_file
    if root.store != "gcs" or not path or not any(
            word in text for word in ("pem", "PEM", "CryptoProvider", "service account", "credential")):
        return None
    detail = scrub(text.split("\n", 1)[0], options.secrets())
    return (f"the service-account key file {path} (gcs.credential-path) cannot be used: {detail}; give the JSON "
            "key file of a service account as Google Cloud wrote it (its private_key a PEM key)")


def _malformed_key(text: str) -> str | None:
    """A client library's words for an account key it cannot decode (it tells the decoder's detail, e.g.
    "Invalid input length: 9"), said in one line without the key; None for any other error."""
    if "Invalid Access Key" in text:
        return ("the Azure account key (azure.account-key or AZURE_STORAGE_ACCOUNT_KEY) is not valid base64: "
                "give the storage account's key whole, as the portal or az storage account keys list shows it")
    return None


# what a store's credentials are, as options (the environment's names are in the guide, docs/guide/object-stores.md)
_CREDENTIAL_OPTIONS = {"s3": "s3.access-key and s3.secret-key", "azure": "azure.account-key or azure.sas-token",
                       "gcs": "gcs.credential-path or gcs.token; gcs.allow-anonymous for an emulator"}


def _interruptibly(request: Callable[[], Any]) -> Any:
    """``request()``; called on the main thread, it runs on a daemon thread of its own while the main thread waits,
    so that Ctrl-C ends a wait for a store that does not answer: the client library's blocking call holds the
    signal until its request times out (a minute), and a daemon thread does not keep the process alive."""
    if threading.current_thread() is not threading.main_thread():
        return request()
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append((True, request()))
        except BaseException as err:  # (re-raised on the main thread, which _call's handlers expect)
            outcome.append((False, err))
        finally:
            done.set()

    threading.Thread(target=run, name="fileindex-store-request", daemon=True).start()
    done.wait()
    answered, value = outcome[0]
    if answered:
        return value
    raise value


class _Exists(Exception):
    """A conditional create that found the object there (the store's 412 or 409)."""


class _Changed(Exception):
    """A read's precondition (If-Match) that failed: the object is no longer the version opened."""


def _changed(location: Location) -> ObjectChangedError:
    return ObjectChangedError(f"{location.uri} changed since it was opened: read it again")


def _scrubbed(err: Exception, options: StoreOptions) -> Exception:
    return type(err)(scrub(str(err).split("\n", 1)[0], options.secrets()))


def _info(name: str, location: Location, meta: Mapping[str, Any]) -> ObjectInfo:
    return ObjectInfo(name, "file", meta["size"], (location.uri, meta["size"], meta.get("e_tag"),
                                                   meta.get("version")))


def _obstore():
    try:
        import obstore
    except ImportError:
        raise UsageError("object stores need obstore: pip install 'paimon-fileindex[object-stores]'") from None
    return obstore


# -- the clients --------------------------------------------------------------------------------------------

def obstore_store(location: Location, options: StoreOptions) -> Any:
    """An obstore store for ``location``'s bucket or container (keys are given whole, from the bucket's root)."""
    _obstore()  # (first: a one-line UsageError where obstore is not installed)
    from obstore.store import AzureStore, GCSStore, S3Store

    client: Any = {"connect_timeout": _seconds(options.connect_timeout, CONNECT_TIMEOUT),  # obstore's TypedDicts
                   "read_timeout": _seconds(options.read_timeout, READ_TIMEOUT),
                   "timeout": _seconds(options.request_timeout, REQUEST_TIMEOUT)}
    if options.allow_http:
        client["allow_http"] = True
    retry: Any = {"max_retries": MAX_RETRIES, "retry_timeout": timedelta(seconds=RETRY_TIMEOUT_SECONDS),
                  "backoff": {"init_backoff": timedelta(milliseconds=100), "max_backoff": timedelta(seconds=2)}}
    config: Any = {}
    if location.store == "s3":
        _put(config, endpoint=options.endpoint, region=options.region, skip_signature=options.anonymous or None,
             access_key_id=_reveal(options.access_key), secret_access_key=_reveal(options.secret_key),
             session_token=_reveal(options.session_token),
             virtual_hosted_style_request=None if options.path_style is None else not options.path_style)
        if options.s3_compatible == "oss" and options.path_style is None:
            config["virtual_hosted_style_request"] = True  # OSS answers only virtual-hosted requests
        return S3Store(location.bucket, config=config, client_options=client, retry_config=retry)
    if location.store == "azure":
        _put(config, account_name=_azure_account(location, options), account_key=_reveal(options.account_key),
             sas_key=_reveal(options.sas_token), client_id=options.client_id,
             client_secret=_reveal(options.client_secret), tenant_id=options.tenant_id,
             authority_host=options.authority_host, endpoint=options.endpoint)
        return AzureStore(location.bucket, config=config, client_options=client, retry_config=retry)
    _put(config, base_url=options.endpoint, service_account=options.credentials_file)
    provider: Any = None
    if options.anonymous or options.token is not None:
        token = _reveal(options.token) or ""
        provider = _StaticToken(token)
    return GCSStore(location.bucket, config=config, client_options=client, credential_provider=provider,
                    retry_config=retry)


def _seconds(given: float | None, default: float) -> timedelta:
    return timedelta(seconds=default if given is None else given)


def _azure_account(location: Location, options: StoreOptions) -> str:
    if not options.account:
        raise UsageError(f"{location}: no Azure account: name it in the URI (abfs://CONTAINER@ACCOUNT.dfs.core."
                         "windows.net/...), as azure.account-name, or in AZURE_STORAGE_ACCOUNT_NAME")
    return options.account


class _StaticToken:
    """A GCS credential provider with a fixed token (``gcs.token``; empty for an anonymous emulator)."""

    def __init__(self, token: str):
        self._token = token

    def __call__(self) -> dict:
        return {"token": self._token, "expires_at": None}

    def __repr__(self) -> str:
        return "_StaticToken('***')"


def arrow_filesystem(location: Location, options: StoreOptions | None = None) -> Any:
    """pyarrow's filesystem for ``location`` with ``options`` (paths on it are ``bucket/key``): S3 with the
    endpoint given explicitly (``S3FileSystem()`` alone ignores ``AWS_ENDPOINT_URL``, apache/arrow#49643), GCS,
    Azure, HDFS (where libhdfs is installed; untested here) or the local file system."""
    from pyarrow import fs

    if location.store == "local":
        return fs.LocalFileSystem()
    if location.store == "hdfs":
        host, _, port = (location.host or "default").partition(":")
        return fs.HadoopFileSystem(host, int(port or 0))
    if options is None:
        options = store_options(location)
    endpoint = urllib.parse.urlsplit(options.endpoint) if options.endpoint else None
    if location.store == "s3":
        arguments: dict[str, Any] = {}
        _put(arguments, access_key=_reveal(options.access_key), secret_key=_reveal(options.secret_key),
             session_token=_reveal(options.session_token), region=options.region, anonymous=options.anonymous or None,
             endpoint_override=endpoint.netloc if endpoint else None, scheme=endpoint.scheme if endpoint else None,
             force_virtual_addressing=True if options.s3_compatible == "oss" or options.path_style is False else None)
        return fs.S3FileSystem(**arguments)
    if location.store == "gcs":
        if options.credentials_file:
            raise UsageError("pyarrow's GcsFileSystem takes no key file: set GOOGLE_APPLICATION_CREDENTIALS instead "
                             "of the gcs credential path")
        arguments = {}
        _put(arguments, anonymous=options.anonymous or None, access_token=_reveal(options.token),
             endpoint_override=endpoint.netloc if endpoint else None, scheme=endpoint.scheme if endpoint else None,
             project_id=options.project)
        return fs.GcsFileSystem(**arguments)
    arguments = {"account_name": _azure_account(location, options)}
    _put(arguments, account_key=_reveal(options.account_key), sas_token=_reveal(options.sas_token),
         client_id=options.client_id, client_secret=_reveal(options.client_secret), tenant_id=options.tenant_id,
         blob_storage_authority=endpoint.netloc if endpoint else None,
         blob_storage_scheme=endpoint.scheme if endpoint else None,
         # the same endpoint for the DFS API pyarrow probes first (Azurite answers it as Blob)
         dfs_storage_authority=endpoint.netloc if endpoint else None,
         dfs_storage_scheme=endpoint.scheme if endpoint else None)
    return fs.AzureFileSystem(**arguments)


def arrow_path(location: Location) -> str:
    """``location`` as a path on its :func:`arrow_filesystem` (``bucket/key``)."""
    if location.store in ("local", "hdfs"):
        return location.key if location.store == "local" else "/" + location.key
    return f"{location.bucket}/{location.key}" if location.key else location.bucket


def _put(target: dict, **values: Any) -> None:
    target.update({name: value for name, value in values.items() if value is not None})


def _reveal(secret: Any) -> str | None:
    return None if secret is None else secret.reveal()


class _GcsUploads:
    """Uploads through GCS's JSON API (multipart, ``ifGenerationMatch=0`` for create-if-absent): the request
    GCS and its emulators honour the precondition on (fake-gcs-server has no XML-API PUT). Credentials: none
    for an anonymous emulator, ``gcs.token``, or Google's application default credentials (google-auth)."""

    def __init__(self, bucket: str, options: StoreOptions):
        self._bucket, self._options = bucket, options
        self._base = options.endpoint or "https://storage.googleapis.com"

    def upload(self, key: str, data: bytes, *, only_if_absent: bool) -> bool:
        query = {"uploadType": "multipart", **({"ifGenerationMatch": "0"} if only_if_absent else {})}
        url = (f"{self._base}/upload/storage/v1/b/{urllib.parse.quote(self._bucket, safe='')}/o?"
               f"{urllib.parse.urlencode(query)}")
        boundary = uuid.uuid4().hex
        body = b"".join([
            f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".encode(),
            json.dumps({"name": key}).encode(), b"\r\n",
            f"--{boundary}\r\nContent-Type: application/octet-stream\r\n\r\n".encode(), data, b"\r\n",
            f"--{boundary}--\r\n".encode()])
        headers = {"Content-Type": f"multipart/related; boundary={boundary}"}
        token = self._token()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                answer.read()
        except urllib.error.HTTPError as err:
            if err.code == 412 and only_if_absent:
                raise _Exists() from None
            raise StoreError(f"upload of {key}: {err.code} {err.reason}: {err.read()[:300]!r}") from None
        return True

    def _token(self) -> str | None:
        if self._options.anonymous:
            return None
        if self._options.token is not None:
            return self._options.token.reveal()
        try:
            import google.auth
            import google.auth.transport.requests
        except ImportError:
            raise UsageError("writing to GCS needs credentials: give gcs.token, or install google-auth for "
                             "application default credentials") from None
        credentials, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/devstorage.read_write"])
        credentials.refresh(google.auth.transport.requests.Request())
        return credentials.token


# the interface's methods, by duck typing (the classes keep their own small hierarchy): isinstance holds
FileIO.register(ObjectStoreFileIO)
InputFile.register(ObjectInputFile)
