"""A data-evolution table's files by the rows they hold: Paimon's row ids (``_FIRST_ROW_ID``, ``_ROW_COUNT``)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import TypeVar

from fileindex.table.errors import TableError
from fileindex.table.manifest_entry import ManifestEntry

T = TypeVar("T")
MAX_ROW_ID = (1 << 63) - 1  # a Java long


def row_id_groups(items: Iterable[T], entry_of: Callable[[T], ManifestEntry]) -> dict[tuple[int, int], list[T]]:
    """The items by their files' row ids, (first row id, row count): a group holds the same rows, a column from
    the newest file that wrote it. A file without row ids, or two groups whose rows overlap, are malformed
    metadata (Java's data-evolution read refuses them): grouped apart, a row was read twice, with each one's
    columns."""
    groups: dict[tuple[int, int], list[T]] = {}
    for item in items:
        entry = entry_of(item)
        first = entry.first_row_id
        if first is None or first < 0 or first + entry.row_count - 1 > MAX_ROW_ID:
            raise TableError(f"data file {entry.file_name} (bucket {entry.bucket}): _FIRST_ROW_ID {first} with "
                             f"_ROW_COUNT {entry.row_count}: a data-evolution table's file holds row ids 0 to 2^63-1")
        groups.setdefault((first, entry.row_count), []).append(item)
    for before, after in pairwise(sorted(groups)):
        if after[0] < before[0] + before[1]:
            raise TableError(f"data files {_named(groups[before], entry_of)} and {_named(groups[after], entry_of)} "
                             "hold overlapping row ids without holding the same rows (_FIRST_ROW_ID, _ROW_COUNT)")
    return groups


def _named(group: list[T], entry_of: Callable[[T], ManifestEntry]) -> str:
    entry = entry_of(group[0])
    first = entry.first_row_id or 0  # (never None here)
    return f"{entry.file_name} (rows {first} to {first + entry.row_count - 1})"
