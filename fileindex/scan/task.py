"""A data file a scan or a job works on (:class:`DataFileTask`): where it is, the manifest entry and deletion
vector of a table's file, and where its index lives; and :func:`table_inputs`, a task per live data file of a
table's snapshot. Tasks pickle for Spark executors."""
from __future__ import annotations

import os
from fileindex.frozen import frozen
from pathlib import Path
from typing import TYPE_CHECKING

from pyroaring import FrozenBitMap

from fileindex.arrow.data_files import DataFileReader
from fileindex.container.file import FileIndexContainer
from fileindex.errors import FileIndexError, UsageError
from fileindex.table.deletion_vectors import DeletionVector
from fileindex.table.metadata import ManifestEntry, TableError
from fileindex.types import DataType

if TYPE_CHECKING:
    from fileindex.scan.table import PaimonTable


@frozen
class DataFileTask:
    """One data file and everything a task needs to find its index; pickles for Spark executors."""

    path: str  # absolute
    name: str  # as reported: relative to the table root, or the path given
    size: int
    table: PaimonTable | None = None
    entry: ManifestEntry | None = None
    vector: DeletionVector | None = None
    index_dir: str | None = None
    index_file: str | None = None  # a plain data file's index named explicitly (``fileindex verify DATA INDEX``)
    column_types: tuple[tuple[str, DataType], ...] = ()  # a plain data file's types given by the user (--schema)

    @property
    def is_external(self) -> bool:
        """A table's data file under an external path, outside the table."""
        return self.entry is not None and bool(self.entry.external_path)

    def table_entry(self) -> ManifestEntry:
        """The manifest entry of a table's data file (every task made from a table has one)."""
        if self.entry is None:
            raise UsageError(f"{self.name} is not a file of a Paimon table")
        return self.entry

    def open(self, *, whole: bool = False) -> DataFileReader:
        """The data file opened once: a table's through its store (a regular file inside the table, or an
        allowed external root; ``whole``: on an object store, fetched whole as it is opened), a plain file as
        given (a regular file)."""
        if self.table is None:
            return DataFileReader(self.path)
        entry = self.table_entry()
        columns = [f.name for f in self.table.data_schema(entry).fields]
        return DataFileReader(self.table.store.open_data(entry, self.table.schema, whole=whole),
                              expected_rows=entry.row_count, expected_columns=columns, expected_size=entry.file_size)

    def sidecar_path(self) -> Path:
        """Where a built index of a plain data file goes (and is looked for)."""
        if self.index_file is not None:
            return Path(self.index_file)
        name = Path(self.path).name + ".index"
        return Path(self.index_dir) / name if self.index_dir else Path(self.path + ".index")

    def container(self) -> tuple[str, FileIndexContainer | None, str]:
        """(where the index lives: embedded, sidecar or none; the container; a note on a problem).

        Raises the project's decode errors for a container whose HEAD is malformed.
        """
        if self.table is not None:
            return self.table.container(self.table_entry())
        if self.index_file is not None and "://" in self.index_file:  # (a store's URI: read whole, in one GET)
            return "sidecar", FileIndexContainer.open(self.index_file), ""
        sidecar = self.sidecar_path()
        if not sidecar.is_file():
            return "none", None, ""
        return "sidecar", FileIndexContainer.open(sidecar), ""

    def types(self, reader: DataFileReader) -> dict[str, DataType]:
        """The Paimon types of the file's columns: the schema it was written with, or from Arrow."""
        if self.table is not None:
            return self.table.data_schema(self.table_entry()).types()
        return {**reader.types(), **dict(self.column_types)}

    def deleted_rows(self) -> FrozenBitMap | None:
        """Rows the table's deletion vector removes; a TableError when the vector cannot be read
        (reading the file without it would bring deleted rows back)."""
        if self.vector is None:
            return None
        if self.vector.problem or self.vector.rows is None:
            raise TableError(f"{self.name}: its deletion vector cannot be applied: "
                             f"{self.vector.problem or 'a 64-bit deletion vector (not supported)'}")
        return self.vector.rows


@frozen
class Inputs:
    tasks: list[DataFileTask]
    table: PaimonTable | None = None


def table_inputs(table: PaimonTable, index_dir: str | None = None, keep_manifest=None) -> Inputs:
    """A task per live data file of the table's snapshot (of the manifests ``keep_manifest`` keeps)."""
    # once per store: resolving every file's path took a tenth of planning
    real_root = str(table.root.resolve()) if table.store.remote else table.store.real_root
    tasks = []
    for entry, vector in table.live(keep_manifest):
        relative = table.relative(entry)
        table.data_file_exists(entry)  # (refuses a symlink out of the table)
        if not entry.external_path:
            path = f"{real_root}/{relative}"
        else:  # (on storage this reader cannot open: named as the manifest names it, answered REMAIN)
            path = (entry.external_path if not table.store.readable(entry) or "://" in table.store.data_file(
                entry, table.schema) else str(table.data_path(entry).resolve()))
        size = entry.file_size if entry.file_size is not None else _size_or_zero(path)
        tasks.append(DataFileTask(path, relative, size, table, entry, vector, index_dir))
    return Inputs(tasks, table)


def _size_or_zero(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # a missing file is reported by the task that opens it


def open_error(err: Exception) -> str:
    """A one-line reason for a file a task could not use."""
    if isinstance(err, FileIndexError):
        return str(err)
    if isinstance(err, OSError):
        return f"{err.filename or ''}: {err.strerror or err}".lstrip(": ")
    return f"{type(err).__name__}: {err}"
