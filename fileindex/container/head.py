"""The entry table of the per-data-file index container (Paimon ``FileIndexFormat``, spec §3):
version 1's HEAD or version 2's footer, decoded with the Kaitai-generated reader, and the bounds
every entry's body must keep within the file.
"""
# (no ``from __future__ import annotations`` here: typing.NamedTuple compiles a string annotation of each field into a
# ForwardRef, about 0.5 M instructions a field, 19 of them on every cold read's import, #54)
import struct
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, cast

from fileindex import errors, kernels
from fileindex.java import utf as java_utf
from fileindex.lazy import LazyFunction

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

MAGIC = bytes.fromhex("00054e4ed01a35ae")
VERSION = 1  # the released layout, and the default for writing
VERSION_2 = 2  # EXPERIMENTAL: proposed in Paimon PR #10101, not merged (spec §3.4)
VERSIONS = (VERSION, VERSION_2)
V2_PREAMBLE = 12  # magic and version; the payloads follow
V2_TRAILER = 12  # footer length and tail magic
EMPTY_INDEX_FLAG = -1
ROOT = "file_index_format"
_DEBUG_READER = LazyFunction("fileindex.generated.file_index_format", "FileIndexFormat")  # places a failure

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


class ContainerHead(NamedTuple):
    """The entry table of either layout: version 1's HEAD, or version 2's footer (a named tuple: made on
    every open, in a third of a frozen dataclass's time)."""

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
        return self.v1_head_length if self.version == VERSION else V2_PREAMBLE

    def body_end(self, size: int) -> int:
        """Where payloads must end: the end of the input (version 1) or the footer (version 2)."""
        return size if self.version == VERSION else self.v2_footer[0]

    @property
    def v1_head_length(self) -> int:
        """The HEAD length of a version-1 head (the reader sets it for every one)."""
        assert self.head_length is not None, "a version-1 head without its length"
        return self.head_length

    @property
    def v2_footer(self) -> tuple[int, int]:
        """(start, length) of a version-2 head's footer (the reader sets both for every one)."""
        assert self.footer_start is not None and self.footer_length is not None, "a version-2 head without its footer"
        return self.footer_start, self.footer_length


def parse_head(data: "Buffer | BinaryIO") -> ContainerHead:
    """Decode the entry table of a container held in ``data`` (bytes-like or a seekable binary file, read from
    its start wherever it stands): version 1's HEAD, or version 2's trailer and footer (read from the end;
    nothing else is read). Error offsets are the file's.

    The reader compiled without position recording does the work; the debug reader runs only to
    place an error. Positions follow from the spec's field widths as the table is walked. With the
    compiled kernels, a table that reads is walked in C (:func:`_compiled_head`), and anything else
    goes through the generated readers, which raise the placed error."""
    compiled = kernels.compiled
    walked = None if compiled is None or hasattr(data, "read") else _compiled_head(compiled, data)
    if walked is not None:
        return walked
    from fileindex.decoding import kaitai as kaitai_bridge  # (and Kaitai's runtime) where the kernel does not read
    from fileindex.generated.fast import file_index_format as fast

    try:
        parsed = kaitai_bridge.parse_fast(fast.FileIndexFormat, _DEBUG_READER, data, root=ROOT,
                                          validations=_VALIDATIONS)
    except errors.DecodeError as err:
        raise not_a_file_index(err, data) from None
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


_DATA_FILE_MAGICS = {b"PAR1": "a Parquet data file", b"ORC": "an ORC data file"}


def not_a_file_index(err: errors.DecodeError, data: "Buffer | BinaryIO") -> errors.DecodeError:
    """For input that does not start as a container does (neither the magic nor, if shorter, a part of it): an
    error saying so in words, with the bytes found beside the magic expected; any other error as it is."""
    if err.offset != 0 or err.field != f"{ROOT}/magic":
        return err
    if hasattr(data, "read"):
        stream = cast("BinaryIO", data)
        stream.seek(0)
        first = stream.read(len(MAGIC))
    else:
        first = bytes(memoryview(data).cast("B")[: len(MAGIC)])
    if first and MAGIC.startswith(first):
        return err  # a container cut short
    if not first:
        return errors.TruncatedError("an empty file, not a Paimon file-index file", offset=0, field=err.field)
    kind = next((f": {kind}'s magic, not its index's" for magic, kind in _DATA_FILE_MAGICS.items()
                 if first.startswith(magic)), "")
    return errors.BadMagicError(f"not a Paimon file-index file: it starts with {first.hex(' ')} ({repr(first)[1:]}), "
                                f"not the file-index magic {MAGIC.hex(' ')}{kind}", offset=0, field=err.field)


_FIXED = struct.Struct(">8sii")  # magic, version, and version 1's head length
_TRAILER = struct.Struct(">i8s")  # version 2: footer length, tail magic
_TAIL_MAGIC = b"PAFIDX02"  # the spec's trailer/tail_magic, checked before the kernel walks a footer


