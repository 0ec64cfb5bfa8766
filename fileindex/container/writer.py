"""Writing a container: the HEAD and BODY (version 1) or the payloads and footer (version 2) laid
out with the Construct schema, in the column order Java's ``HashMap`` produces.
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, BinaryIO

from fileindex import errors
from fileindex.container.column_order import column_order, index_type_order
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import EMPTY_INDEX_FLAG, VERSION, VERSIONS
from fileindex.java import utf as java_utf

if TYPE_CHECKING:
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12

Payloads = Mapping[str, Mapping[str, "bytes | None"]]
Entry = tuple[str, str, "bytes | memoryview | None"]  # (column, index type, payload or None for an empty index)


def write_container(payloads: Payloads, *, order: str = "java", insertion: str = "compute_if_absent",
                    version: int = VERSION) -> bytes:
    """Serialize a container from column → index type → payload (``None`` = empty index).

    ``order="java"`` lays columns and index types out as Java's ``DataFileIndexWriter`` does,
    treating the mapping's iteration order as the order in which the writer met them;
    ``order="given"`` keeps the mapping's own order (to rewrite a decoded container as it was).
    ``insertion`` says how the column map was filled (see :func:`fileindex.container.column_order.column_order`).
    ``version=2`` writes the experimental footer layout of Paimon PR #10101.
    """
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


def reframe(data: Buffer | FileIndexContainer, version: int) -> bytes:
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


def _grouped(entries: Iterable[Entry]) -> list[tuple[str, list[tuple[str, bytes | None]]]]:
    layout: list[tuple[str, list]] = []
    for column, index_type, payload in entries:
        if layout and layout[-1][0] == column:
            layout[-1][1].append((index_type, payload))
        else:
            layout.append((column, [(index_type, payload)]))
    return layout


def _serialize_v1(layout: list[tuple[str, list[tuple[str, bytes | None]]]]) -> bytes:
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
