"""Annotated bytes of a real file: every field's offset, length, spec path and decoded value.

The positions come from the Kaitai-generated readers (compiled in debug mode, they record where
each field starts and ends), not from a second walk of the bytes: this module only visits the
object tree they build. The container is explained down to each index entry; a body is explained
with its own spec when its layout is known (bloom-filter and bsi always; bitmap and range-bitmap
need the column's type, which decides how values are encoded). Bytes no field claims (a gap
between bodies) are listed as unreferenced, so the fields of a file tile it exactly.

On a malformed file the fields read before the failure are listed, then the failing field with
the project's error for it.
"""
from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass
from collections.abc import Callable

from fileindex import errors
from fileindex.decoding import debug_tree
from fileindex.decoding import kaitai as kaitai_bridge
from fileindex.types import DataType, column_type

CONTAINER = "file_index_format"


@dataclass
class Field:
    offset: int  # absolute, from the start of the file
    length: int
    path: str
    value: object = None
    error: str | None = None
    text: str | None = None  # a STRING or BINARY key's bytes as text (the value stays the bytes)

    def as_json(self) -> dict:
        shown = {"offset": self.offset, "length": self.length, "path": self.path, "value": json_value(self.value)}
        if self.text is not None:
            shown["text"] = self.text
        if self.error:
            shown["error"] = self.error
        return shown


@dataclass
class Explanation:
    data: memoryview  # the file's bytes (valid while the caller holds them)
    fields: list[Field] = dataclasses.field(default_factory=list)
    error: errors.DecodeError | None = None
    indexes: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (column, index type) of each entry
    untyped: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # bodies left raw for want of a type

    @property
    def size(self) -> int:
        return len(self.data)


