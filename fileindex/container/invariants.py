"""Deep checks of a container's entry table (``fileindex check``; spec §3): beyond bounds and
overlap (:func:`~fileindex.container.head.validate_layout`), what Java's writer guarantees and
its reader does not verify. Each (column, index type) is listed once, and the payloads lie back to
back in entry order, from the end of the HEAD (the preamble in version 2) to the end of the file
(the footer), so no byte belongs to no index."""
from __future__ import annotations

from fileindex.container.head import ContainerHead
from fileindex.errors import InvariantError

JAVA_MISSES = "Java would not notice"


def check_entry_table(head: ContainerHead, size: int) -> None:
    """Raise the first broken invariant of an entry table that passed ``validate_layout``."""
    seen: dict[tuple[str, str], object] = {}
    names: set[str] = set()
    for record in head.column_records:
        if record.name in names:
            raise InvariantError(f"column {record.name!r} has a second record: Java writes each column once, and "
                                 f"its reader keeps only the last ({JAVA_MISSES})", offset=record.offset,
                                 field=record.indexes[0].table + f"/columns[{record.indexes[0].column_index}]/name"
                                 if record.indexes else "file_index_format")
        names.add(record.name)
        for entry in record.indexes:
            key = (entry.column, entry.index_type)
            if key in seen:
                raise InvariantError(f"{entry.column!r}/{entry.index_type} is listed twice: Java's reader keeps the "
                                     f"last ({JAVA_MISSES})", offset=entry.entry_offset,
                                     field=f"{entry.field}/index_type")
            seen[key] = entry
    position = head.body_start
    for entry in head.entries:
        if entry.is_empty:
            continue
        if entry.start != position:
            what = "a gap of" if entry.start > position else "an overlap of"
            raise InvariantError(f"the body of {entry.column!r}/{entry.index_type} starts at {entry.start}, where the "
                                 f"bodies before it end at {position} ({what} {abs(entry.start - position)} bytes): "
                                 f"Java writes the bodies back to back in entry order ({JAVA_MISSES})",
                                 offset=entry.entry_offset, field=f"{entry.field}/ofs_body")
        position += entry.length
    end = head.body_end(size)
    if position != end:
        raise InvariantError(f"{end - position} byte(s) from {position} to {end} belong to no index: Java writes "
                             f"none ({JAVA_MISSES})", offset=position, field="file_index_format/body")
