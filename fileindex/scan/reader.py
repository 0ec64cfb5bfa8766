"""An index-pruned scan of one data file: what its index keeps, and reading just those rows.

:func:`evaluate_file` answers the predicate with the file's index exactly as ``fileindex table`` and
``fileindex query`` do (a missing or unreadable index keeps the whole file, with a note);
:func:`read_candidates` reads the kept rows, minus deleted ones, in the output schema (a table's
current schema, columns matched by field id; missing columns of older files as nulls), and
:func:`read_matching` those of them that may satisfy the predicate, reading its columns first.
"""
from __future__ import annotations

from fileindex.frozen import replace
from typing import TYPE_CHECKING, cast

import pyarrow as pa
from pyroaring import BitMap, FrozenBitMap

from fileindex.arrow import scalars
from fileindex.arrow.types import arrow_type
from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes import roaring
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.io.staleness import stale_index_note
from fileindex.scan.funnel import FileRead, merged_by_key
from fileindex.scan.task import DataFileTask, Inputs, open_error
from fileindex.scan.truth import filtered, kept_mask, source_columns
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import closest_column
from fileindex.predicate.tree import Predicate, columns
from fileindex.scan.verdicts import MAX_INDEXED_ROWS, index_problem, within_all
from fileindex.table.verdict import FileVerdict
from fileindex.types import DataType, column_type
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
    from fileindex.arrow.data_files import DataFileReader
    from fileindex.scan.table import PaimonTable
else:
    compute = LazyModule("fileindex.arrow.compute")  # (pyarrow._compute: imported by the first filter)


def scannable(inputs: Inputs) -> list[DataFileTask]:
    """The tasks a file-by-file read plans (table spec §5): what a primary-key table with deletion vectors
    reads is its compacted (level > 0) files; other primary-key tables need merging, refused here (the
    planner reads them by bucket)."""
    table = inputs.table
    if table is None:
        return inputs.tasks
    refuse_unscannable(table)
    if merged_by_key(table):
        raise UsageError(f"{table.root}: a primary-key table without deletion vectors cannot be read file by "
                         "file (its rows need merging by key); read it with fileindex read or PaimonTable.scan")
    if table.schema.primary_keys:
        from fileindex.merge.sections import refuse_unmerged_misreads

        compacted = [task for task in inputs.tasks if task.table_entry().level > 0]
        refuse_unmerged_misreads(table.schema, [task.table_entry() for task in compacted], str(table.root))
        return compacted
    return inputs.tasks


def refuse_unscannable(table: PaimonTable) -> None:
    """A UsageError for a table whose rows the planner's reads cannot give (from its schema alone): a merge
    engine or option of a primary-key table that is not implemented here, a data-evolution table."""
    if table.schema.primary_keys:
        from fileindex.merge.spec import merge_engine, merge_spec

        try:  # (a deletion-vector table's compacted files are read unmerged: of its merge, only the engine matters)
            merge_spec(table.schema) if merged_by_key(table) else merge_engine(table.schema)
        except UsageError as err:
            raise UsageError(f"{table.root}: {err}") from None
    if table.data_evolution:
        raise UsageError(f"{table.root}: a data-evolution table spreads a row's columns over several files; "
                         "scanning it is not supported (verify and fileindex table are)")


def evaluate_file(task: DataFileTask, predicate: Predicate, *, extended: bool = False,
                  exact: bool = False) -> FileVerdict:
    """The file's verdict from its index; ``exact`` (a table's file): saying whether its rows are exactly the
    matching ones (a plain data file's never is)."""
    if task.table is not None:
        verdict = task.table.verdict(task.table_entry(), predicate, task.vector, extended=extended, exact=exact)
        return verdict if verdict.file == task.name else replace(verdict, file=task.name)  # (most: no copy)
    try:
        reader = task.open()
    except FileIndexError as err:
        return FileVerdict(task.name, 0, "none", REMAIN, f"data file: {open_error(err)}")
    try:
        where, container, note = task.container()
    except (FileIndexError, OSError) as err:
        return FileVerdict(task.name, reader.row_count, "sidecar", REMAIN, f"corrupt index: {open_error(err)}")
    if container is not None and not note:
        note = stale_index_note(task.path, task.sidecar_path()) or ""
    if container is None or note or reader.row_count > MAX_INDEXED_ROWS:
        return FileVerdict(task.name, reader.row_count, where, REMAIN, note)
    try:
        result = FileIndexEvaluator(task.types(reader), extended=extended).evaluate(container, predicate,
                                                                                    row_count=reader.row_count)
    except FileIndexError as err:
        return FileVerdict(task.name, reader.row_count, where, REMAIN, index_problem(err))
    return FileVerdict(task.name, reader.row_count, where, within_all(result, reader.row_count))