def json_value(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return data.hex() if len(data) <= 32 else f"{data[:32].hex()}… ({len(data)} bytes)"
    if hasattr(value, "name") and hasattr(value, "value"):  # a Kaitai enum
        return value.name
    return value


def explain(data, *, schema: dict[str, DataType] | None = None, column: str | None = None,
            index_type: str | None = None) -> Explanation:
    """Explain a container held in ``data``; bodies of ``column`` / ``index_type`` only, when given."""
    from fileindex.container.head import _VALIDATIONS, check_v2_size, not_a_file_index
    from fileindex.generated.file_index_format import FileIndexFormat

    view = memoryview(data).cast("B")
    result = Explanation(view)
    root, error = kaitai_bridge.parse_partial(FileIndexFormat, view, root=CONTAINER, validations=_VALIDATIONS)
    error = error and not_a_file_index(error, view)
    if error is None and root.version == 2:  # the trailer and footer: read from the end of the file
        try:
            check_v2_size(len(view))
            for name in ("trailer", "footer"):
                kaitai_bridge.read_instance(root, name, path=CONTAINER, validations=_VALIDATIONS, size=len(view))
        except errors.DecodeError as err:
            error = err
    walker = _Walker(result, schema or {}, column, index_type)
    walker.visit(root, 0, CONTAINER, root_base=0)
    if error is None:  # the entries' bounds and overlaps, as `check` validates them
        from fileindex.container.file import FileIndexContainer

        try:
            FileIndexContainer.from_bytes(view).validate_layout()
        except errors.DecodeError as err:
            error = err
    result.fields = _refined(result.fields)
    if error is not None:
        walker.mark(error)
    elif result.error is None:
        walker.fill_gaps()
    result.fields.sort(key=lambda f: (f.offset, f.length > 0))  # stable: discovery order otherwise
    return result


@dataclass
class _Walker:
    result: Explanation
    schema: dict[str, DataType]
    column: str | None
    index_type: str | None

    def visit(self, obj, base: int, path: str, *, root_base: int) -> None:
        """Every value read under ``obj``: an entry's body explained with its own spec, the rest listed."""
        for field in debug_tree.finished_values(obj, base, path, root_base=root_base):
            parent = field.parent
            if field.path.endswith("/body") and isinstance(parent, _entry_types()):
                self.body(parent, field.value, field.start, field.path)
                continue
            value = _decode(field.value) if field.path.endswith(_NAME_FIELDS) and isinstance(parent, _name_holders()) \
                else field.value
            self.result.fields.append(Field(field.start, field.length, field.path, value))

    # -- index bodies ------------------------------------------------------------------------

    def body(self, entry, payload: bytes, start: int, path: str) -> None:
        index_type = _decode(entry.index_type)
        column = _decode(entry._parent.name)  # the column record holding this entry
        self.result.indexes.append((column, index_type))
        reader = self._body_spec(index_type, column)
        wanted = (self.column in (None, column)) and (self.index_type in (None, index_type))
        if reader is None or not wanted:
            if wanted and payload and column_type(self.schema, column) is None:
                self.result.untyped.append((column, index_type))
            self.result.fields.append(Field(start, len(payload), path, payload))
            return
        spec, root = reader
        obj, error = kaitai_bridge.parse_partial(spec, memoryview(payload), root=root, validations={}, base=start)
        first = len(self.result.fields)
        self.visit(obj, start, f"{path}:{root}", root_base=start)
        data_type = column_type(self.schema, column)
        if data_type is not None and (data_type.is_string or data_type.is_binary):
            for f in self.result.fields[first:]:
                if f.path.endswith("/value/value") and isinstance(f.value, (bytes, bytearray)):
                    f.text = bytes(f.value).decode("utf-8", "backslashreplace")
        if error is None:
            self.fill_gaps(start, start + len(payload), f"{path}:{root}")
        else:
            self.mark(error)

    def _body_spec(self, index_type: str, column: str) -> tuple[Callable, str] | None:
        from fileindex.indexes.registry import INDEX_TYPES

        index = INDEX_TYPES.get(index_type)
        if index is None or index.kaitai_spec is None:
            return None
        return index.kaitai_spec(column_type(self.schema, column) if column else None)

    # -- coverage ----------------------------------------------------------------------------

    def fill_gaps(self, start: int = 0, end: int | None = None, path: str = CONTAINER) -> None:
        """Bytes in [start, end) that no field claims become unreferenced fields."""
        end = self.result.size if end is None else end
        claimed = sorted((f.offset, f.offset + f.length) for f in self.result.fields
                         if start <= f.offset < end and f.length > 0)
        position = start
        for low, high in claimed:
            if low > position:
                self.result.fields.append(Field(position, low - position, f"{path}/(unreferenced)",
                                                bytes(self.result.data[position:low])))
            position = max(position, high)
        if position < end:
            self.result.fields.append(Field(position, end - position, f"{path}/(unreferenced)",
                                            bytes(self.result.data[position:end])))

    def mark(self, error: errors.DecodeError) -> None:
        if self.result.error is None:
            self.result.error = error
        self.result.fields.append(Field(error.offset, 0, error.field, None, error.message))


def _refined(fields: list[Field]) -> list[Field]:
    """A raw byte field that finer fields explain (a bitmap BODY and the bitmaps read from it by
    instances) keeps only the bytes they leave unexplained, so every byte is listed once."""
    ordered = sorted(fields, key=lambda f: (f.offset, -f.length))
    starts = [f.offset for f in ordered]
    refined = []
    for field in ordered:
        value = field.value
        if not isinstance(value, (bytes, bytearray)) or field.length <= 0:  # not a raw byte field
            refined.append(field)
            continue
        end = field.offset + field.length
        inner = [f for f in ordered[bisect.bisect_left(starts, field.offset):bisect.bisect_left(starts, end)]
                 if f is not field and f.length > 0 and f.offset + f.length <= end]
        if not inner:
            refined.append(field)
            continue
        position = field.offset
        for f in inner:
            if f.offset > position:
                refined.append(Field(position, f.offset - position, field.path,
                                     bytes(value[position - field.offset:f.offset - field.offset])))
            position = max(position, f.offset + f.length)
        if position < end:
            refined.append(Field(position, end - position, field.path, bytes(value[position - field.offset:])))
    return refined


def _entry_types() -> tuple[type, ...]:
    from fileindex.generated.file_index_format import FileIndexFormat

    return FileIndexFormat.IndexEntry, FileIndexFormat.IndexEntryV2


_NAME_FIELDS = ("/name", "/index_type")  # the container's writeUTF strings, shown decoded


def _name_holders() -> tuple[type, ...]:
    from fileindex.generated.file_index_format import FileIndexFormat

    return FileIndexFormat.Column, FileIndexFormat.ColumnV2, *_entry_types()


def _decode(raw) -> str:
    from fileindex.java.utf import decode

    try:
        return decode(bytes(raw))
    except errors.DecodeError:
        return bytes(raw).decode("utf-8", "replace")


# -- rendering --------------------------------------------------------------------------------------

def render(explanation: Explanation, *, colour: bool = False) -> str:
    paint = (lambda code, text: f"\033[{code}m{text}\033[0m") if colour else (lambda code, text: text)
    lines = []
    for f in explanation.fields:
        value = json_value(f.value)
        shown = f"{value!r}" if isinstance(value, str) and f.path.endswith("/value") else f"{value}"
        if f.text is not None:
            shown = f"{f.text!r} (hex {value or '-'})"
        if f.error:
            lines.append(f"{f.offset:>10}  {'':<23}  {paint('1;31', f.path)}  ERROR: {paint('31', f.error)}")
            continue
        raw = explanation.data[f.offset:f.offset + min(f.length, 8)].hex(" ") + (" …" if f.length > 8 else "")
        lines.append(f"{f.offset:>10}  {raw:<23}  {paint('36', f.path)} = {shown}")
    return "\n".join(lines)
