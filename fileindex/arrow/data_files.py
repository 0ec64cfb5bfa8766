"""Data files (Parquet and ORC) read with pyarrow: one column at a time, or only the candidate rows.

A candidate-row read touches only the Parquet row groups (ORC stripes) that hold a candidate and
takes the rows out of them, so an index that keeps a few rows of a large file reads a few groups.
Library errors become :class:`DataFileError`, naming the file.

What opening a file reads (its schema, row count, group sizes and, for Parquet, the footer metadata)
is kept in a bounded per-process memo keyed by the file's identity, so planning query after query
over the same files decodes each footer once; a file replaced in place (new inode, or a changed size,
mtime or ctime: any write changes the ctime) is read again.
"""
from __future__ import annotations

import os
from collections.abc import Hashable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from fileindex.arrow.types import schema_of
from fileindex.errors import FileIndexError
from fileindex.memo import BoundedMemo, file_identity
from fileindex.types import DataType

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


@dataclass(frozen=True)
class Footer:
    """What opening a data file learns before reading any row."""

    arrow_schema: pa.Schema
    row_count: int
    group_rows: tuple[int, ...] | None  # Parquet row groups; ORC stripes: None until a read first counts them
    metadata: object = None  # Parquet's FileMetaData, handed back to pyarrow to read rows without re-parsing
    size: int = 0  # the footer's bytes, to bound the memo

    @cached_property
    def types(self) -> dict[str, DataType]:
        return schema_of(self.arrow_schema, skip_untyped=True)


class FooterMemo(BoundedMemo[Footer]):
    """The footers of up to ``files`` data files (and ``footer_bytes`` of them), least recently used out."""

    def __init__(self, files: int = 1024, footer_bytes: int = 16 << 20):
        # footer_bytes counts Parquet footers as stored: pyarrow holds one in about 8 times that (a 1M-row
        # file's 67 KiB footer of 100 row groups is 0.5 MiB parsed), so 16 MiB is about 130 MiB held
        super().__init__(files, footer_bytes)

    def put(self, key: Hashable, value: Footer, weight: int | None = None) -> None:
        super().put(key, value, value.size if weight is None else weight)


FOOTERS = FooterMemo()


class DataFileReader:
    """An opened data file; row positions are 0-based in file order, as Paimon's indexes count them."""

    def __init__(self, path: str | Path, file_format: str | None = None):
        """Raises OSError for a file that is missing or cannot be opened, DataFileError for one that
        is not a readable Parquet or ORC file."""
        self.path = str(path)
        with open(self.path, "rb") as file:
            identity = file_identity(self.path, os.fstat(file.fileno()))
        self.format = file_format or data_file_format(path)
        self._opened: Any = None  # pyarrow's ParquetFile or ORCFile
        footer = FOOTERS.get(identity)
        if footer is None:
            footer = self._guard(self._read_footer, f"not a readable {self.format} file: ")
            FOOTERS.put(identity, footer)
        self._footer, self._identity = footer, identity
        self.arrow_schema = footer.arrow_schema
        self.row_count = footer.row_count
        self.group_rows: list[int] | None = list(footer.group_rows) if footer.group_rows is not None else None

    def _read_footer(self) -> Footer:
        if self.format not in ("parquet", "orc"):
            raise DataFileError(f"{self.path}: not a Parquet or ORC data file")
        opened = self._opened = self._open(None)
        if self.format == "orc":
            return Footer(opened.schema, opened.nrows, None)
        metadata = opened.metadata
        return Footer(opened.schema_arrow, metadata.num_rows,
                      tuple(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)),
                      metadata, metadata.serialized_size)

    def _open(self, metadata):
        if self.format == "parquet":
            import pyarrow.parquet as pq

            return pq.ParquetFile(self.path, metadata=metadata)
        import pyarrow.orc as orc

        return orc.ORCFile(self.path)

    def types(self) -> dict[str, DataType]:
        """The Paimon types of the columns Paimon can type (read from the Arrow schema once per footer)."""
        return dict(self._footer.types)

    @property
    def _file(self):
        """The library's reader, opened when rows are first read (with the footer already parsed)."""
        if self._opened is None:
            self._opened = self._guard(lambda: self._open(self._footer.metadata))
        return self._opened

    def _guard(self, action, what: str = ""):
        try:
            return action()
        except (pa.ArrowException, OSError, ValueError) as err:
            raise DataFileError(f"{self.path}: {what}{err}") from None

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
            self._footer = replace(self._footer, group_rows=tuple(self.group_rows))  # counted once
            FOOTERS.put(self._identity, self._footer)
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
