"""The per-data-file index container (Paimon ``FileIndexFormat``, spec §3).

Reading parses only the HEAD (with the Kaitai-generated reader) and hands out index bodies
as zero-copy ``memoryview`` slices of the buffer or memory-mapped file. Writing lays out the
HEAD and BODY with the Construct schema, in the column order Java's ``HashMap`` produces.
"""
from __future__ import annotations

import io
import mmap
import os
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO, Iterable, Iterator, Mapping, NamedTuple

import kaitaistruct

from fileindex import errors
from fileindex.codec import kaitai as kaitai_bridge
from fileindex.generated.fast import file_index_format as fast
from fileindex.generated.file_index_format import FileIndexFormat
from fileindex.java import utf as java_utf

MAGIC = bytes.fromhex("00054e4ed01a35ae")
VERSION = 1  # the released layout, and the default for writing
VERSION_2 = 2  # EXPERIMENTAL: proposed in Paimon PR #10101, not merged (spec §3.4)
VERSIONS = (VERSION, VERSION_2)
TAIL_MAGIC = b"PAFIDX02"
V2_PREAMBLE = 12  # magic and version; the payloads follow
V2_TRAILER = 12  # footer length and tail magic
EMPTY_INDEX_FLAG = -1
ROOT = "file_index_format"

_VALIDATIONS = {
    "/seq/0": errors.BadMagicError,
    "/seq/1": errors.UnsupportedVersionError,
    "/seq/2": errors.InvalidLengthError,
    "/types/column_table/seq/0": errors.InvalidLengthError,
    "/types/column/seq/2": errors.InvalidLengthError,
    "/types/trailer/seq/0": errors.InvalidLengthError,
    "/types/trailer/seq/1": errors.BadMagicError,
    "/types/footer/seq/0": errors.InvalidLengthError,
    "/types/column_v2/seq/2": errors.InvalidLengthError,
}


class IndexEntry(NamedTuple):
    """One (column, index type) entry of the HEAD or footer. ``start`` is absolute; -1 marks an empty index.

    Entry and column records are named tuples: a 12-column HEAD makes 24 of them on every open,
    and a tuple is built in half the time of a frozen dataclass. The entry's spec path is formatted
    only when a message needs it."""

    column: str
    index_type: str
    start: int
    length: int
    entry_offset: int = 0  # absolute offset of the entry in the HEAD or footer
    table: str = ""  # spec path of the column table holding the entry, for messages
    column_index: int = 0  # the column record's position in the table
    position: int = 0  # the entry's position in its column record

    @property
    def field(self) -> str:
        """The entry's spec path, for messages."""
        return _entry_field(self.table, self.column_index, self.position)

    @property
    def is_empty(self) -> bool:
        return self.start == EMPTY_INDEX_FLAG


class ColumnRecord(NamedTuple):
    """One column record of the HEAD or footer, as written (a malformed file may repeat a name)."""

    name: str
    indexes: tuple[IndexEntry, ...]
    offset: int  # absolute offset of the record


@dataclass(frozen=True)
class ContainerHead:
    """The entry table of either layout: version 1's HEAD, or version 2's footer."""

    version: int
    head_length: int | None  # version 1: where the BODY starts
    column_records: tuple[ColumnRecord, ...]  # in file order
    redundant_length: int | None  # version 1
    redundant_bytes: int  # version 1: bytes after the column table inside the HEAD (ignored, as Java does)
    footer_start: int | None = None  # version 2: absolute offset of the footer, where the payloads end
    footer_length: int | None = None  # version 2
    footer_trailing: int = 0  # version 2: bytes after the footer's entry table (malformed)

    @property
    def entries(self) -> tuple[IndexEntry, ...]:
        """Every index entry in file order."""
        return tuple(entry for record in self.column_records for entry in record.indexes)

    @property
    def columns(self) -> list[str]:
        """Column names in file order, each once."""
        return list(dict.fromkeys(record.name for record in self.column_records))

    @property
    def body_start(self) -> int:
        """Where payloads may start: after the HEAD (version 1) or the preamble (version 2)."""
        return self.head_length if self.version == VERSION else V2_PREAMBLE

    def body_end(self, size: int) -> int:
        """Where payloads must end: the end of the input (version 1) or the footer (version 2)."""
        return size if self.version == VERSION else self.footer_start


