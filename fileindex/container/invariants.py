"""Deep checks of a container's entry table (``fileindex check``; spec §3): beyond bounds and
overlap (:func:`~fileindex.container.head.validate_layout`), what Java's writer guarantees and
its reader does not verify.

Every finding is one of two kinds (docs/guide/files.md, "Valid and canonical"):

* *invalid*: a correct reader would misread the file (an :class:`~fileindex.errors.InvariantError`,
  ``check`` exit 3): here, a (column, index type) listed twice, of which Java's reader keeps only the
  last and silently drops the other;
* *non-canonical*: Java reads the file correctly, but its writer would not have written these bytes
  (a :class:`Note`): a column's index types in an order its ``HashMap`` does not iterate in, a
  column's indexes split over two records (Java's reader merges them into one map), bodies that are
  not back to back in entry order, bytes that belong to no index. Java's ``FileIndexFormat.Reader``
  finds every body by the (start, length) of its entry alone. The order of the columns is not
  judged: Java's follows from the table options and the maps they pass through
  (:func:`~fileindex.container.column_order.writer_layout`), which a file alone does not give.
"""
from __future__ import annotations

from dataclasses import dataclass

from fileindex.container.column_order import index_type_order
from fileindex.container.head import ContainerHead
from fileindex.errors import InvariantError

JAVA_MISSES = "Java would not notice"


@dataclass(frozen=True)
class Note:
    """A way the file differs from what Java's writer produces for it, though Java reads it correctly."""

    message: str
    offset: int
    field: str

    def __str__(self) -> str:
        return f"{self.field} at offset {self.offset}: {self.message}"

    def as_dict(self) -> dict:
        return {"field": self.field, "offset": self.offset, "message": self.message}


def check_entry_table(head: ContainerHead, size: int) -> list[Note]:
    """Raise the first invariant of an entry table that passed ``validate_layout`` whose breach Java would
    misread; return how the table differs from Java's writer's."""
    notes = _order_notes(head)
    seen: dict[tuple[str, str], object] = {}
    names: set[str] = set()
    for record in head.column_records:
        if record.name in names:
            notes.append(Note(f"column {record.name!r} has a second record: Java writes each column once (its "
                              "reader merges the records)", offset=record.offset,
                              field=record.indexes[0].table + f"/columns[{record.indexes[0].column_index}]/name"
                              if record.indexes else "file_index_format"))
        names.add(record.name)
        for entry in record.indexes:
            key = (entry.column, entry.index_type)
            if key in seen:
                raise InvariantError(f"{entry.column!r}/{entry.index_type} is listed twice: Java's reader keeps the "
                                     f"last and drops the other ({JAVA_MISSES})", offset=entry.entry_offset,
                                     field=f"{entry.field}/index_type")
            seen[key] = entry
    position = head.body_start
    for entry in sorted((e for e in head.entries if not e.is_empty), key=lambda e: e.start):
        if entry.start != position:
            what = "a gap of" if entry.start > position else "an overlap of"
            notes.append(Note(f"the body of {entry.column!r}/{entry.index_type} starts at {entry.start}, where the "
                              f"bodies before it end at {position} ({what} {abs(entry.start - position)} bytes): "
                              "Java writes the bodies back to back", offset=entry.entry_offset,
                              field=f"{entry.field}/ofs_body"))
        position = max(position, entry.start + entry.length)
    end = head.body_end(size)
    if position != end:
        notes.append(Note(f"{end - position} byte(s) from {position} to {end} belong to no index: Java writes none",
                          offset=position, field="file_index_format/body"))
    bodies = [e for e in head.entries if not e.is_empty]
    for before, after in zip(bodies, bodies[1:], strict=False):
        if after.start < before.start:
            notes.append(Note(f"the body of {after.column!r}/{after.index_type} lies before that of the entry listed "
                              f"before it, {before.column!r}/{before.index_type}: Java writes the bodies in entry "
                              "order", offset=after.entry_offset, field=f"{after.field}/ofs_body"))
            break
    return notes


def _order_notes(head: ContainerHead) -> list[Note]:
    """Each column's index types in an order Java's writer does not produce: a ``HashMap`` filled by
    ``put``, whose order follows from the names (for names sharing a bucket, from the order they were
    put in: either order of the file's is taken as Java's)."""
    notes = []
    for record in head.column_records:
        types = [e.index_type for e in record.indexes]
        if len(set(types)) == len(types) and types not in (index_type_order(types), index_type_order(types[::-1])):
            notes.append(Note(f"the index types of column {record.name!r} are not in Java's HashMap order: Java's "
                              f"writer puts them as {index_type_order(types)}", offset=record.offset,
                              field=f"{record.indexes[0].table}/columns[{record.indexes[0].column_index}]/indexes"))
    return notes