def selection(verdict: FileVerdict, deleted: FrozenBitMap | None) -> np.ndarray | None:
    """Ascending row positions to read (None: every row), as a numpy array."""
    rows = selected_rows(verdict, deleted)
    return None if rows is None else compute.to_numpy(rows)


def selected_rows(verdict: FileVerdict, deleted: FrozenBitMap | None) -> pa.Int64Array | None:
    """:func:`selection` as an Arrow array, read from the bitmap's buffer: a read of an index's rows imports no
    numpy (``fileindex.cli.unimported``)."""
    if verdict.result is SKIP:
        return scalars.array([], pa.int64())
    if isinstance(verdict.result, Rows):
        rows = roaring.mutable(verdict.result.bitmap)
    elif deleted:
        rows = BitMap(range(verdict.row_count))
    else:
        return None
    if deleted:
        rows -= deleted
    listed = rows.to_array()  # (uint32, in an array.array)
    return compute.int64_array(pa.Array.from_buffers(pa.uint32(), len(listed), [None, pa.py_buffer(listed)]))


def rows_to_read(verdict: FileVerdict, deleted: FrozenBitMap | None) -> int:
    """How many rows :func:`selection` selects, counted on the bitmaps (no position is listed)."""
    if verdict.result is SKIP:
        return 0
    if isinstance(verdict.result, Rows):
        kept = verdict.result.bitmap
        return len(kept) - (kept.intersection_cardinality(deleted) if deleted else 0)
    return verdict.row_count - (deleted.range_cardinality(0, verdict.row_count) if deleted else 0)


def output_schema(inputs: Inputs, first_file_schema: pa.Schema | None = None) -> pa.Schema:
    """A table's current schema in Arrow, or (plain files) the first file's schema."""
    if inputs.table is None:
        return first_file_schema
    fields = []
    for field in inputs.table.schema.fields:
        try:
            fields.append(pa.field(field.name, arrow_type(field.type), nullable=field.type.nullable))
        except UsageError:
            raise UsageError(f"column {field.name!r} of type {field.type} has no Arrow type to read it as") from None
    return pa.schema(fields)


def selected_schema(schema: pa.Schema, columns: list[str], predicate: Predicate) -> pa.Schema:
    """The columns a scan selecting ``columns`` reads: those, then the predicate's for the exact filter.
    An unknown or repeated name, or none, is a UsageError."""
    if not columns:
        raise UsageError("select at least one column")
    for name in columns:
        if name not in schema.names:
            raise UsageError(f"cannot select unknown column {name!r}"
                             f"{closest_column(name, schema.names, as_written=True)}")
    if len(set(columns)) < len(columns):
        raise UsageError(f"a column is selected twice: {', '.join(columns)}")
    wanted = list(dict.fromkeys([*columns, *source_columns(predicate, schema.names)]))
    return pa.schema([schema.field(name) for name in wanted])