def parse_head(data) -> ContainerHead:
    """Decode the entry table of a container held in ``data`` (bytes-like or a seekable binary file):
    version 1's HEAD, or version 2's trailer and footer (read from the end; nothing else is read).

    The reader compiled without position recording does the work; the debug reader runs only to
    place an error. Positions follow from the spec's field widths as the table is walked."""
    parsed = kaitai_bridge.parse_fast(fast.FileIndexFormat, FileIndexFormat, data, root=ROOT,
                                      validations=_VALIDATIONS)
    if parsed.version == VERSION_2:
        return _parse_footer(parsed, data)
    table = parsed.head
    records = _column_records(table.columns, V1_COLUMNS_AT, f"{ROOT}/head", V1_POSITION_BYTES)
    return ContainerHead(
        version=parsed.version,
        head_length=parsed.len_head,
        column_records=records,
        redundant_length=table.len_redundant,
        redundant_bytes=len(table.redundant),
    )


def check_v2_size(size: int) -> None:
    """A version-2 container holds at least its preamble, a column count and its trailer."""
    if size < V2_PREAMBLE + 4 + V2_TRAILER:
        raise errors.TruncatedError(f"a version-2 container has at least {V2_PREAMBLE + 4 + V2_TRAILER} bytes "
                                    f"(preamble, column count, trailer), this input {size}",
                                    offset=size, field=f"{ROOT}/trailer")


def _parse_footer(parsed, data) -> ContainerHead:
    size = parsed._io.size()
    check_v2_size(size)
    try:
        footer_length = parsed.trailer.len_footer
        footer = parsed.footer
    except kaitaistruct.KaitaiStructError as err:
        raise kaitai_bridge.place_instance_failure(err, FileIndexFormat, data, ("trailer", "footer"), root=ROOT,
                                                   validations=_VALIDATIONS, offset=size) from None
    footer_start = size - V2_TRAILER - footer_length
    return ContainerHead(
        version=VERSION_2,
        head_length=None,
        column_records=_column_records(footer.columns, footer_start + 4, f"{ROOT}/footer", V2_POSITION_BYTES),
        redundant_length=None,
        redundant_bytes=0,
        footer_start=footer_start,
        footer_length=footer_length,
        footer_trailing=len(footer.trailing),
    )


V1_COLUMNS_AT = 20  # magic, version, head length, column count
V1_POSITION_BYTES = 8  # start and length: s4 each
V2_POSITION_BYTES = 16  # s8 each


def _column_records(columns, at: int, path: str, position_bytes: int) -> tuple[ColumnRecord, ...]:
    """Column records with absolute offsets, walking the table from ``at`` by the spec's widths
    (a name or type: u2 length and its bytes; a column: its name and an s4 count).

    Runs on every open: records are made with ``tuple.__new__`` (a named tuple's own constructor
    is a Python function), and each distinct name is decoded once (a HEAD repeats its index types)."""
    records = []
    decoded: dict[bytes, str] = {}
    for c, column in enumerate(columns):
        offset = at
        raw_name = column.name
        name = decoded.get(raw_name) or _decoded(decoded, raw_name, at + 2, f"{path}/columns[{c}]/name")
        at += 6 + len(raw_name)
        entries = []
        for i, index in enumerate(column.indexes):
            raw_type = index.index_type
            index_type = decoded.get(raw_type) or _decoded(decoded, raw_type, at + 2,
                                                           f"{_entry_field(path, c, i)}/index_type")
            entries.append(_new(IndexEntry, (name, index_type, index.ofs_body, index.len_body, at, path, c, i)))
            at += 2 + len(raw_type) + position_bytes
        records.append(_new(ColumnRecord, (name, tuple(entries), offset)))
    return tuple(records)


