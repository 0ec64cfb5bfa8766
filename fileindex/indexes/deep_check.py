"""Every body of a container decoded in full and checked against the invariants its layout
implies (``fileindex check``): each index type's own checks (its ``check`` in the registry), then
what the bodies of one data file must agree on. A breach Java would misread raises; one Java reads
correctly is a note (the file is valid, not canonical)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fileindex.container.invariants import JAVA_MISSES, Note, check_entry_table
from fileindex.container.file import FileIndexContainer
from fileindex.container.head import IndexEntry
from fileindex.errors import FileIndexError, InvariantError, SchemaMisfitError
from fileindex.indexes.invariants import BodyFacts
from fileindex.indexes.registry import INDEX_TYPES, check_body
from fileindex.types import DataType, column_type


@dataclass(frozen=True)
class Checked:
    """A valid container: how many bodies were checked in full, and how it differs from what Java writes."""

    bodies: int
    notes: tuple[Note, ...]


def check_container_bodies(container: FileIndexContainer, schema: Mapping[str, DataType] | None) -> Checked:
    """Raise the first invariant broken in a way Java would misread; return how many bodies were checked
    in full and the notes (non-canonical findings). Bodies of columns the schema lacks are checked only
    by index types that need no column type."""
    notes = check_entry_table(container.head, container.size)
    facts: dict[IndexEntry, BodyFacts] = {}
    distinct: dict[str, int] = {}
    entries = sorted(container, key=lambda e: e.index_type in INDEX_TYPES and INDEX_TYPES[e.index_type].check_last)
    for entry in entries:
        index = INDEX_TYPES.get(entry.index_type)
        if entry.is_empty or index is None:
            continue
        data_type = column_type(schema, entry.column) if schema else None
        if data_type is None and index.check_needs_type:
            continue
        found = facts[entry] = check_body(index, container.body(entry), data_type, base_offset=entry.start,
                                          column=entry.column, distinct=distinct.get(entry.column))
        if found.distinct is not None:
            distinct.setdefault(entry.column, found.distinct)
        notes += [Note(f"{entry.column!r}/{entry.index_type}: {n.message}", n.offset, n.field) for n in found.notes]
    _check_row_counts(facts)
    return Checked(len(facts), tuple(sorted(notes, key=lambda n: n.offset)))


def schema_misfit(container: FileIndexContainer, schema: Mapping[str, DataType]) -> SchemaMisfitError | None:
    """The first body of a typed column that another type fits better than the one ``schema`` gives, if any:
    what a decoding failure under ``schema`` should report instead of a malformed file."""
    for entry in container:
        index = INDEX_TYPES.get(entry.index_type)
        data_type = column_type(schema, entry.column)
        if entry.is_empty or index is None or data_type is None:
            continue
        try:
            check_body(index, container.body(entry), data_type, base_offset=entry.start, column=entry.column)
        except SchemaMisfitError as misfit:
            return misfit
        except FileIndexError:
            continue
    return None


def _check_row_counts(facts: Mapping[IndexEntry, BodyFacts]) -> None:
    """The bodies of one data file count the same rows."""
    counted = [(entry, f.row_count) for entry, f in facts.items() if f.row_count is not None]
    counted.sort(key=lambda pair: pair[0].entry_offset)
    for entry, rows in counted[1:]:
        first, expected = counted[0]
        if rows != expected:
            located = INDEX_TYPES[entry.index_type].row_count_at
            assert located is not None, f"{entry.index_type} records a row count but not where"
            at, field = located
            raise InvariantError(f"{entry.column!r}/{entry.index_type} counts {rows} rows, "
                                 f"{first.column!r}/{first.index_type} {expected}: the indexes of one data file "
                                 f"count the same rows ({JAVA_MISSES})", offset=entry.start + at, field=field)
