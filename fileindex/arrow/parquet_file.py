"""pyarrow's Parquet reader without ``pyarrow.parquet`` (#54). That package imports ``pyarrow.fs``, and with it
pyarrow's S3, Azure, GCS and HDFS filesystems and ``ssl``: a tenth of a cold ``fileindex read`` on a local table,
none of it needed to read a file this package opened itself (a local path, a store's file, bytes in memory).
``ParquetFile`` opens the reader that ``pyarrow.parquet.ParquetFile`` wraps (``pyarrow._parquet.ParquetReader``,
the same in every pyarrow we declare) with that class's options, and selects columns as it does: a name selects
every leaf at or below it (``a`` selects ``a.b`` and ``a.c.d``)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyarrow._parquet import ParquetReader

from fileindex.arrow import pools

# pyarrow.parquet.ParquetFile reads Parquet's JSON and UUID types as Arrow extension types from pyarrow 21 on
# (apache/arrow#46772); its reader's own default is off, as ParquetFile's was before
_EXTENSIONS = {"arrow_extensions_enabled": True} if int(pa.__version__.split(".")[0]) >= 21 else {}


class ParquetFile:
    """The part of ``pyarrow.parquet.ParquetFile`` this package reads by, with the same options and answers."""

    def __init__(self, source: Any, *, metadata: Any = None, read_dictionary: list[str] | None = None,
                 pre_buffer: bool = True):
        """``source``: a local path (opened by pyarrow as a regular file), a pyarrow NativeFile or a file object."""
        self.reader = ParquetReader(pools.reads())
        self.reader.open(source, use_memory_map=False, buffer_size=0, pre_buffer=pre_buffer,
                         read_dictionary=read_dictionary, metadata=metadata, **_EXTENSIONS)
        self._leaves: dict[str, list[int]] = {}
        for index, path in enumerate(self.reader.column_paths):
            for depth in range(1, len(path) + 1):
                self._leaves.setdefault(".".join(path[:depth]), []).append(index)

    @property
    def metadata(self) -> Any:
        return self.reader.metadata

    @property
    def schema_arrow(self) -> pa.Schema:
        return self.reader.schema_arrow

    @property
    def num_row_groups(self) -> int:
        return self.reader.num_row_groups

    def _indices(self, columns: list[str] | None) -> list[int] | None:
        return None if columns is None else [i for name in columns for i in self._leaves.get(name, ())]

    def read(self, columns: list[str] | None = None, use_threads: bool = True) -> pa.Table:
        return self.reader.read_all(column_indices=self._indices(columns), use_threads=use_threads)

    def read_row_group(self, i: int, columns: list[str] | None = None, use_threads: bool = True) -> pa.Table:
        return self.reader.read_row_group(i, column_indices=self._indices(columns), use_threads=use_threads)

    def iter_batches(self, batch_size: int = 65536, columns: list[str] | None = None, use_threads: bool = True,
                     row_groups: Sequence[int] | None = None) -> Iterator[pa.RecordBatch]:
        groups = range(self.reader.num_row_groups) if row_groups is None else row_groups
        return self.reader.iter_batches(batch_size, row_groups=groups, column_indices=self._indices(columns),
                                        use_threads=use_threads)