_new = tuple.__new__


def _decoded(decoded: dict[bytes, str], raw: bytes, offset: int, field: str) -> str:
    text = decoded[raw] = java_utf.decode(raw, offset=offset, field=field)
    return text


def _entry_field(table: str, column_index: int, position: int) -> str:
    return f"{table}/columns[{column_index}]/indexes[{position}]"


class FileIndexContainer:
    """An opened container: its HEAD, and zero-copy access to each index body.

    Lookups follow Java's reader: by exact column name, then index type; when the HEAD lists a
    (column, type) pair twice the later entry wins, as in Java's ``HashMap``.
    """

    def __init__(self, buffer, head: ContainerHead, *, source: str = "<bytes>"):
        self._buffer = memoryview(buffer).cast("B") if not isinstance(buffer, memoryview) else buffer.cast("B")
        self.head = head
        self.source = source
        self._mapped: mmap.mmap | None = None
        self._lookup: dict[str, dict[str, IndexEntry]] = {}
        for entry in head.entries:
            self._lookup.setdefault(entry.column, {})[entry.index_type] = entry

    @classmethod
    def from_bytes(cls, data, *, source: str = "<bytes>") -> "FileIndexContainer":
        view = memoryview(data).cast("B")
        return cls(view, parse_head(view), source=source)

    @classmethod
    def open(cls, path: str | os.PathLike | BinaryIO) -> "FileIndexContainer":
        """Open a container file: a path (``-`` is standard input) or a binary file object.

        A regular file is memory-mapped (read-only): the HEAD is parsed, bodies are read on demand.
        A pipe or other stream is read whole. Use ``with`` or :meth:`close` to release the map.
        """
        with _opened(path) as (file, source):
            buffer, mapped = _map(file)
        try:
            container = cls.from_bytes(buffer, source=source)
        except BaseException:
            _close_map(mapped)
            raise
        container._mapped = mapped
        return container

    def close(self) -> None:
        """Release the memory map. Body views handed out before must not be used afterwards."""
        self._buffer.release()
        mapped, self._mapped = self._mapped, None
        _close_map(mapped)

    def __enter__(self) -> "FileIndexContainer":
        return self

    def __exit__(self, *exc) -> None:
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


def check_body_bounds(entry: IndexEntry, head: ContainerHead, size: int) -> None:
    lower, upper = head.body_start, head.body_end(size)
    region = "BODY" if head.version == VERSION else "payloads before the footer"
    if entry.length < 0:
        raise errors.InvalidLengthError(
            f"negative body length {entry.length}", offset=entry.entry_offset, field=f"{entry.field}/len_body"
        )
    if entry.start < lower or entry.start > upper:
        raise errors.InvalidOffsetError(
            f"body start {entry.start} is outside the {region} [{lower}, {upper}]",
            offset=entry.entry_offset, field=f"{entry.field}/ofs_body",
        )
    if entry.start + entry.length > upper:
        end = f"end of the {size}-byte container" if head.version == VERSION else f"footer at {upper}"
        raise errors.InvalidLengthError(
            f"body [{entry.start}, {entry.start + entry.length}) runs past the {end}",
            offset=entry.entry_offset, field=f"{entry.field}/len_body",
        )


def validate_layout(head: ContainerHead, size: int) -> None:
    if head.version == VERSION and head.head_length > size:
        raise errors.TruncatedError(
            f"head length {head.head_length} exceeds the {size}-byte input", offset=8, field=f"{ROOT}/len_head"
        )
    if head.footer_trailing:
        at = head.footer_start + head.footer_length - head.footer_trailing
        raise errors.InvalidLengthError(
            f"{head.footer_trailing} byte(s) after the footer's entry table (the footer length says "
            f"{head.footer_length})", offset=at, field=f"{ROOT}/footer/trailing")
    bodies = []
    for entry in head.entries:
        if entry.is_empty:
            if entry.length != 0:
                raise errors.InvalidLengthError(
                    f"empty index entry (start -1) with length {entry.length}",
                    offset=entry.entry_offset, field=f"{entry.field}/len_body",
                )
            continue
        check_body_bounds(entry, head, size)
        bodies.append(entry)
    bodies.sort(key=lambda e: (e.start, e.length))
    for before, after in zip(bodies, bodies[1:]):
        if after.start < before.start + before.length:
            raise errors.InvalidOffsetError(
                f"body of {after.column!r}/{after.index_type} at {after.start} overlaps the body of "
                f"{before.column!r}/{before.index_type} [{before.start}, {before.start + before.length})",
                offset=after.entry_offset, field=f"{after.field}/ofs_body",
            )


