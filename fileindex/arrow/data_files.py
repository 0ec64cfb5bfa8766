"""Data files (Parquet and ORC) read with pyarrow: one column at a time, or only the candidate rows.

A candidate-row read touches only the Parquet row groups (ORC stripes) that hold a candidate and
takes the rows out of them, so an index that keeps a few rows of a large file reads a few groups; in a
Parquet file with page indexes, a few rows of a large group are read from their pages alone
(``parquet_pages``).
Library errors become :class:`DataFileError`, naming the file.

What opening a file reads (its schema, row count, group sizes and, for Parquet, the footer metadata)
is kept in a bounded per-process memo keyed by the file's identity, so planning query after query
over the same files decodes each footer once; a file replaced in place (new inode, or a changed size,
mtime or ctime: any write changes the ctime) is read again.
"""
from __future__ import annotations

import bisect
import itertools
import os
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from fileindex.frozen import field, frozen, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from fileindex.arrow import scalars
from fileindex.arrow.types import schema_of
from fileindex.errors import DecodeError, FileIndexError
from fileindex.io import LOCAL, InputFile
from fileindex.io.reach import names_a_store, open_location
from fileindex.memo import BoundedMemo
from fileindex.parallel import reading_side_by_side
from fileindex.lazy import LazyModule, numpy as np
from fileindex.types import DataType

if TYPE_CHECKING:
    from fileindex.arrow import compute
    from fileindex.arrow import parquet_pages  # (with Thrift) imported by the first page read
    from fileindex.arrow.page_encodings import DictionaryChunks
else:
    compute = LazyModule("fileindex.arrow.compute")

FORMATS = {".parquet": "parquet", ".orc": "orc"}
FORMAT_NAMES = {"parquet": "Parquet", "orc": "ORC"}
# a candidate-row read is sparse when its groups hold at least this many rows per candidate (see _read_groups)
SPARSE_SHARE = 8


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