def read_candidates(task: DataFileTask, rows: np.ndarray | pa.Array | None, schema: pa.Schema,
                    reader: DataFileReader | None = None,
                    held: dict[str, tuple[str, DataType | None]] | None = None) -> pa.Table:
    """The rows of the file (positions ascending, None: all), shaped as ``schema``; ``reader``: the file opened
    already (by ``task.open``); ``held``: :func:`file_columns` of the file for ``schema``'s columns (or more),
    where the caller has it."""
    reader = reader or task.open()
    if held is None:
        held = file_columns(task, reader, schema.names)
    wanted = set(schema.names)  # (a pyarrow schema's names is a new list at each use)
    names = {name: stored for name, (stored, _) in held.items() if name in wanted}
    table = reader.read_rows(rows, list(dict.fromkeys(names.values())))
    # a read of no column (all of them added after the file was written) counts no rows in ORC
    count = table.num_rows if names else reader.row_count if rows is None else len(rows)
    columns = []
    for field in schema:
        if field.name in names:
            column = table.column(names[field.name])
            columns.append(reader.cast(column, names[field.name], field.type))
        else:
            columns.append(pa.nulls(count, type=field.type))
    return pa.Table.from_arrays(columns, schema=schema)


def file_columns(task: DataFileTask, reader: DataFileReader,
                 names: list[str]) -> dict[str, tuple[str, DataType | None]]:
    """Of the columns ``names`` (a table's, or a plain file's), those the file holds: each one's name in the file
    and the type of its values there (None: a plain file's, not known here)."""
    stored = set(reader.arrow_schema.names)
    if task.table is None:
        return {name: (name, None) for name in names if name in stored}
    # by field id: a renamed column keeps its id; one added later is absent from older files
    by_id = task.table.data_schema(task.table_entry()).by_id()
    asked = set(names)
    return {f.name: (by_id[f.id].name, by_id[f.id].type) for f in task.table.schema.fields
            if f.name in asked and f.id in by_id and by_id[f.id].name in stored}


def read_verdict(task: DataFileTask, verdict: FileVerdict, schema: pa.Schema, predicate: Predicate | None,
                 types: dict, *, exact: bool = False, probe: bool = True) -> pa.Table:
    """The rows of the file the verdict keeps (deleted rows left out) that may satisfy ``predicate``, the
    engine filtering exactly afterwards; with ``exact``, filtered here as :func:`read_matching` filters.

    A row set from the index is usually tight already: it is read whole (every column at once). Probing
    the predicate's columns first pays off only where the index kept the whole file (a bloom filter, or
    no index), and only for a selective predicate: without ``probe`` (a caller that saw most rows match),
    every column is read at once and filtered.
    """
    rows = selected_rows(verdict, task.deleted_rows())
    if not isinstance(verdict.result, Rows) and probe and predicate is not None:
        return read_matching(task, rows, schema, predicate, types)
    table = read_candidates(task, rows, schema, task.open(whole=fetched_whole(task, rows, schema)))
    if not exact or predicate is None or names_nanos(predicate, types):
        return table
    return filtered(table, predicate, types)


# on an object store, a file of at most WHOLE_FILE_BYTES is fetched whole as it is opened (one GET, not a footer's
# then its chunks') where every column is read and at least one row in WHOLE_FILE_SHARE: rows that many spread
# over a file lie on each of its pages, and a store reads the row groups holding them whole anyway
WHOLE_FILE_BYTES = 64 << 20
WHOLE_FILE_SHARE = 64


def fetched_whole(task: DataFileTask, rows: pa.Array | None, schema: pa.Schema) -> bool:
    """Should the read of ``rows`` (None: all) of ``schema``'s columns fetch the file whole (see above)?"""
    table = task.table
    if table is None or not table.store.remote:
        return False
    entry = task.table_entry()
    selected = entry.row_count if rows is None else len(rows)
    return (0 < (entry.file_size or 0) <= WHOLE_FILE_BYTES and selected * WHOLE_FILE_SHARE >= entry.row_count
            and set(schema.names) >= {field.name for field in table.schema.fields})


