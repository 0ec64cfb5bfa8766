"""The streaming merge of one bucket of a primary-key table: its files' Arrow batches in, the merged rows out,
as Paimon 0.9.0's ``MergeFileSplitRead`` gives them (``sections`` says which files, raw or merged; ``functions``
how one key's records combine).

Each section's sorted runs are read a batch at a time. The rows that can be merged now are those below the
smallest "last key read" of the runs still being read (no run can bring another record of their keys); they
are emitted, merged, and the rest wait for the next batch of the run that set that bound. Memory is a batch or
two per sorted run, whatever the size of the bucket.

Merging is vectorised: the rows emitted are sorted by key and sequence (``_SEQUENCE_NUMBER`` after the
``sequence.field`` fields, nulls first), grouped by key; a key with one record is that record (dropped when a
retraction), a run's rows with strictly increasing keys skip the sort; deduplicate, first-row and plain
partial-update pick or combine values with numpy, aggregation folds every key's j-th records at once
(``columns``), and what remains (partial-update with sequence groups, listagg, ...) goes through
``functions.KeyMerger`` one key at a time.

Rows are checked as they stream: a null key, sequence number or row kind, a row kind outside 0..3, keys out of
order within a run, or a key emitted twice (files whose recorded key ranges are wrong) raise a TableError
naming the file and row, never a silently wrong merge.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from fileindex.errors import UsageError
from fileindex.merge.columns import aggregate_keys
from fileindex.merge.functions import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE, KeyMerger
from fileindex.merge.layout import SEQUENCE_NUMBER, VALUE_KIND, Key, KeyValueFile, key_column, read_columns
from fileindex.merge.sections import Run, Section, read_raw, scanned, sections
from fileindex.merge.spec import AGGREGATION, DEDUPLICATE, FIRST_ROW, PARTIAL_UPDATE, MergeSpec
from fileindex.table.errors import TableError
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
else:
    compute = LazyModule("fileindex.arrow.compute")

_RETRACTIONS = (UPDATE_BEFORE, DELETE)  # (not an array here: importing the module imports no numpy)


def merge_bucket(spec: MergeSpec, files: Sequence[KeyValueFile], columns: Sequence[str]) -> Iterator[pa.RecordBatch]:
    """The rows of one bucket as a batch scan reads them, as batches of ``columns`` (value columns of the
    table) in key order (a bucket read raw: file after file, by key range where the ranges are known).
    ``files``: the bucket's live files (those a scan's pruning kept); each file's batches hold the system
    columns and ``read_columns(spec, columns)``."""
    if spec.deletion_vectors:
        raise UsageError("a primary-key table with deletion vectors is read file by file with them, not merged")
    readable = scanned(spec, files)
    merge = _Merge(spec, list(columns))
    if read_raw(spec, readable) and all(f.min_key is not None for f in readable):
        # (in key order, so that each level is checked to hold a key once; files of unknown key ranges are
        # merged instead, with the same rows)
        for file in sorted(readable, key=lambda f: f.min_key or ()):
            yield from merge.raw(file)
        return
    for section in sections(readable):
        yield from merge.section(section)


@dataclass
class _Piece:
    """Rows of one sorted run, in key order: ``keys`` the key columns as they compare (see ``_comparable``)."""

    table: pa.Table
    keys: list[pa.Array]
    run: int
    strict: bool  # keys strictly increasing, from the run's rows before these too

    @property
    def last_key(self) -> Key:
        return _key_at(self.keys, self.table.num_rows - 1)

    def split(self, count: int) -> tuple[_Piece, _Piece]:
        return (_Piece(self.table.slice(0, count), [k.slice(0, count) for k in self.keys], self.run, self.strict),
                _Piece(self.table.slice(count), [k.slice(count) for k in self.keys], self.run, self.strict))


class _Merge:
    def __init__(self, spec: MergeSpec, columns: list[str]):
        self.spec = spec
        self.columns = columns
        self.value_columns = read_columns(spec, columns)
        self.key_names = [key_column(k) for k in spec.keys]
        self.merger = KeyMerger(spec, self.value_columns)
        self.types = spec.types()
        self.vector_partial = spec.engine == PARTIAL_UPDATE and not spec.groups and not spec.aggregates \
            and not spec.remove_record_on_delete
        self.previous: Key | None = None  # the last key emitted: every later key must be larger
        self.level_last: dict[int, Key] = {}  # read raw: each level's last key read (a level is a sorted run)
        self.where = ""  # the files being merged, for errors

    # -- reading -----------------------------------------------------------------------------------

    def raw(self, file: KeyValueFile) -> Iterator[pa.RecordBatch]:
        """A file read without a merge (files in key order): its rows that are not retractions. A level above 0
        is one sorted run, so its keys must strictly increase from file to file: a key read twice there (files
        whose key ranges overlap, or a file holding a key twice) would come out twice, an old version with the
        new."""
        offset = 0
        for batch in file.batches():
            table = pa.Table.from_batches([batch])
            kinds = _system(table, VALUE_KIND, file, offset)
            self._check_level_order(_key_columns(table, self.key_names, file, offset), file, offset)
            offset += table.num_rows
            keep = ~np.isin(kinds, _RETRACTIONS)
            out = self._out(table)
            yield from (out if keep.all() else compute.call("filter", out, compute.bool_array(keep))).to_batches()

    def _check_level_order(self, keys: list[pa.Array], file: KeyValueFile, offset: int) -> None:
        if not len(keys[0]):
            return
        _check_order(keys, file.name, offset, once=True)
        last = self.level_last.get(file.level)
        if last is not None and not _key_at(keys, 0) > last:
            raise TableError(f"{file.name}: row {offset} holds key {_key_at(keys, 0)!r}, not above {last!r} read "
                             f"before it on level {file.level}: files of a level above 0 hold disjoint key ranges")
        self.level_last[file.level] = _key_at(keys, len(keys[0]) - 1)

    def section(self, section: Section) -> Iterator[pa.RecordBatch]:
        self.where = ", ".join(f.name for f in section.files)
        runs = [_RunReader(run, number, self) for number, run in enumerate(section.runs)]
        pending: list[list[_Piece]] = [[] for _ in runs]
        active = []
        for reader in runs:
            piece = reader.next()
            if piece is not None:
                pending[reader.number].append(piece)
                active.append(reader)
        while active:
            bounding = min(active, key=lambda r: pending[r.number][-1].last_key)
            bound = pending[bounding.number][-1].last_key
            emitted = []
            for run_pieces in pending:
                while run_pieces:
                    below = _count_below(run_pieces[0].keys, bound)
                    if below == run_pieces[0].table.num_rows:
                        emitted.append(run_pieces.pop(0))
                        continue
                    if below:
                        head, run_pieces[0] = run_pieces[0].split(below)
                        emitted.append(head)
                    break
            yield from self._emit(emitted)
            piece = bounding.next()
            if piece is None:
                active.remove(bounding)
            else:
                pending[bounding.number].append(piece)
        yield from self._emit([p for run_pieces in pending for p in run_pieces])

    # -- merging -----------------------------------------------------------------------------------

    def _emit(self, pieces: list[_Piece]) -> Iterator[pa.RecordBatch]:
        """The merged rows of ``pieces``: every record of their keys (all below the bound, or the last ones)."""
        pieces = [p for p in pieces if p.table.num_rows]
        if not pieces:
            return
        first_key = min(_key_at(p.keys, 0) for p in pieces)
        if self.previous is not None and not first_key > self.previous:
            raise TableError(f"{self.where}: key {self.previous!r} comes back after the rows of larger keys: the "
                             "files' recorded key ranges or their key order are wrong")
        self.previous = max(p.last_key for p in pieces)
        if len({p.run for p in pieces}) == 1 and all(p.strict for p in pieces):
            table = pa.concat_tables([p.table for p in pieces]) if len(pieces) > 1 else pieces[0].table
            yield from self._singletons(table)
            return
        table = pa.concat_tables([p.table for p in pieces])  # (taken from in chunks: no copy of the window first)
        keys = [pa.concat_arrays([p.keys[i] for p in pieces]) for i in range(len(self.key_names))]
        yield from self._groups(_Sorted(table, keys, self._order(table, keys))).to_batches()

    def _singletons(self, table: pa.Table) -> Iterator[pa.RecordBatch]:
        """Rows of distinct keys: each its own row, unless a retraction."""
        kinds = compute.to_numpy(table.column(VALUE_KIND))
        keep = ~np.isin(kinds, _RETRACTIONS)
        out = self._out(table)
        yield from (out if keep.all() else compute.call("filter", out, compute.bool_array(keep))).to_batches()

    def _order(self, table: pa.Table, keys: list[pa.Array]) -> np.ndarray:
        """The rows' positions sorted by key, then the sequence fields (nulls first), then
        ``_SEQUENCE_NUMBER``; ties keep the order read."""
        columns = list(keys)
        for name in self.spec.sequence_fields:
            values = _comparable(table.column(name).combine_chunks())
            columns += [values.is_valid(), values]  # (false first: a null sequence field is the oldest)
        columns.append(table.column(SEQUENCE_NUMBER).combine_chunks())
        if all(_numeric(c) and not c.null_count for c in columns):
            return np.lexsort([compute.to_numpy(c) for c in reversed(columns)])
        sort = pa.table(columns, names=[f"c{i}" for i in range(len(columns))])
        return compute.to_numpy(pc.sort_indices(sort, sort_keys=[(name, "ascending") for name in sort.column_names]))

    def _groups(self, rows: _Sorted) -> pa.Table:
        """One row per key (the sorted rows of one key form a group), by the engine."""
        starts, sizes, add = rows.starts, rows.sizes, rows.add
        n = len(rows.order)
        positions = np.arange(n)
        engine = self.spec.engine
        if engine == DEDUPLICATE:
            if self.spec.ignore_delete:
                picks = np.maximum.reduceat(np.where(add, positions, -1), starts)
                return self._take(rows, picks[picks >= 0])
            picks = starts + sizes - 1
            return self._take(rows, picks[add[picks]])
        if (engine == FIRST_ROW or self.vector_partial) and not self.spec.ignore_delete:
            retracting = (np.add.reduceat((~add).astype(np.int64), starts) > 0) & (sizes > 1)
            if retracting.any():
                group = int(np.flatnonzero(retracting)[0])
                self.merger.merge(self._records(rows, starts[group], sizes[group]))  # raises Java's error
        if engine == FIRST_ROW:
            picks = np.minimum.reduceat(np.where(add, positions, n), starts)
            return self._take(rows, picks[picks < n])
        if self.vector_partial:
            return self._last_non_null(rows)
        assert engine in (PARTIAL_UPDATE, AGGREGATION)
        return self._by_key(rows)

    def _take(self, rows: _Sorted, picks: np.ndarray) -> pa.Table:
        """The rows at sorted positions ``picks``."""
        return compute.take_rows(self._out(rows.table), rows.order[picks])

    def _out(self, table: pa.Table) -> pa.Table:
        """``columns`` of ``table``, every field nullable (a merged row may hold nulls the records' did not)."""
        columns = table.select(self.columns)
        schema = pa.schema([f.with_nullable(True) for f in columns.schema])
        return columns if schema == columns.schema else pa.Table.from_arrays(columns.columns, schema=schema)

    def _last_non_null(self, rows: _Sorted) -> pa.Table:
        """Plain partial-update: per column the last non-null value of the key's records that are not
        retractions (a key with one record: that record, dropped when a retraction)."""
        starts, add = rows.starts, rows.add
        positions = np.arange(len(rows.order))
        single = rows.sizes == 1
        kept = ~single | add[starts]
        out = self._out(rows.table)
        arrays = []
        for column in out.columns:
            nulls = compute.to_numpy(compute.call("is_null", column))[rows.order]
            last = np.maximum.reduceat(np.where(add & ~nulls, positions, -1), starts)
            source = np.where(single, starts, last)[kept]
            arrays.append(compute.call("take", column, compute.from_numpy(rows.order[np.maximum(source, 0)], pa.int64(),
                                                                          mask=source < 0)))
        return pa.Table.from_arrays(arrays, schema=out.schema)

    def _by_key(self, rows: _Sorted) -> pa.Table:
        """Keys with one record as they are; keys with several by the engine: aggregation field by field for
        all of them at once where ``columns.aggregate_keys`` can, the rest through the reference merge, key by
        key (their records taken out of Arrow together)."""
        starts, sizes, add = rows.starts, rows.sizes, rows.add
        single = sizes == 1
        simple = single & add[starts]
        groups = np.flatnonzero(~single)
        out = self._take(rows, starts[simple])
        if not len(groups):
            return out
        positions = np.flatnonzero(np.repeat(~single, sizes))  # (the sorted rows of those keys, in order)
        records = compute.take_rows(rows.table, rows.order[positions])
        counts = sizes[groups]
        firsts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        merged: dict[str, pa.Array] = {}  # an array per output column: a value per key kept
        if self.spec.engine == AGGREGATION:
            aggregates = self.spec.aggregate_of()
            for name in self.columns:
                found = aggregate_keys(aggregates[name], self.types[name], records.column(name).combine_chunks(),
                                       firsts, counts, add[positions])
                if found is not None:
                    merged[name] = found  # (an aggregation keeps every key)
        kept = np.ones(len(groups), dtype=bool)
        rest = [name for name in self.value_columns if name not in merged]
        if any(name in self.columns for name in rest):
            merger = KeyMerger(self.spec, rest)
            kinds = records.column(VALUE_KIND).to_pylist()
            values = list(zip(*(_python(records.column(name).combine_chunks()) for name in rest), strict=True))
            found_rows = []
            for number, (first, count) in enumerate(zip(firsts.tolist(), counts.tolist(), strict=True)):
                row = merger.merge(list(zip(kinds[first:first + count], values[first:first + count], strict=True)))
                kept[number] = row is not None
                if row is not None:
                    found_rows.append(row)
            merged.update(self._rows_table(rows.table, found_rows, rest))
        merged_table = pa.Table.from_arrays([merged[name] for name in self.columns], schema=out.schema)
        out = pa.concat_tables([out, merged_table])
        order = np.concatenate([np.flatnonzero(simple), groups[kept]])
        return compute.take_rows(out, np.argsort(order, kind="stable"))

    def _records(self, rows: _Sorted, start: int, count: int) -> list[tuple[int, list]]:
        """The records of the group at sorted positions ``start`` on, in order."""
        records = compute.take_rows(rows.table, rows.order[start:start + count])
        kinds = records.column(VALUE_KIND).to_pylist()
        values = [_python(records.column(name).combine_chunks()) for name in self.value_columns]
        return [(kinds[i], [column[i] for column in values]) for i in range(count)]

    def _rows_table(self, table: pa.Table, rows: list[list], names: list[str]) -> dict[str, pa.Array]:
        """The output columns among ``names`` of merged ``rows`` (values in ``names`` order), in their types."""
        arrays = {}
        for position, name in enumerate(names):
            if name in self.columns:
                target = table.schema.field(name).type
                arrays[name] = pa.array([row[position] for row in rows], type=_storage(target)).cast(target)
        return arrays


class _Sorted:
    """Rows read in runs, with ``order`` their positions sorted by key and sequence, and the groups of one key
    in that order: ``starts`` (sorted positions), ``sizes``, and ``add`` whether each sorted row is not a
    retraction."""

    def __init__(self, table: pa.Table, keys: list[pa.Array], order: np.ndarray):
        self.table = table
        self.order = order
        n = len(order)
        new = np.zeros(n, dtype=bool)
        if n:
            new[0] = True
        for key in keys:
            if n > 1:
                ordered = compute.to_numpy(key)[order] if _numeric(key) else \
                    compute.call("take", key, compute.int64_array(order))
                new[1:] |= _differs(ordered)
        self.starts = np.flatnonzero(new)
        self.sizes = np.diff(np.append(self.starts, n))
        kinds = compute.to_numpy(table.column(VALUE_KIND))[order]
        self.add = (kinds == INSERT) | (kinds == UPDATE_AFTER)


class _RunReader:
    """A sorted run's rows, a batch at a time, across its files; checked to be in key order."""

    def __init__(self, run: Run, number: int, merge: _Merge):
        self.number = number
        self.merge = merge
        self.files = iter(run)
        self.batches: Iterator[pa.RecordBatch] = iter(())
        self.file: KeyValueFile | None = None
        self.offset = 0  # rows of the current file before the batch
        self.last: Key | None = None

    def next(self) -> _Piece | None:
        while True:
            batch = next(self.batches, None)
            if batch is None:
                self.file = next(self.files, None)
                if self.file is None:
                    return None
                self.batches, self.offset = self.file.batches(), 0
                continue
            if batch.num_rows:
                piece = self._piece(batch)
                self.offset += batch.num_rows
                return piece

    def _piece(self, batch: pa.RecordBatch) -> _Piece:
        merge, file = self.merge, self.file
        assert file is not None
        table = pa.Table.from_batches([batch])
        keys = _key_columns(table, merge.key_names, file, self.offset)
        for name in (VALUE_KIND, SEQUENCE_NUMBER):
            _system(table, name, file, self.offset)
        strict = _check_order(keys, f"{file.name}", self.offset)
        first = _key_at(keys, 0)
        if self.last is not None:
            if first < self.last:
                raise TableError(f"{file.name}: row {self.offset} has a smaller key than the rows before it in its "
                                 "sorted run: the files' recorded key ranges or their key order are wrong")
            strict = strict and first > self.last
        piece = _Piece(table, keys, self.number, strict)
        self.last = piece.last_key
        return piece


# -- columns as the merge compares them ------------------------------------------------------------------

def _storage(arrow_type: pa.DataType) -> pa.DataType:
    """The type a column's values are compared and merged as: temporal types as their integers."""
    if pa.types.is_timestamp(arrow_type) or pa.types.is_date64(arrow_type) or pa.types.is_time64(arrow_type):
        return pa.int64()
    if pa.types.is_date32(arrow_type) or pa.types.is_time32(arrow_type):
        return pa.int32()
    if pa.types.is_dictionary(arrow_type):
        return _storage(arrow_type.value_type)
    return arrow_type


def _comparable(array: pa.Array) -> pa.Array:
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    storage = _storage(array.type)
    return array if storage == array.type else array.cast(storage)


def _python(array: pa.Array) -> list:
    return _comparable(array).to_pylist()


def _key_at(keys: list[pa.Array], row: int) -> Key:
    return tuple(k[row].as_py() for k in keys)


def _numeric(array: pa.Array) -> bool:
    return pa.types.is_integer(array.type)


def _count_below(keys: list[pa.Array], bound: Key) -> int:
    """How many rows of sorted ``keys`` are below ``bound``."""
    if len(keys) == 1 and _numeric(keys[0]):
        return int(np.searchsorted(compute.to_numpy(keys[0]), bound[0], side="left"))
    return bisect.bisect_left(range(len(keys[0])), bound, key=lambda row: _key_at(keys, row))


def _differs(values: np.ndarray | pa.Array) -> np.ndarray:
    """Whether each value but the first differs from the one before it."""
    if isinstance(values, np.ndarray):
        return values[1:] != values[:-1]
    return _not_equal(values.slice(1), values.slice(0, len(values) - 1))


def _not_equal(a: pa.Array, b: pa.Array) -> np.ndarray:
    if _numeric(a):
        return compute.to_numpy(a) != compute.to_numpy(b)
    return compute.to_numpy(compute.fill_null(pc.not_equal(a, b), False))


def _less(a: pa.Array, b: pa.Array) -> np.ndarray:
    if _numeric(a):
        return compute.to_numpy(a) < compute.to_numpy(b)
    return compute.to_numpy(compute.fill_null(pc.less(a, b), False))


def _check_order(keys: list[pa.Array], name: str, offset: int, *, once: bool = False) -> bool:
    """Whether the rows' keys strictly increase; a TableError where one is smaller than the one before (``once``:
    or equal to it)."""
    n = len(keys[0])
    if n < 2:
        return True
    less = np.zeros(n - 1, dtype=bool)
    equal = np.ones(n - 1, dtype=bool)
    for key in keys:
        before, after = key.slice(0, n - 1), key.slice(1)
        less |= equal & _less(before, after)
        equal &= ~_not_equal(before, after)
    if not (less | equal).all():
        row = int(np.flatnonzero(~(less | equal))[0]) + 1
        raise TableError(f"{name}: row {offset + row} has a smaller key than row {offset + row - 1}: a key-value "
                         "file is sorted by key")
    if once and equal.any():
        row = int(np.flatnonzero(equal)[0]) + 1
        raise TableError(f"{name}: row {offset + row} repeats the key of row {offset + row - 1}: a key-value file "
                         "holds a key once")
    return bool(less.all())


def _key_columns(table: pa.Table, names: list[str], file: KeyValueFile, offset: int) -> list[pa.Array]:
    """The key columns of a file's rows, as they compare; a TableError naming the row where one is null."""
    keys = []
    for name in names:
        column = table.column(name).combine_chunks()
        if column.null_count:
            raise TableError(f"{file.name}: a null {name} at row {offset + _first_null(column)}: a key field is "
                             "never null")
        keys.append(_comparable(column))
    return keys


def _system(table: pa.Table, name: str, file: KeyValueFile, offset: int) -> np.ndarray:
    """A system column's values; a TableError naming the row where one is null, or a row kind is not one."""
    column = table.column(name).combine_chunks()
    if column.null_count:
        raise TableError(f"{file.name}: a null {name} at row {offset + _first_null(column)}")
    values = compute.to_numpy(column)
    if name == VALUE_KIND and ((values < INSERT) | (values > DELETE)).any():
        row = int(np.flatnonzero((values < INSERT) | (values > DELETE))[0])
        raise TableError(f"{file.name}: row {offset + row}: {VALUE_KIND} {values[row]} is not a row kind "
                         "(0 +I, 1 -U, 2 +U, 3 -D)")
    return values


def _first_null(array: pa.Array) -> int:
    return int(np.flatnonzero(compute.to_numpy(compute.call("is_null", array)))[0])
