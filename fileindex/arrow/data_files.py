"""Data files (Parquet and ORC) read with pyarrow: one column at a time, or only the candidate rows.

A candidate-row read touches only the Parquet row groups (ORC stripes) that hold a candidate and
takes the rows out of them, so an index that keeps a few rows of a large file reads a few groups.
Library errors become :class:`DataFileError`, naming the file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from fileindex.errors import FileIndexError

FORMATS = {".parquet": "parquet", ".orc": "orc"}


class DataFileError(FileIndexError):
    """A data file that cannot be read (missing, not Parquet/ORC, corrupt)."""


def data_file_format(path: str | Path) -> str | None:
    """'parquet' or 'orc' by the file's ending (then by its magic bytes), None for anything else."""
    by_suffix = FORMATS.get(Path(path).suffix.lower())
    if by_suffix:
        return by_suffix
    try:
        with open(path, "rb") as file:
            magic = file.read(4)
    except OSError:
        return None
    return "parquet" if magic == b"PAR1" else "orc" if magic[:3] == b"ORC" else None


class DataFileReader:
    """An opened data file; row positions are 0-based in file order, as Paimon's indexes count them."""

    def __init__(self, path: str | Path, file_format: str | None = None):
        """Raises OSError for a file that is missing or cannot be opened, DataFileError for one that
        is not a readable Parquet or ORC file."""
        self.path = str(path)
        with open(self.path, "rb"):
            pass
        self.format = file_format or data_file_format(path)
        try:
            if self.format == "parquet":
                import pyarrow.parquet as pq

                self._file = pq.ParquetFile(self.path)
                metadata = self._file.metadata
                self.arrow_schema = self._file.schema_arrow
                self.group_rows: list[int] | None = [metadata.row_group(i).num_rows
                                                     for i in range(metadata.num_row_groups)]
                self.row_count = metadata.num_rows
            elif self.format == "orc":
                import pyarrow.orc as orc

                self._file = orc.ORCFile(self.path)
                self.arrow_schema = self._file.schema
                self.group_rows = None  # stripe sizes are read when a candidate-row read needs them
                self.row_count = self._file.nrows
            else:
                raise DataFileError(f"{self.path}: not a Parquet or ORC data file")
        except (pa.ArrowException, OSError, ValueError) as err:
            raise DataFileError(f"{self.path}: not a readable {self.format} file: {err}") from None

    def _guard(self, action):
        try:
            return action()
        except (pa.ArrowException, OSError, ValueError) as err:
            raise DataFileError(f"{self.path}: {err}") from None

    def column(self, name: str) -> pa.ChunkedArray:
        return self.read([name]).column(0)

    def read(self, columns: list[str]) -> pa.Table:
        self._require(columns)
        return self._guard(lambda: self._file.read(columns=columns))

    def read_rows(self, rows: np.ndarray | None, columns: list[str]) -> pa.Table:
        """The given rows (ascending positions; None: all) of ``columns``, reading only their groups."""
        self._require(columns)
        if rows is None:
            return self.read(columns)
        if self.group_rows is None:
            first = self.arrow_schema.names[:1]
            self.group_rows = self._guard(lambda: [self._file.read_stripe(i, columns=first).num_rows
                                                   for i in range(self._file.nstripes)])
        starts = np.concatenate(([0], np.cumsum(self.group_rows, dtype=np.int64)))
        group_of = np.searchsorted(starts, rows, side="right") - 1
        groups = np.unique(group_of).tolist()
        if not groups:
            return self._guard(lambda: self._empty(columns))
        table = self._guard(lambda: self._read_groups(groups, columns))
        # positions within the concatenation of the groups read
        skipped_before = starts[groups] - np.concatenate(([0], np.cumsum(np.asarray(self.group_rows)[groups])[:-1]))
        local = rows - skipped_before[np.searchsorted(groups, group_of)]
        return table.take(pa.array(local, type=pa.int64()))

    def _read_groups(self, groups: list[int], columns: list[str]) -> pa.Table:
        if self.format == "parquet":
            return self._file.read_row_groups(groups, columns=columns)
        return pa.Table.from_batches([self._file.read_stripe(g, columns=columns) for g in groups])

    def _empty(self, columns: list[str]) -> pa.Table:
        return pa.schema([self.arrow_schema.field(c) for c in columns]).empty_table()

    def _require(self, columns: list[str]) -> None:
        missing = [c for c in columns if c not in self.arrow_schema.names]
        if missing:
            raise DataFileError(f"{self.path}: no column {', '.join(map(repr, missing))} in the file")