# ----------------------------------------------------------------------------------------------
@contextmanager
def _opened(path: str | os.PathLike | BinaryIO) -> Iterator[tuple[BinaryIO, str]]:
    if hasattr(path, "read"):
        yield path, str(getattr(path, "name", "<stream>"))
    elif os.fspath(path) == "-":
        yield sys.stdin.buffer, "<stdin>"
    else:
        with open(path, "rb") as file:
            yield file, os.fspath(path)


def _map(file: BinaryIO) -> tuple[bytes | mmap.mmap, mmap.mmap | None]:
    """A regular file memory-mapped (and the map, to close), anything else read whole."""
    try:
        regular = stat.S_ISREG(os.fstat(file.fileno()).st_mode)
    except (AttributeError, OSError, io.UnsupportedOperation):
        regular = False
    if not regular:
        return file.read(), None
    if os.fstat(file.fileno()).st_size == 0:
        return b"", None
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


# Writing

Payloads = Mapping[str, Mapping[str, "bytes | None"]]
Entry = tuple[str, str, "bytes | None"]  # (column, index type, payload or None for an empty index)


def write_container(payloads: Payloads, *, order: str = "java", insertion: str = "compute_if_absent",
                    version: int = VERSION) -> bytes:
    """Serialize a container from column → index type → payload (``None`` = empty index).

    ``order="java"`` lays columns and index types out as Java's ``DataFileIndexWriter`` does,
    treating the mapping's iteration order as the order in which the writer met them;
    ``order="given"`` keeps the mapping's own order (to rewrite a decoded container as it was).
    ``insertion`` says how the column map was filled (see :func:`fileindex.container.column_order.column_order`).
    ``version=2`` writes the experimental footer layout of Paimon PR #10101.
    """
    from fileindex.container.column_order import column_order, index_type_order

    if order not in ("java", "given"):
        raise errors.UsageError(f"order must be 'java' or 'given', not {order!r}")
    columns = column_order(payloads, insertion=insertion) if order == "java" else list(payloads)
    entries = []
    for column in columns:
        types = payloads[column]
        for index_type in (index_type_order(types) if order == "java" else list(types)):
            entries.append((column, index_type, types[index_type]))
    return write_entries(entries, version=version)


def write_entries(entries: Iterable[Entry], *, version: int = VERSION) -> bytes:
    """Serialize (column, index type, payload) triples exactly in the given file order."""
    out = io.BytesIO()
    stream_container(out, entries, version=version)
    return out.getvalue()


def reframe(data, version: int) -> bytes:
    """The same payloads, in the same order, in the other container layout (spec §3.4)."""
    container = data if isinstance(data, FileIndexContainer) else FileIndexContainer.from_bytes(data)
    return write_entries(((e.column, e.index_type, container.body(e)) for e in container), version=version)