def _compiled_head(compiled: kernels.Kernels, data: "Buffer") -> ContainerHead | None:
    """The head as :func:`parse_head` makes it, the column table walked by the compiled kernel; None
    wherever the generated reader could fail (it then runs, and places the error). The fixed fields are
    checked as the spec checks them: the magic, a known version, a head length of at least 16 within
    the input (version 1), a footer length of at least 4 that fits before the trailer and the tail
    magic (version 2)."""
    view = memoryview(data).cast("B") if not isinstance(data, memoryview) else data
    size = len(view)
    if size < _FIXED.size:
        return None
    magic, version, head_length = _FIXED.unpack_from(view)
    if magic != MAGIC:
        return None
    if len(_NAMES) > _MAX_NAMES:
        _NAMES.clear()
    if version == VERSION:
        if not 16 <= head_length <= size:
            return None
        walked = compiled.column_table(view, V1_COLUMNS_AT - 4, head_length, 4, V1_POSITION_BYTES, _NAMES,
                                       _decoded_in, IndexEntry, ColumnRecord, V1_TABLE)  # then len_redundant: 4 bytes
        if walked is None:
            return None
        records, end = walked
        return _new(ContainerHead, (VERSION, head_length, records, _INT.unpack_from(view, end)[0],
                                    head_length - end - 4, None, None, 0))
    if version != VERSION_2 or size < V2_PREAMBLE + 4 + V2_TRAILER:
        return None
    footer_length, tail = _TRAILER.unpack_from(view, size - V2_TRAILER)
    if tail != _TAIL_MAGIC or not 4 <= footer_length <= size - 24:
        return None
    footer_start = size - V2_TRAILER - footer_length
    walked = compiled.column_table(view, footer_start, footer_start + footer_length, 0, V2_POSITION_BYTES, _NAMES,
                                   _decoded_in, IndexEntry, ColumnRecord, V2_TABLE)
    if walked is None:
        return None
    records, end = walked
    return ContainerHead(version=VERSION_2, head_length=None, column_records=records, redundant_length=None,
                         redundant_bytes=0, footer_start=footer_start, footer_length=footer_length,
                         footer_trailing=footer_start + footer_length - end)


_INT = struct.Struct(">i")
V1_TABLE, V2_TABLE = f"{ROOT}/head", f"{ROOT}/footer"  # spec paths of the column tables, for messages


def _decoded_in(raw: bytes, offset: int, path: str, column: int, position: int) -> str:
    """A name the memo lacks, for the compiled walk (position -1: the column's name)."""
    field = f"{path}/columns[{column}]/name" if position < 0 else f"{_entry_field(path, column, position)}/index_type"
    return _decoded(_NAMES, raw, offset, field)


def check_v2_size(size: int) -> None:
    """A version-2 container holds at least its preamble, a column count and its trailer."""
    if size < V2_PREAMBLE + 4 + V2_TRAILER:
        raise errors.TruncatedError(f"a version-2 container has at least {V2_PREAMBLE + 4 + V2_TRAILER} bytes "
                                    f"(preamble, column count, trailer), this input {size}",
                                    offset=size, field=f"{ROOT}/trailer")


def _parse_footer(parsed: Any, data: "Buffer | BinaryIO") -> ContainerHead:
    size = parsed._io.size()
    check_v2_size(size)
    from fileindex.decoding import kaitai as kaitai_bridge

    with kaitai_bridge.placing_instance_failures(_DEBUG_READER, data, ("trailer", "footer"), root=ROOT,
                                                 validations=_VALIDATIONS, offset=size):
        footer_length = parsed.trailer.len_footer
        footer = parsed.footer
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


def _column_records(columns: Any, at: int, path: str, position_bytes: int) -> tuple[ColumnRecord, ...]:
    """Column records with absolute offsets, walking the table from ``at`` by the spec's widths
    (a name or type: u2 length and its bytes; a column: its name and an s4 count).

    Runs on every open: records are made with ``tuple.__new__`` (a named tuple's own constructor
    is a Python function), and each distinct name is decoded once per process (a HEAD repeats its
    index types, and a table's every HEAD its column names)."""
    records = []
    if len(_NAMES) > _MAX_NAMES:  # names of many tables in one process: start over
        _NAMES.clear()
    decoded = _NAMES
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
_NAMES: dict[bytes, str] = {}  # raw name → decoded (a pure function's results; failures are not kept)
_MAX_NAMES = 4096


def _decoded(decoded: dict[bytes, str], raw: bytes, offset: int, field: str) -> str:
    text = decoded[raw] = java_utf.decode(raw, offset=offset, field=field)
    return text


def _entry_field(table: str, column_index: int, position: int) -> str:
    return f"{table}/columns[{column_index}]/indexes[{position}]"


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
    if head.version == VERSION and head.v1_head_length > size:
        raise errors.TruncatedError(
            f"head length {head.head_length} exceeds the {size}-byte input", offset=8, field=f"{ROOT}/len_head"
        )
    if head.footer_trailing:
        footer_start, footer_length = head.v2_footer
        at = footer_start + footer_length - head.footer_trailing
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
    for before, after in zip(bodies, bodies[1:], strict=False):
        if after.start < before.start + before.length:
            raise errors.InvalidOffsetError(
                f"body of {after.column!r}/{after.index_type} at {after.start} overlaps the body of "
                f"{before.column!r}/{before.index_type} [{before.start}, {before.start + before.length})",
                offset=after.entry_offset, field=f"{after.field}/ofs_body",
            )
