"""The data files a job works on: a Paimon table's live files, or Parquet/ORC files, folders and globs.

A table is read through its snapshot (latest or a given one) and manifests, never a listing; each
task then knows where the table says its index lives and its deletion vector. A plain data file's
index is the sidecar ``<file>.index`` that ``fileindex build`` writes next to it, or
``INDEX_DIR/<file name>.index`` when the job was given an index folder.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

from pyroaring import FrozenBitMap

from fileindex.arrow.data_files import DataFileReader, data_file_format
from fileindex.container.file import FileIndexContainer
from fileindex.errors import FileIndexError, UsageError
from fileindex.table.deletion_vectors import DeletionVector
from fileindex.table.metadata import DataFile, TableError
from fileindex.table.scan import PaimonTable
from fileindex.table.store import is_table_root
from fileindex.types import DataType


@dataclass(frozen=True)
class DataFileTask:
    """One data file and everything a task needs to find its index; pickles for Spark executors."""

    path: str  # absolute
    name: str  # as reported: relative to the table root, or the path given
    size: int
    table: PaimonTable | None = None
    entry: DataFile | None = None
    vector: DeletionVector | None = None
    index_dir: str | None = None
    index_file: str | None = None  # a plain data file's index named explicitly (``fileindex verify DATA INDEX``)
    column_types: tuple[tuple[str, DataType], ...] = ()  # a plain data file's types given by the user (--schema)

    def table_entry(self) -> DataFile:
        """The manifest entry of a table's data file (every task made from a table has one)."""
        if self.entry is None:
            raise UsageError(f"{self.name} is not a file of a Paimon table")
        return self.entry

    def open(self) -> DataFileReader:
        return DataFileReader(self.path)

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


@dataclass(frozen=True)
class Inputs:
    tasks: list[DataFileTask]
    table: PaimonTable | None = None


def given_paths(inputs: str | list[str] | Inputs) -> list[str]:
    """The paths a job reads, for checking its outputs against: as given (globs expanded), or a
    resolved job's table root and data files."""
    if isinstance(inputs, Inputs):
        return ([str(inputs.table.root)] if inputs.table is not None else []) + [t.path for t in inputs.tasks]
    from fileindex.writing.outputs import input_paths

    return input_paths([inputs] if isinstance(inputs, str) else list(inputs))


def resolve_inputs(inputs: list[str], *, snapshot: int | None = None, index_dir: str | None = None) -> Inputs:
    """Tasks for a Paimon table path, or for Parquet/ORC files, folders (searched recursively) and globs."""
    if not inputs:
        raise UsageError("name a Paimon table, or Parquet/ORC data files, folders or globs")
    tables = [p for p in inputs if is_table_root(Path(p))]
    if tables:
        if len(inputs) > 1:
            raise UsageError(f"{tables[0]} is a Paimon table: give one table per job, without other inputs")
        return _table_inputs(Path(tables[0]), snapshot, index_dir)
    if snapshot is not None:
        raise UsageError("--snapshot applies to a Paimon table, and no input is one")
    paths: list[str] = []
    for given in inputs:
        if any(ch in given for ch in "*?["):
            found = [p for p in sorted(glob.glob(given, recursive=True)) if data_file_format(p)]
            if not found:
                raise UsageError(f"{given}: the pattern matches no Parquet or ORC file")
        elif os.path.isdir(given):
            found = sorted(str(p) for p in Path(given).rglob("*") if p.suffix.lower() in (".parquet", ".orc")
                           and not any(part.startswith((".", "_")) for part in p.relative_to(given).parts))
            if not found:
                raise UsageError(f"{given}: the folder holds no .parquet or .orc file")
        elif os.path.isfile(given):
            found = [given]
        else:
            raise UsageError(f"{given}: no such file, folder or table")
        paths += found
    unique = list(dict.fromkeys(os.path.abspath(p) for p in paths))
    if index_dir is not None:
        names = [Path(p).name for p in unique]
        clashes = sorted({n for n in names if names.count(n) > 1})
        if clashes:
            raise UsageError(f"an index folder holds one index per file name, and {clashes[0]!r} names "
                             "more than one input: index them in separate jobs")
    return Inputs([DataFileTask(p, p, os.path.getsize(p), index_dir=index_dir) for p in unique])


def _table_inputs(root: Path, snapshot: int | None, index_dir: str | None) -> Inputs:
    return table_inputs(PaimonTable(root, snapshot), index_dir)


def table_inputs(table: PaimonTable, index_dir: str | None = None, keep_manifest=None) -> Inputs:
    """A task per live data file of the table's snapshot (of the manifests ``keep_manifest`` keeps)."""
    real_root = str(table.root.resolve())  # once: resolving every file's path took a tenth of planning
    tasks = []
    for entry, vector in table.live(keep_manifest):
        relative = table.relative(entry)
        table.data_file_exists(entry, relative)  # (refuses a symlink out of the table)
        path = str(table.data_path(entry).resolve()) if entry.external_path else f"{real_root}/{relative}"
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
