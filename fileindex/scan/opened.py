"""What a ``PaimonTable`` keeps below its plans (``scan/plans.py``), so that a new predicate on the same table pays
only for evaluating it: its snapshot's live files as tasks (the manifests decoded into entries once per table), and
each data file's opened index (where it lives, its container with the readers a query opened on it, the file's
existence and reported name), and each file's decoded statistics (``STATISTICS_BUDGET``). A table is pinned to its
snapshot and a snapshot's files never change, so a file is known by its path and size; nothing is looked up or
opened again for it while the table lives. A new ``PaimonTable`` starts with none.

Bounded: at most ``FILES`` opened files weighing ``BYTES`` in all (an opened file counted as ``FILE_BYTES`` plus
twice its container's bytes: the bytes read and about what the readers decode of them; a bitmap body can be large),
least recently used out; a memory-mapped container holds a descriptor, so at most ``MAPPED`` of those (as the
process's own ``MAPPED_SIDECARS``), each weighed as an eighth of its bytes (its bytes are the page cache's). Shared
by threads under the memos' locks; a table pickled (Spark ships it) arrives with none. ``FILEINDEX_MEMOS=off`` keeps
none. A file whose index could not be opened is not kept: it fails again, each time.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from fileindex.frozen import frozen
from typing import TYPE_CHECKING

from fileindex.container.file import FileIndexContainer, _sidecar_memo_items
from fileindex.memo import ENABLED, BoundedMemo

if TYPE_CHECKING:
    from fileindex.scan.task import DataFileTask
    from fileindex.table.metadata import ManifestEntry
    from fileindex.table.statistics import Statistics

FILES = 1 << 17
BYTES = 256 << 20
MAPPED = _sidecar_memo_items()
FILE_BYTES = 2048  # an opened file's own objects: its key, names, head and readers' frames (about)
STATISTICS_BYTES = 1024  # a file's decoded statistics, but for their values (about)
STATISTICS_BUDGET = 64 << 20
TASK_BYTES = 1024  # a live file's task, beside its manifest entry (kept by the process's manifest memo)
TASKS_BYTES = 64 << 20  # the live files of a table larger than this are listed again for each plan


@frozen
class OpenedFile:
    """A data file of the table with its index opened: what ``PaimonTable.verdicts`` asks of it before evaluating."""

    relative: str  # as reported
    exists: bool
    where: str  # embedded, sidecar or none
    container: FileIndexContainer | None
    note: str  # why its index is not used ("": it is)


def file_key(entry: ManifestEntry) -> tuple:
    """A data file of a snapshot: its path (partition, bucket, name or external path) and size."""
    return entry.partition, entry.bucket, entry.file_name, entry.external_path, entry.file_size


class OpenedFiles:
    """A table's opened files by ``file_key``, and its live files' tasks."""

    def __init__(self) -> None:
        self._small: BoundedMemo[OpenedFile] = BoundedMemo(items=FILES, budget=BYTES)
        self._mapped: BoundedMemo[OpenedFile] = BoundedMemo(items=MAPPED, budget=BYTES)
        self._statistics: BoundedMemo[Statistics] = BoundedMemo(items=FILES, budget=STATISTICS_BUDGET)
        self._tasks: list[DataFileTask] | None = None
        self._lock = threading.Lock()

    def __reduce__(self):  # (pickled empty: a lock does not travel, nor do opened files)
        return OpenedFiles, ()

    def of(self, entry: ManifestEntry, open_file: Callable[[ManifestEntry], OpenedFile]) -> OpenedFile:
        """The file opened before, else ``open_file(entry)`` (kept unless it raises)."""
        key = file_key(entry)
        found = self._small.get(key) or self._mapped.get(key)
        if found is None:
            found = open_file(entry)
            container = found.container
            if container is None:
                self._small.put(key, found, FILE_BYTES)
            elif container._mapped is not None:  # (its bytes are the page cache's: weighed as MAPPED_SIDECARS does)
                self._mapped.put(key, found, FILE_BYTES + container.size // 8)
            else:
                self._small.put(key, found, FILE_BYTES + 2 * container.size)
        return found

    def statistics(self, entry: ManifestEntry, schema_id: int, decode: Callable[[], Statistics]) -> Statistics:
        """The file's statistics under the schema it was written with (the columns they decoded kept with them),
        decoded before, else ``decode()``."""
        key = (file_key(entry), schema_id)
        found = self._statistics.get(key)
        if found is None:
            found = decode()
            stats = entry.value_stats  # (its bounds' bytes, and about as much again decoded)
            self._statistics.put(key, found, STATISTICS_BYTES + 2 * (len(stats.min_values) + len(stats.max_values))
                                 if stats is not None else STATISTICS_BYTES)
        return found

    def tasks(self, listed: Callable[[], list[DataFileTask]]) -> list[DataFileTask]:
        """The live files' tasks listed before, else ``listed()`` (kept unless they weigh over ``TASKS_BYTES``)."""
        with self._lock:
            found = self._tasks
        if found is None:
            found = listed()
            if ENABLED and len(found) * TASK_BYTES <= TASKS_BYTES:
                with self._lock:
                    self._tasks = found
        return found

    def __len__(self) -> int:
        return len(self._small) + len(self._mapped)