@frozen
class Footer:
    """What opening a data file learns before reading any row."""

    arrow_schema: pa.Schema
    row_count: int
    group_rows: tuple[int, ...] | None  # Parquet row groups; ORC stripes: None until a read first counts them
    metadata: object = None  # Parquet's FileMetaData, handed back to pyarrow to read rows without re-parsing
    size: int = 0  # the footer's bytes, to bound the memo
    paged: parquet_pages.PagedFooter | bool | None = None  # for page reads (False: not possible); None: not yet
    dictionary_chunks: DictionaryChunks | None = None  # (page_encodings) None: not yet
    # a column's row-group bounds, once asked (a point lookup asks them at every read of the file)
    bounds: dict[str, list[tuple | None] | None] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def types(self) -> dict[str, DataType]:
        return schema_of(self.arrow_schema, skip_untyped=True)

    @cached_property
    def column_names(self) -> frozenset[str]:
        return frozenset(self.arrow_schema.names)


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

    def __init__(self, path: str | Path | InputFile, file_format: str | None = None,
                 expected_rows: int | None = None, expected_columns: Sequence[str] = (),
                 expected_size: int | None = None):
        """``path``: a file opened through a table's store, or a path (opened here, once, as a regular file).
        Raises OSError for a file that is missing or cannot be opened, ConfinementError for one that is not
        a regular file, DataFileError for one that is not a readable Parquet or ORC file, or (``expected_rows``,
        ``expected_columns``: what a table's manifest and schema say) that holds another number of rows or lacks
        a column, or (``expected_size``) is of another size: the file is the truth about itself, and row positions past
        its end, a file cut short, a column it lacks (read as nulls) or another file's rows pruned by the indexes and
        statistics of the file the table wrote must not be read as if they were the table's."""
        opened = path if isinstance(path, InputFile) else _open_named(path)
        self._input = opened  # (held open while the reader lives: reads reopen this very file, never the name)
        self.path = opened.name
        self._source: Any = opened.local_path or opened.native()  # what pyarrow and the page reader open
        identity = opened.identity
        self.format = file_format or FORMATS.get(Path(self.path).suffix.lower()) or _sniffed(opened)
        self._opened: Any = None  # a ParquetFile (fileindex.arrow.parquet_file) or pyarrow's ORCFile
        self._dictionary_files: dict[tuple[str, ...], Any] = {}  # ParquetFiles reading these leaves as dictionaries
        footer = FOOTERS.get(identity)
        if footer is None:
            footer = self._guard(self._read_footer, f"not a readable {self.format} file: ")
            FOOTERS.put(identity, footer)
        self._footer, self._identity = footer, identity
        self.arrow_schema = footer.arrow_schema
        self.row_count = footer.row_count
        self.group_rows: list[int] | None = list(footer.group_rows) if footer.group_rows is not None else None
        if expected_rows is not None and self.row_count != expected_rows:
            raise DataFileError(f"{self.path}: holds {self.row_count} rows where the table's manifest says "
                                f"{expected_rows}: not the data file the table wrote")
        missing = [name for name in expected_columns if name not in footer.column_names]
        if missing:
            raise DataFileError(f"{self.path}: lacks column {', '.join(missing)} that its schema gives it: not the "
                                "data file the table wrote")
        if expected_size and opened.size != expected_size:
            raise DataFileError(f"{self.path}: holds {opened.size} bytes where the table's manifest says "
                                f"{expected_size}: not the data file the table wrote")

    def _read_footer(self) -> Footer:
        if self.format not in ("parquet", "orc"):
            raise DataFileError(f"{self.path}: not a Parquet or ORC data file")
        opened = self._opened = self._open(None)
        if self.format == "orc":
            return Footer(opened.schema, opened.nrows, None)
        metadata = opened.metadata
        group_rows = tuple(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups))
        self._check_row_counts(metadata, group_rows)
        return Footer(opened.schema_arrow, metadata.num_rows, group_rows, metadata, metadata.serialized_size)

    def _check_row_counts(self, metadata, group_rows: tuple[int, ...]) -> None:
        """Refuses a footer whose row counts disagree: the file's with its row groups', a group's with the values
        of its first flat column (one value, or null, per row). Readers trust different counts (a whole read the
        pages', a count the footer's, a row selection the group's), so a footer that lies in one of them would
        give answers that contradict each other. (One column per group: its chunks' other counts are pyarrow's
        to check as it reads them.)"""
        at = f"(its footer at byte {self._input.size - 8 - metadata.serialized_size})"
        if sum(group_rows) != metadata.num_rows:
            raise DataFileError(f"{self.path}: says it holds {metadata.num_rows} rows {at} where its row groups "
                                f"hold {sum(group_rows)}: a corrupt Parquet footer")
        flat = next((i for i in range(metadata.num_columns)
                     if metadata.schema.column(i).max_repetition_level == 0), None)
        for group, rows in enumerate(group_rows if flat is not None else ()):
            chunk = metadata.row_group(group).column(flat)
            if chunk.num_values != rows:
                raise DataFileError(f"{self.path}: row group {group} says it holds {rows} rows {at} where its "
                                    f"column {chunk.path_in_schema} holds {chunk.num_values} values: a corrupt "
                                    "Parquet footer")

    def _open(self, metadata, read_dictionary: list[str] | None = None):
        if self.format == "parquet":
            from fileindex.arrow.parquet_file import ParquetFile

            return ParquetFile(self._source, metadata=metadata, read_dictionary=read_dictionary, pre_buffer=False)
        import pyarrow.orc as orc

        return orc.ORCFile(self._source)

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

    def cast(self, values, name: str, arrow_type: pa.DataType):
        """The file's column ``name`` as ``arrow_type`` (its type in the table's schema), where its values are of
        another type: values that do not fit (strings in a column a schema says is INT) are a data-file error."""
        if values.type == arrow_type:
            return values
        try:
            return compute.cast(values, arrow_type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
            raise DataFileError(f"{self.path}: its column {name} holds {values.type} values that cannot be read as "
                                f"{arrow_type} (the table's schema's type): {err}") from None

    def column(self, name: str) -> pa.ChunkedArray:
        return self.read([name]).column(0)

    def read(self, columns: list[str]) -> pa.Table:
        self._require(columns)
        if self.format != "parquet":
            return self._whole(self._guard(lambda: self._file.read(columns=columns)), self.row_count, columns)
        with self._prefetching(range(len(self.group_rows or ())), columns):
            return self._whole(self._guard(lambda: self._read_all(columns)), self.row_count, columns)

    def _whole(self, table: Any, rows: int, columns: list[str], group: int | None = None) -> Any:
        """``table``, a read of every row of the file (or of row group ``group``), where it holds the ``rows`` its
        footer says (``_check_rows``)."""
        self._check_rows(table.num_rows, rows, columns, group)
        return table

    def _check_rows(self, read: int, rows: int, columns: list[str], group: int | None = None, *,
                    at_most: bool = False) -> None:
        """Refuses a read of ``read`` rows where the footer says ``rows`` (``at_most``: so far, more). pyarrow
        trusts a page header's value count: a page saying it holds fewer values than it does reads as fewer rows
        than the footer's, which a table would take for the file's rows (their positions shifted against every
        index) without a word."""
        if read == rows or (at_most and read < rows) or not columns:  # (ORC reads no row without a column)
            return
        metadata: Any = self._footer.metadata
        chunks = chunk_ranges(metadata, [group], columns) if group is not None and metadata is not None else []
        at = (f" (row group {group}, its first chunk at byte {chunks[0][0]})" if chunks
              else f" (its footer at byte {self._footer_start()})" if metadata is not None else "")
        raise DataFileError(f"{self.path}: the pages of {', '.join(columns)} hold {read} rows where the footer says "
                            f"{rows}{at}: a corrupt {FORMAT_NAMES.get(self.format or '', 'data')} file")

    def _footer_start(self) -> int:
        """Where a Parquet file's footer starts."""
        return self._input.size - 8 - self._footer.metadata.serialized_size  # type: ignore[union-attr]

    def _read_all(self, columns: list[str]) -> pa.Table:
        file, leaves = self._reading(range(len(self._footer.group_rows or ())), columns)
        table = file.read(columns=columns, use_threads=_arrow_threads(columns))
        return self._in_file_types(table) if leaves else table

    @contextmanager
    def _prefetching(self, groups: Iterable[int], columns: list[str]) -> Iterator[None]:
        """On a store, the column chunks of ``columns`` in ``groups`` fetched together ahead of pyarrow's reads
        (which ask for them a chunk at a time, a GET each, one after another), held while the block runs: a
        group's chunks lie side by side, so most reads of a group are one GET (``ObjectInputFile.prefetch``)."""
        prefetch = getattr(self._input, "prefetch", None)
        metadata: Any = self._footer.metadata
        if prefetch is None or metadata is None:
            yield
            return
        prefetch(chunk_ranges(metadata, groups, columns))
        try:
            yield
        finally:
            self._input.release()  # type: ignore[attr-defined]

    def group_bounds(self, column: str) -> list[tuple | None] | None:
        """Per row group, the (min, max, null count) a Parquet footer records for a top-level column, None for a
        group that records none; None for a file that keeps no such statistics (ORC)."""
        known = self._footer.bounds
        if column not in known:
            known[column] = self._group_bounds(column)
        return known[column]

    def _group_bounds(self, column: str) -> list[tuple | None] | None:
        metadata: Any = self._footer.metadata  # pyarrow.parquet.FileMetaData (a Parquet footer has one)
        if self.format != "parquet" or metadata is None or column not in self.arrow_schema.names:
            return None
        position = metadata.schema.names.index(column) if column in metadata.schema.names else None
        if position is None:
            return None
        found: list[tuple | None] = []
        for group in range(metadata.num_row_groups):
            statistics = metadata.row_group(group).column(position).statistics
            usable = statistics is not None and statistics.has_min_max and statistics.has_null_count
            found.append((statistics.min, statistics.max, statistics.null_count) if usable else None)
        return found

    def page_bounds(self, column: str, group: int) -> parquet_pages.PageBounds | None:
        """A column's pages in a Parquet row group with the bounds its column index claims
        (``parquet_pages.page_bounds``); None where the file keeps no such index (or it does not check out: the
        group is then read as if it had none)."""
        from fileindex.arrow import parquet_pages

        footer = self._paged_footer() if self.format == "parquet" else None
        if footer is None or column not in footer.leaves:
            return None
        try:
            return parquet_pages.page_bounds(self._source, footer, group, footer.leaves[column])
        except (parquet_pages.Unreadable, OSError):
            return None

    def page_values(self, column: str, group: int, pages: list[int]) -> pa.ChunkedArray | None:
        """Every value of the data pages ``pages`` (ascending, as ``page_bounds`` numbers them) of a Parquet row
        group's column, in the file's type, where they are PLAIN fixed-width numbers read page by page; None
        where they are not so (or do not check out: read the rows otherwise)."""
        from fileindex.arrow import parquet_pages

        footer = self._paged_footer() if self.format == "parquet" else None
        if footer is None or column not in footer.leaves:
            return None
        try:
            found = parquet_pages.page_values(self._source, footer, group, column, pages)
        except (parquet_pages.Unreadable, pa.ArrowException, OSError, ValueError):
            return None
        return found if found is not None and found.type == self.arrow_schema.field(column).type else None

    def read_groups(self, groups: list[int], columns: list[str]) -> list[pa.Table]:
        """Whole row groups (ORC stripes) of ``columns``, a table each."""
        self._require(columns)
        return self._guard(lambda: self._read_groups(groups, columns))

    def iter_batches(self, columns: list[str], batch_rows: int = 65536) -> Iterator[pa.RecordBatch]:
        """Every row of ``columns``, a batch of at most ``batch_rows`` at a time (a streaming read: memory is a
        batch, or an ORC stripe)."""
        self._require(columns)
        leaves: tuple[str, ...] = ()
        if self.format == "parquet":
            groups = range(len(self._footer.group_rows or ()))
            file, leaves = self._guard(lambda: self._reading(groups, columns))
            if getattr(self._input, "prefetch", None) is not None and self._footer.metadata is not None:
                batches = self._group_by_group(file, groups, columns, batch_rows)
            else:
                batches = self._guard(lambda: file.iter_batches(batch_size=batch_rows, columns=columns,
                                                                use_threads=_arrow_threads(columns)))
        else:
            batches = (batch for stripe in range(self._file.nstripes)
                       for batch in self._file.read_stripe(stripe, columns=columns).to_batches(batch_rows))
        read = 0
        while True:
            batch = self._guard(lambda: next(batches, None))
            if batch is None:
                break
            read += batch.num_rows
            self._check_rows(read, self.row_count, columns, at_most=True)
            yield self._guard(lambda b=batch: self._in_file_types(b)) if leaves else batch
        self._check_rows(read, self.row_count, columns)

    def _group_by_group(self, file: Any, groups: range, columns: list[str],
                        batch_rows: int) -> Iterator[pa.RecordBatch]:
        """The batches of each row group in turn, its column chunks fetched together before pyarrow reads them
        (``_prefetching``) and dropped after: on a store, a GET a group instead of one a chunk, and no more than
        one group's chunks held."""
        for group in groups:
            with self._prefetching([group], columns):
                yield from file.iter_batches(batch_size=batch_rows, row_groups=[group], columns=columns,
                                             use_threads=_arrow_threads(columns))

    def read_rows(self, rows: np.ndarray | pa.Array | None, columns: list[str]) -> pa.Table:
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
        positions = compute.int64_array(rows)
        starts = list(itertools.accumulate(self.group_rows, initial=0))
        # the ascending rows each group holds, cut where the groups start (no numpy: see fileindex.cli.unimported)
        view = compute.int64_view(positions)
        if len(view) and not 0 <= view[0] <= view[-1] < starts[-1]:
            raise IndexError(f"rows {view[0]}..{view[-1]} outside the file's {starts[-1]} rows")
        cuts = [bisect.bisect_left(view, start) for start in starts]
        wanted = {group: compute.shifted(positions.slice(cuts[group], cuts[group + 1] - cuts[group]), -starts[group])
                  for group in range(len(self.group_rows)) if cuts[group + 1] > cuts[group]}
        if not wanted:
            return self._guard(lambda: self._empty(columns))
        sparse = len(positions) * SPARSE_SHARE <= sum(self.group_rows[group] for group in wanted)
        taken = self._read_pages(wanted, columns) if sparse and self.format == "parquet" else {}
        rest = [group for group in wanted if group not in taken]
        tables = self._guard(lambda: self._read_groups(rest, columns)) if rest else []
        # a take per group: one across groups read as dictionaries first unifies them, 100 times slower
        for group, table in zip(rest, tables, strict=True):
            taken[group] = self._guard(lambda t=table, p=wanted[group]: self._in_file_types(compute.take_rows(t, p)))
        return pa.concat_tables([taken[group] for group in wanted])

    def _read_pages(self, wanted: dict[int, pa.Int64Array], columns: list[str]) -> dict[int, pa.Table]:
        """The wanted rows of the groups where they are few, read page by page (``parquet_pages``), in the
        file's types; a group whose pages cannot be read so is left out (read whole by the caller)."""
        groups = [g for g, rows in wanted.items() if len(rows) * SPARSE_SHARE <= self.group_rows[g]]  # type: ignore[index]
        footer = self._paged_footer() if groups else None
        if footer is None:
            return {}
        from fileindex.arrow import parquet_pages

        taken = {}
        for group in groups:
            try:
                paged = parquet_pages.read_rows(self._source, footer, group, wanted[group], columns)
                rest = [name for name, column in paged.items() if column is None]
                if len(rest) == len(columns):
                    continue
                file = self._reading([group], rest)[0] if rest else None
                whole = compute.take_rows(file.read_row_group(group, columns=rest, use_threads=_arrow_threads(rest)),
                                          wanted[group]) if file is not None else None
                # (the copied pages' types come from the Parquet schema alone, without Arrow's, hence the cast)
                taken[group] = compute.cast_table(pa.Table.from_arrays(
                    [whole.column(name) if column is None else column for name, column in paged.items()],  # type: ignore[union-attr]
                    names=columns), pa.schema([self.arrow_schema.field(c) for c in columns]))
            except (parquet_pages.Unreadable, pa.ArrowException, OSError, ValueError, KeyError, IndexError, TypeError):
                continue
        return taken

    def _paged_footer(self) -> parquet_pages.PagedFooter | None:
        """The footer as page reads need it, parsed once per file identity (None: not readable so)."""
        from fileindex.arrow import parquet_pages

        if not isinstance(self._source, str):
            return None  # (a file on a store: no descriptor to read pages by; its row groups are read in ranges)
        if self._footer.paged is None:
            try:
                parsed: parquet_pages.PagedFooter | bool = parquet_pages.PagedFooter.read(self._source)
            except (parquet_pages.Unreadable, OSError):
                parsed = False
            self._footer = replace(self._footer, paged=parsed)
            FOOTERS.put(self._identity, self._footer)
        found = self._footer.paged
        return found if isinstance(found, parquet_pages.PagedFooter) else None

    def _read_groups(self, groups: list[int], columns: list[str]) -> list[pa.Table]:
        """Each group's ``columns`` (Parquet's dictionary-only strings as dictionaries: ``_reading``)."""
        if self.format != "parquet":
            return [pa.Table.from_batches([self._file.read_stripe(g, columns=columns)]) for g in groups]
        file = self._reading(groups, columns)[0]
        with self._prefetching(groups, columns):
            return [self._whole(file.read_row_group(g, columns=columns, use_threads=_arrow_threads(columns)),
                                self._footer.group_rows[g], columns, g) for g in groups]  # type: ignore[index]

    def _reading(self, groups: range | list[int], columns: list[str]) -> tuple[Any, tuple[str, ...]]:
        """The ParquetFile to read ``columns`` of ``groups`` by, and the leaves it reads as dictionaries: the
        strings and bytes whose every data page there is dictionary-encoded (``page_encodings``), which the caller
        casts to the file's types (``_in_file_types``). Decoding a column's dictionary once a row group costs a
        third of building its strings page by page."""
        leaves = self._dictionary_leaves(groups, columns)
        if not leaves:
            return self._file, leaves
        file = self._dictionary_files.get(leaves)
        if file is None:
            file = self._dictionary_files[leaves] = self._open(self._footer.metadata, read_dictionary=list(leaves))
        return file, leaves

    def _dictionary_leaves(self, groups: range | list[int], columns: list[str]) -> tuple[str, ...]:
        metadata: Any = self._footer.metadata  # pyarrow.parquet.FileMetaData (a Parquet footer has one)
        schema = metadata.schema
        plain = {name for name in columns if _plain_strings(self.arrow_schema.field(name).type)}
        wanted = [i for i in range(metadata.num_columns) if _is_dictionary_candidate(schema.column(i), plain)]
        if not wanted or not groups:
            return ()
        chunks = self._dictionary_chunks()
        return tuple(schema.column(i).path for i in wanted
                     if all(g < len(chunks) and i < len(chunks[g]) and chunks[g][i] for g in groups))

    def _dictionary_chunks(self) -> DictionaryChunks:
        """Per row group and leaf, whether the footer says the chunk is dictionary-encoded only, once per file
        identity."""
        if self._footer.dictionary_chunks is None:
            self._footer = replace(self._footer, dictionary_chunks=self._decode_dictionary_chunks())
            FOOTERS.put(self._identity, self._footer)
        return self._footer.dictionary_chunks  # type: ignore[return-value]

    def _decode_dictionary_chunks(self) -> DictionaryChunks:
        """From the footer a page read decoded, else from the footer's bytes read again (pyarrow keeps no
        ``encoding_stats``); bytes that do not decode are a DataFileError at their byte in the file."""
        from fileindex.arrow import page_encodings

        if self._footer.paged:  # (a PagedFooter: parquet_pages, imported by the page read that decoded it)
            return page_encodings.decoded_dictionary_chunks(self._footer.paged.meta)  # type: ignore[union-attr]
        length = self._footer.metadata.serialized_size  # type: ignore[union-attr]
        start = self._input.size - 8 - length
        tail = self._input.read_range(start, length + 8)
        if tail[-4:] != b"PAR1" or int.from_bytes(tail[-8:-4], "little") != length:
            return ()  # (not the footer pyarrow parsed: no chunk is taken for dictionary-only)
        try:
            return page_encodings.dictionary_chunks(tail[:length])
        except DecodeError as err:
            raise DataFileError(f"{self.path}: the Parquet footer at byte {start + err.offset}: {err.message}") \
                from None

    def _in_file_types(self, table: Any) -> Any:
        """``table`` (or a record batch) with every column in the file's Arrow type (dictionaries read for speed
        decoded)."""
        return compute.cast_table(table, pa.schema([self.arrow_schema.field(name) for name in table.column_names]))

    def _empty(self, columns: list[str]) -> pa.Table:
        return scalars.empty_table(pa.schema([self.arrow_schema.field(c) for c in columns]))

    def _require(self, columns: list[str]) -> None:
        missing = [c for c in columns if c not in self.arrow_schema.names]
        if missing:
            raise DataFileError(f"{self.path}: no column {', '.join(map(repr, missing))} in the file")


def _arrow_threads(columns: list[str]) -> bool:
    """Should pyarrow decode these columns on its threads? Not one column (14 ms against 10 ms for a million
    BIGINTs), nor in a read running beside others (``parallel.reading_side_by_side``: those are the parallelism,
    and each handoff to pyarrow's threads is a wake-up that waits for a core on a busy machine)."""
    return len(columns) > 1 and not reading_side_by_side()


def chunk_ranges(metadata: Any, groups: Iterable[int], columns: list[str]) -> list[tuple[int, int]]:
    """The ``(offset, length)`` of the column chunks of ``columns`` (their leaves) in the row groups ``groups``
    of a Parquet footer (pyarrow's FileMetaData), as pyarrow reads a chunk: from its dictionary page, if any,
    to its last data page."""
    schema = metadata.schema
    leaves = [i for i in range(metadata.num_columns)
              if any(schema.column(i).path == name or schema.column(i).path.startswith(name + ".")
                     for name in columns)]
    found = []
    for group in groups:
        row_group = metadata.row_group(group)
        for leaf in leaves:
            chunk = row_group.column(leaf)
            start = chunk.data_page_offset
            if chunk.has_dictionary_page and 0 < chunk.dictionary_page_offset < start:
                start = chunk.dictionary_page_offset
            found.append((start, chunk.total_compressed_size))
    return found


def _open_named(path: str | Path) -> InputFile:
    """A data file named by a local path or a store's URI (reached as the caller's ``reaching`` says)."""
    if names_a_store(path):
        return open_location(os.fspath(path), "data file")
    return LOCAL.open_input(os.fspath(path), what="data file")


def _sniffed(opened: InputFile) -> str | None:
    magic = opened.read_range(0, 4)
    return "parquet" if magic == b"PAR1" else "orc" if magic[:3] == b"ORC" else None


def _plain_strings(arrow_type: pa.DataType) -> bool:
    """Whether a column of this Arrow type can be read as a dictionary and cast back: strings or bytes at the top
    (pyarrow reads no nested column as a dictionary into one chunk, and Arrow casts no dictionary to a view type)."""
    return any(test(arrow_type) for test in (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary,
                                             pa.types.is_large_binary))


def _is_dictionary_candidate(leaf, columns: set[str]) -> bool:
    """A Parquet leaf column, one of ``columns`` (top-level ones), that pyarrow can read as a dictionary of strings
    or bytes."""
    return leaf.physical_type == "BYTE_ARRAY" and leaf.logical_type.type in ("STRING", "NONE") and leaf.path in columns