def stream_container(out: BinaryIO, entries: Iterable[Entry], *, version: int = VERSION) -> int:
    """Write a container to ``out`` and return its size.

    Version 2 writes each payload as it arrives, so memory stays bounded by the largest payload
    (pass a generator); version 1 needs every payload's length before its HEAD and holds them.
    """
    if version not in VERSIONS:
        raise errors.UsageError(f"container version must be 1 or 2 ({FORMAT_VERSION_OPTION}), not {version!r}")
    if version == VERSION:
        data = _serialize_v1(_grouped(entries))
        out.write(data)
        return len(data)
    from fileindex.specs import file_index_format as schema

    position = out.write(schema.preamble_v2.build({}))
    records: list[tuple[str, list]] = []
    for column, index_type, payload in entries:
        if payload is None:
            entry = {"index_type": _utf(index_type), "ofs_body": EMPTY_INDEX_FLAG, "len_body": 0}
        else:
            entry = {"index_type": _utf(index_type), "ofs_body": position, "len_body": len(payload)}
            position += out.write(payload)
        if records and records[-1][0] == column:
            records[-1][1].append(entry)
        else:
            records.append((column, [entry]))
    footer = schema.footer.build({"columns": [{"name": _utf(c), "indexes": e} for c, e in records],
                                  "trailing": b""})
    position += out.write(footer)
    return position + out.write(schema.trailer.build({"len_footer": len(footer)}))


FORMAT_VERSION_OPTION = "file-index.format.version"


def _utf(text: str) -> bytes:
    return java_utf.encode_with_length(text)[2:]


def _grouped(entries: Iterable[Entry]) -> list[tuple[str, list[tuple[str, "bytes | None"]]]]:
    layout: list[tuple[str, list]] = []
    for column, index_type, payload in entries:
        if layout and layout[-1][0] == column:
            layout[-1][1].append((index_type, payload))
        else:
            layout.append((column, [(index_type, payload)]))
    return layout


def _serialize_v1(layout: list[tuple[str, list[tuple[str, "bytes | None"]]]]) -> bytes:
    encoded = [(_utf(column), [(_utf(t), p) for t, p in indexes]) for column, indexes in layout]
    head_length = 16 + 4 + 4  # magic, version, head_length; column count; redundant length
    for name, indexes in encoded:
        head_length += 2 + len(name) + 4 + sum(2 + len(t) + 8 for t, _ in indexes)
    offset = head_length
    columns = []
    body = []
    for name, indexes in encoded:
        entries = []
        for index_type, payload in indexes:
            if payload is None:
                entries.append({"index_type": index_type, "ofs_body": EMPTY_INDEX_FLAG, "len_body": 0})
                continue
            entries.append({"index_type": index_type, "ofs_body": offset, "len_body": len(payload)})
            body.append(bytes(payload))
            offset += len(payload)
        columns.append({"name": name, "indexes": entries})
    if offset > 0x7FFFFFFF:
        raise errors.EncodeError(f"container of {offset} bytes exceeds the int32 offsets of version 1; "
                                 f"version 2 ({FORMAT_VERSION_OPTION}=2, experimental) has 64-bit positions")
    from fileindex.specs import file_index_format as schema

    head = schema.file_index_format.build({
        "len_head": head_length,
        "head": {"columns": columns, "len_redundant": 0, "redundant": b""},
    })
    assert len(head) == head_length
    return head + b"".join(body)


def parse_with_construct(data):
    """Decode with the Construct schema (the second, independent parser); errors become the project's."""
    import construct

    from fileindex.specs import file_index_format as schema

    version_2 = bytes(data[8:12]) == VERSION_2.to_bytes(4, "big")
    try:
        return (schema.file_index_format_v2 if version_2 else schema.file_index_format).parse(bytes(data))
    except construct.ConstructError as err:
        raise construct_error(err, len(data)) from None


def construct_error(err, size: int) -> errors.DecodeError:
    import construct

    path = (getattr(err, "path", None) or "").replace("(parsing) -> ", "").replace(" -> ", "/")
    field = f"{ROOT}/{path}" if path else ROOT
    message = str(err).split("\n")[-1]
    if isinstance(err, construct.ConstError):
        kind = errors.BadMagicError if "magic" in path else errors.UnsupportedVersionError
    elif isinstance(err, construct.StreamError):
        kind = errors.TruncatedError
    elif isinstance(err, (construct.CheckError, construct.RangeError)):
        kind = errors.InvalidLengthError
    else:
        kind = errors.DecodeError
    # Construct does not report positions; the error is placed at the end of the input.
    return kind(message, offset=size, field=field)