def read_file(item: FileRead, schema: pa.Schema, predicate: Predicate | None, types: dict, *,
              exact: bool = False, probe: bool = True) -> pa.Table:
    """The rows of one planned file read (``read_verdict`` of its verdict), the per-file reader the Python
    reader and both Spark paths share. A file whose index the planner left to the reading task (its verdict
    None) has it evaluated here first: no row when the index rules the file out."""
    task, verdict = item.task, item.verdict
    assert task is not None  # (the planner's reads carry their task)
    if item.merge is not None:  # a primary-key bucket: its files merged by key, then filtered
        from fileindex.scan.primary_keys import read_bucket_whole

        return read_bucket_whole(item, schema, predicate, types)
    if verdict is None:
        verdict = evaluate_file(task, cast(Predicate, predicate))
        if verdict.result is SKIP:
            return scalars.empty_table(schema)
    return read_verdict(task, verdict, schema, predicate, types, exact=exact, probe=probe)


DENSE_SURVIVORS = 4  # a probe that keeps more than a quarter of its rows reads the other columns whole


def read_matching(task: DataFileTask, rows: np.ndarray | pa.Array | None, schema: pa.Schema,
                  predicate: Predicate | None, types: dict) -> pa.Table:
    """The candidate rows that may satisfy ``predicate`` (already widened for the engine's semantics).

    Late materialization: the predicate's columns are read first, and the other columns only for the
    rows that satisfy it (in the row groups that still hold one). The engine applies its exact filter
    afterwards; dropping rows here only saves reading and converting them. Without a usable predicate:
    every candidate row. Not for timestamps finer than microseconds, which engines truncate on read.
    """
    if predicate is None or names_nanos(predicate, types):
        return read_candidates(task, rows, schema)
    wanted = [name for name in source_columns(predicate, schema.names) if name in schema.names]
    reader = task.open()
    held = file_columns(task, reader, schema.names)  # (mapped by field id once for the file)
    rows = _on_admitted_pages(reader, rows, {name: held[name] for name in wanted if name in held}, predicate, types)
    if rows is not None and not len(rows):
        return scalars.empty_table(schema)
    probe = read_candidates(task, rows, pa.schema([schema.field(name) for name in wanted]), reader, held)
    mask = kept_mask(probe, predicate, types)
    kept = compute.filter_rows(probe, mask)
    if not kept.num_rows:  # (most files a bloom filter keeps: no other column is read)
        return scalars.empty_table(schema)
    rest = pa.schema([field for field in schema if field.name not in wanted])
    if not len(rest):
        others = kept
    elif kept.num_rows * DENSE_SURVIVORS > len(mask):  # most rows match: a plain read and a filter beat a take
        others = compute.filter_rows(read_candidates(task, rows, rest, reader, held), mask)
    else:
        survivors = compute.call("indices_nonzero", mask) if rows is None else \
            compute.call("filter", compute.int64_array(rows), mask)
        others = read_candidates(task, survivors, rest, reader, held)
    return pa.Table.from_arrays([(kept if field.name in wanted else others).column(field.name) for field in schema],
                                schema=schema)


def _on_admitted_pages(reader: DataFileReader, rows: pa.Int64Array | None,
                       wanted: dict[str, tuple[str, DataType | None]], predicate: Predicate,
                       types: dict) -> pa.Int64Array | None:
    """``rows`` narrowed to the pages whose column indexes admit ``predicate`` (``page_pruning``), where that
    leaves few of them; else ``rows``. ``wanted``: the predicate's columns the file holds (:func:`file_columns`).
    A column the file holds under another type than the predicate's is not narrowed by."""
    from fileindex.scan.page_pruning import admitted_rows

    columns = {name: (stored, found or typed) for name, (stored, found) in wanted.items()
               if (typed := column_type(types, name)) is not None
               and (found is None or found.not_null() == typed.not_null())}
    narrowed = admitted_rows(reader, columns, predicate, None if rows is None else compute.int64_array(rows))
    return rows if narrowed is None else narrowed


def names_nanos(predicate: Predicate, types: dict) -> bool:
    """Does the predicate name a timestamp finer than microseconds (which engines truncate on read)?"""
    return any(_finer_than_micros(column_type(types, c)) for c in columns(predicate))


def _finer_than_micros(data_type: DataType | None) -> bool:
    return data_type is not None and data_type.is_nano_timestamp
