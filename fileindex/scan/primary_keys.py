"""Primary-key tables without deletion vectors, planned and read by bucket (``docs/guide/primary-keys.md``).

A row of such a table is merged from the records of its key in every file of its bucket, so the planner's
unit is the bucket: after the partition and bucket stages, :func:`plan_buckets` decides each bucket's files
by Java's rules (``merge.pruning.prune_bucket``: key statistics per file, values by whole bucket where its
files overlap) and yields one :class:`FileRead` per kept bucket, its first kept file's, carrying the bucket's
kept files (``group``) and the merge (``merge``); its other files are ``merged`` into it. :func:`read_bucket`
streams the bucket: each file opened through the store, its columns mapped by field id to the table's
current names, the files merged by key (``merge.reader.merge_bucket``), then the exact filter on the merged
rows (never before the merge). One read per bucket keeps the merge inside one task (Spark).
"""
from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, cast

import pyarrow as pa

from fileindex.arrow import scalars
from fileindex.arrow.data_files import DataFileReader
from fileindex.arrow.types import arrow_type
from fileindex.indexes.result import SKIP, Rows
from fileindex.merge.layout import SEQUENCE_NUMBER, VALUE_KIND, key_column, key_value_file, read_columns
from fileindex.merge.pruning import (
    FILE_INDEX,
    KEY_STATISTICS,
    LEVEL,
    MERGED_VALUES,
    NO_PREDICATE,
    VALUE_STATISTICS,
    WHOLE_BUCKET,
    FileDecision,
    embedded_index_test,
    key_predicate,
    key_statistics_test,
    prune_bucket,
    value_statistics_test,
)
from fileindex.merge.spec import DEDUPLICATE, MergeSpec, merge_spec
from fileindex.parallel import side_by_side
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, and_
from fileindex.scan.funnel import NO_PREDICATE as NO_WHERE
from fileindex.scan.funnel import FileRead, Stage, index_of, skipped, without_index
from fileindex.scan.page_pruning import group_spans
from fileindex.scan.task import DataFileTask
from fileindex.scan.truth import filtered, matches, python_values
from fileindex.table.metadata import TableError
from fileindex.table.statistics import KnownBounds
from fileindex.table.verdict import FileVerdict
from fileindex.types import INTEGERS, DataType
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
    from fileindex.scan.table import PaimonTable
else:
    compute = LazyModule("fileindex.arrow.compute")

BATCH_ROWS = 65536  # a sorted run's rows read at a time (the merge holds a batch or two per run)
SELECTIVE = 4  # a key filter keeping less than a quarter of a file's records reads the keys first
# the stages of a bucket's pruning, in the order the funnel shows them (a file is dropped by one rule)
RULE_STAGES = ((LEVEL, "level"), (KEY_STATISTICS, "key_statistics"), (VALUE_STATISTICS, "value_statistics"),
               (FILE_INDEX, "file_index"), (WHOLE_BUCKET, "whole_bucket"))


def plan_buckets(table: PaimonTable, predicate: Predicate | None, alive: list[DataFileTask],
                 files: list[FileRead], stages: list[Stage]) -> list[FileRead]:
    """The reads of the buckets of ``alive`` (the files the partition and bucket stages left), one per kept
    bucket; every file ``prune_bucket`` drops goes to ``files`` as skipped by its rule's stage, and the
    stages' counts to ``stages``."""
    spec = merge_spec(table.schema)  # (an engine or option not implemented here: refused in one line)
    verdicts: dict[tuple, FileVerdict] = {}  # the sidecars' verdicts the pruning asked (for the candidate keys)
    tests = {} if predicate is None else {
        "key_test": key_statistics_test(spec, predicate),
        "value_test": value_statistics_test(table.schema, table.data_schema, predicate),
        "index_test": _index_test(table, predicate, verdicts)}
    buckets: dict[tuple[bytes, int], list[DataFileTask]] = {}
    for task in alive:
        entry = task.table_entry()
        buckets.setdefault((entry.partition, entry.bucket), []).append(task)
    reads: list[FileRead] = []
    dropped: dict[str, list[DataFileTask]] = {}
    for tasks in buckets.values():
        decisions = prune_bucket(spec, [task.table_entry() for task in tasks], **tests)
        kept = [(task, decision) for task, decision in zip(tasks, decisions, strict=True) if decision.kept]
        for task, decision in zip(tasks, decisions, strict=True):
            if not decision.kept:
                stage = dict(RULE_STAGES)[decision.rule]
                files.append(skipped(task, stage, f"{decision.rule}: {decision.reason}"))
                dropped.setdefault(stage, []).append(task)
        if kept:
            candidates = _candidate_records(table, spec, predicate, [task for task, _ in kept], verdicts)
            reads += _bucket_reads(spec, kept, candidates)
    _count_stages(spec, predicate, alive, dropped, stages)
    return reads


def _index_test(table: PaimonTable, predicate: Predicate,
                verdicts: dict[tuple, FileVerdict]) -> Callable[[ManifestEntry], bool]:
    """A file's index against ``predicate``: its embedded index as Java's scan asks it, and (beyond Java, which
    opens no sidecar when planning) its sidecar, whose verdict goes to ``verdicts``: sound alike, as either only
    says which of the file's records may match, and the whole-bucket rule drops a bucket only when none of its
    files may."""
    embedded = embedded_index_test(table.schema, table.data_schema, predicate)

    def may_match(entry: ManifestEntry) -> bool:
        if entry.embedded_index is not None or not entry.index_files:
            return embedded(entry)
        verdict = verdicts[_file_key(entry)] = table.verdict(entry, predicate)
        return verdict.result is not SKIP

    return may_match


def _file_key(entry: ManifestEntry) -> tuple:
    return entry.partition, entry.bucket, entry.file_name


def _bucket_reads(spec: MergeSpec, kept: list[tuple[DataFileTask, FileDecision]],
                  candidates: tuple[tuple[Rows | None, ...] | None, str]) -> list[FileRead]:
    """The read of one bucket (its first kept file's, carrying them all, and its candidate records: see
    :func:`_candidate_records`) and a ``merged`` entry per other file."""
    group = tuple(task for task, _ in kept)
    records = sum(task.table_entry().row_count for task in group)
    first, decision = kept[0]
    merged = f"its bucket's {len(group)} files merged by key" if len(group) > 1 else "its records merged by key"
    rows, how = candidates
    if decision.rule == MERGED_VALUES and rows is None:  # (the engine's reason to merge whole: said once)
        how = ", every key"
    reads = [FileRead(first.name, first.table_entry().row_count, index_of(first), "all", records,
                      f"{_kept_reason(decision)}; {merged}{how}", None, first, None, group,
                      external=first.is_external, merge=spec, candidates=rows)]
    # the reason is said once per bucket, on its first file: a file kept for another reason says its own
    reads += [FileRead(task.name, task.table_entry().row_count, index_of(task), "merged", 0,
                       (f"{_kept_reason(other)}; " if _kept_reason(other) != _kept_reason(decision) else "")
                       + f"merged into {first.name}", None, task, external=task.is_external, merge=spec)
              for task, other in kept[1:]]
    return reads


def _kept_reason(decision: FileDecision) -> str:
    """Why a file was kept; without a predicate, in the words of an append table's funnel."""
    return NO_WHERE if decision.rule == NO_PREDICATE else f"{decision.rule}: {decision.reason}"


def _count_stages(spec: MergeSpec, predicate: Predicate | None, alive: list[DataFileTask],
                  dropped: dict[str, list[DataFileTask]], stages: list[Stage]) -> None:
    # without a predicate, the file index stage alone (as an append table's funnel shows it): a stage header alike
    shown = [stage for rule, stage in RULE_STAGES
             if (rule == LEVEL and spec.skips_level_zero) or (rule != LEVEL and predicate is not None)
             or (rule == FILE_INDEX and predicate is None)]
    remaining, rows = alive, sum(task.table_entry().row_count for task in alive)
    for stage in shown:
        gone = dropped.get(stage, [])
        gone_ids = {id(task) for task in gone}
        left = [task for task in remaining if id(task) not in gone_ids]
        rows_after = rows - sum(task.table_entry().row_count for task in gone)
        stages.append(Stage(stage, len(remaining), len(left), rows, rows_after,
                            no_index=stage == "file_index" and without_index(remaining)))
        remaining, rows = left, rows_after


def read_bucket(item: FileRead, schema: pa.Schema, predicate: Predicate | None,
                types: dict) -> Iterator[pa.Table]:
    """The merged rows of a bucket's read as tables of ``schema`` (value columns of the table), in key order,
    those ``predicate`` holds on (filtered exactly, and only once merged)."""
    spec = item.merge
    assert spec is not None and item.group  # (a bucket's read carries its merge and files)
    wanted = read_columns(spec, schema.names)
    over_keys = key_predicate(spec, predicate) if predicate is not None else None
    opened: dict[str, DataFileReader] = {}  # (each file opened once: for its candidate keys, then its records)

    def open_once(task: DataFileTask) -> DataFileReader:
        found = opened.get(task.path)
        if found is None:
            found = opened[task.path] = task.open()
        return found

    if predicate is not None and (candidates := _candidate_keys(item, spec, open_once)) is not None:
        if candidates is NOTHING:
            return
        over_keys = candidates if over_keys is None else and_(over_keys, candidates)
    files = [key_value_file(task.table_entry(), spec, task.name,
                            partial(_file_batches, task, spec, wanted, over_keys, types, open_once))
             for task in item.group]
    from fileindex.merge.reader import merge_bucket  # (numpy's merge: imported by the first bucket read)

    for batch in merge_bucket(spec, files, schema.names):
        table = pa.Table.from_batches([batch])
        if table.schema != schema:
            table = table.cast(schema)
        if predicate is not None:
            table = filtered(table, predicate, types)
        if table.num_rows:
            yield table


NOTHING = Leaf(Operator.IN, "", ())  # no key can be in the answer
# the most records a bucket's indexes may match for it to be read by their keys (else it is merged whole): the keys
# become a predicate's literals, tested against each file's row groups and pages
CANDIDATE_KEYS = 1024


def _candidate_records(table: PaimonTable, spec: MergeSpec, predicate: Predicate | None, group: list[DataFileTask],
                       verdicts: dict[tuple, FileVerdict]) -> tuple[tuple[Rows | None, ...] | None, str]:
    """The records of a kept bucket's files whose keys its read merges, per file (the rows its index says may
    match ``predicate``; None: none may), and how ``explain`` says it; None where the bucket is merged whole
    (with why, where a predicate was given): the table is not deduplicate, or a key field's type is not one
    :func:`_candidate_type` takes, or it does not read its indexes (``file-index.read.enabled=false``), or a
    file's index cannot say which records may match, or more than CANDIDATE_KEYS may. The sidecars' verdicts
    the pruning asked are reused.

    Sound: a deduplicate row is one record of its key (the last, or the last that is not a retraction), and it
    is in the answer only if that record matches, so its key is among the keys of the records that may match;
    every file's records of those keys are read (a newer record that does not match wins and is filtered out),
    so those keys' rows are merged exactly as the whole bucket's would be, and the exact filter runs after."""
    if predicate is None:
        return None, ""
    if spec.engine != DEDUPLICATE:
        return None, f", every key (records are selected by their index for {DEDUPLICATE} tables only)"
    if not spec.file_index_read:
        return None, ", every key (file-index.read.enabled=false)"
    types = spec.types()
    for key in spec.keys:
        if not _candidate_type(types[key]):
            return None, f", every key (keys of type {types[key].root} are not read by candidates)"
    found: list[Rows | None] = []
    count = 0
    for task in group:
        entry = task.table_entry()
        verdict = verdicts.get(_file_key(entry))
        result = (verdict if verdict is not None else table.verdict(entry, predicate)).result
        if result is SKIP:
            found.append(None)
            continue
        if not isinstance(result, Rows):
            first = task is group[0]  # (the funnel's line is the first file's)
            if index_of(task) == "none":
                return None, f", every key ({'the file' if first else task.name} has no index to select records by)"
            whose = "its" if first else f"{task.name}'s"
            return None, f", every key ({whose} index cannot say which records may match)"
        count += result.cardinality
        if count > CANDIDATE_KEYS:
            return None, f", every key (more than {CANDIDATE_KEYS:,} records may match)"
        found.append(result)
    return tuple(found), f", only the keys of the {count:,} record{'s' if count != 1 else ''} its indexes select"


def _candidate_type(kind: DataType) -> bool:
    """Whether a key field of this type is read by candidates: its values compare exactly as literals of an IN
    (integers, strings, binary, dates, decimals, timestamps to the nanosecond; not floats, whose -0.0 and NaN
    an IN would have to match as the merge's key equality does)."""
    return kind.root in INTEGERS or kind.is_string or kind.is_binary or kind.is_timestamp \
        or kind.root in ("DATE", "DECIMAL")


def _candidate_keys(item: FileRead, spec: MergeSpec,
                    open_once: Callable[[DataFileTask], DataFileReader]) -> Predicate | None:
    """``k1 IN (...) AND k2 IN (...) ...``: each key field's values among the bucket's candidate records
    (``FileRead.candidates``, from :func:`_candidate_records`), so that the bucket's read merges only the
    records of those keys (NOTHING where there are none); None where the bucket is merged whole. With several
    key fields it holds the candidates' keys and maybe others (each field's values combined): exact all the
    same, as it is a filter on the key alone (every record of a key passes it, or none does), and the rows of
    the other keys are merged whole and dropped by the exact filter."""
    if item.candidates is None:
        return None
    types = spec.types()
    found: list[pa.Table] = []  # per file, the key columns of its candidate records
    for task, rows in zip(item.group, item.candidates, strict=True):
        if rows is None:
            continue
        reader = open_once(task)
        stored = _stored_keys(task, spec, reader)
        if any(name is None for name in stored):
            return None
        positions = np.fromiter(rows.bitmap, dtype=np.int64, count=rows.cardinality)
        found.append(reader.read_rows(positions, cast(list, stored)))
    if not found or not sum(table.num_rows for table in found):
        return NOTHING
    fields = []
    for number, key in enumerate(spec.keys):
        values: dict = {}
        for table in found:
            column = table.column(number).combine_chunks()
            if column.null_count:
                return None  # (a null key: the whole bucket's merge names the file and row)
            values.update(dict.fromkeys(python_values(column, types[key])))  # (as truth.matches compares them)
        fields.append(Leaf(Operator.IN, key, tuple(values)))
    return and_(*fields)


READ_AHEAD = 64 << 20  # bytes of merged rows a bucket read ahead may hold before its reader waits for the consumer


def read_buckets(reads: list[FileRead], schema: pa.Schema, predicate: Predicate | None, types: dict,
                 workers: int) -> Iterator[pa.Table]:
    """:func:`read_bucket` of each read, in order, ``workers`` buckets at a time (pyarrow decodes and numpy sorts
    without the GIL): the consumer merges the bucket it is at itself (one read ahead is taken over from its
    thread: ``ReadAhead.take_over``, the consumer never waits for work it can do), while the ``workers - 1``
    following buckets are read ahead on threads, each holding at most READ_AHEAD bytes of merged rows (memory
    stays bounded whatever the buckets' size). A bucket's files still decode on pyarrow's threads: decoding them
    on the thread merging them (fewer wake-ups) took 1.4x the wall under load (#56). A consumer that stops early
    stops the readers, and waits for them (no file is opened once the stream is closed)."""
    if workers <= 1 or len(reads) < 2:
        for item in reads:
            yield from read_bucket(item, schema, predicate, types)
        return
    from fileindex.scan.read_ahead import ReadAhead

    def bucket(item: FileRead) -> Iterator[pa.Table]:
        return read_bucket(item, schema, predicate, types)

    ahead: dict[int, ReadAhead[pa.Table]] = {}  # position -> its bucket read ahead
    try:
        for position, item in enumerate(reads):
            started = ahead.pop(position, None)
            for following in range(position + 1, min(position + workers, len(reads))):
                if following not in ahead:
                    ahead[following] = ReadAhead(partial(bucket, reads[following]), READ_AHEAD)
            yield from bucket(item) if started is None else started.take_over()
    finally:
        for reader in ahead.values():
            reader.close()


def read_bucket_whole(item: FileRead, schema: pa.Schema, predicate: Predicate | None, types: dict) -> pa.Table:
    """:func:`read_bucket` as one table (a Spark task's rows)."""
    tables = list(read_bucket(item, schema, predicate, types))
    return pa.concat_tables(tables) if tables else scalars.empty_table(schema)


def _file_batches(task: DataFileTask, spec: MergeSpec, values: list[str], over_keys: Predicate | None,
                  types: dict, open_once: Callable[[DataFileTask], DataFileReader]) -> Iterator[pa.RecordBatch]:
    """The file's batches of the key-value columns the merge reads, in the table's current names and types:
    fields matched by id (an older schema may name them otherwise; a field added later reads as nulls). With
    ``over_keys`` (the predicate's conjuncts over the key alone), only the records whose key it holds on: every
    record of a key has that key, so the merged rows it drops are rows the predicate drops (Java's key filter
    on the readers)."""
    table = task.table
    assert table is not None
    by_id = table.data_schema(task.table_entry()).by_id()
    fields = table.schema.by_name()
    reader = open_once(task)
    present = set(reader.arrow_schema.names)
    lacking = [name for name in (SEQUENCE_NUMBER, VALUE_KIND) if name not in present]
    if lacking:  # (read as nulls, it was "a null _SEQUENCE_NUMBER at row 0")
        raise TableError(f"{task.name}: no {' or '.join(lacking)} column: a primary-key table's data file holds its "
                         "records' sequence numbers and row kinds (not a file the table wrote)")

    def in_file(name: str) -> str | None:
        old = by_id.get(fields[name].id)
        return None if old is None else old.name

    wanted: list[tuple[str, str | None, pa.DataType]] = []  # (current name, name in the file, type)
    stored_keys = dict(zip(spec.keys, _stored_keys(task, spec, reader), strict=True))
    for key, stored in stored_keys.items():
        wanted.append((key_column(key), stored, arrow_type(fields[key].type)))
    wanted += [(SEQUENCE_NUMBER, SEQUENCE_NUMBER, pa.int64()), (VALUE_KIND, VALUE_KIND, pa.int8())]
    # a key field's value column holds its record's key: read once, from the key's column
    wanted += [(name, stored_keys.get(name) or in_file(name), arrow_type(fields[name].type)) for name in values]
    wanted = [(name, old if old in present else None, kind) for name, old, kind in wanted]
    read = list(dict.fromkeys(old for _, old, _ in wanted if old is not None))
    names = [name for name, _, _ in wanted]
    batches: Iterator[pa.RecordBatch] = reader.iter_batches(read, BATCH_ROWS)
    if over_keys is not None and all(old is not None for _, old, _ in wanted[:len(spec.keys)]):
        # the keys first: a selective key filter reads the other columns of its records only (their row groups,
        # or pages), a batch of them at a time
        in_file_keys = {key: cast(str, old) for key, (_, old, _) in zip(spec.keys, wanted, strict=False)}
        with side_by_side():  # (the key columns of the groups a key may be in, decoded here)
            rows, keys = _keys_matching(reader, in_file_keys, over_keys, types)
        if keys is not None:  # (the records are few: a SELECTIVE-th of the file's at most)
            batches = _selected(reader, rows, keys, read)
            over_keys = None  # (the records read are those the key filter kept: not filtered again)
    for batch in batches:
        columns = []
        for _, old, kind in wanted:
            if old is None:
                columns.append(pa.nulls(batch.num_rows, type=kind))
            else:
                column = batch.column(old)
                columns.append(reader.cast(column, old, kind))
        batch = pa.RecordBatch.from_arrays(columns, names=names)
        if over_keys is not None:
            keys = pa.table({key: batch.column(key_column(key)) for key in spec.keys})
            batch = compute.call("filter", batch, compute.bool_array(matches(keys, over_keys, types)))
        yield batch


def _stored_keys(task: DataFileTask, spec: MergeSpec, reader: DataFileReader) -> list[str | None]:
    """Each key field's column in the file (fields matched by id: an older schema may name them otherwise): its
    ``_KEY_`` column, or in a file written in thin mode (``data-file.thin-mode``) its value column; None where
    the file has neither."""
    table = task.table
    assert table is not None
    by_id = table.data_schema(task.table_entry()).by_id()
    fields = table.schema.by_name()
    present = set(reader.arrow_schema.names)
    stored: list[str | None] = []
    for key in spec.keys:
        old = by_id.get(fields[key].id)
        name = None if old is None else key_column(old.name) if key_column(old.name) in present else old.name
        stored.append(name if name in present else None)
    return stored


def _selected(reader: DataFileReader, rows: np.ndarray, keys: pa.Table, read: list[str]) -> Iterator[pa.RecordBatch]:
    """The records at ``rows`` (ascending) of the file's columns ``read``, a batch at a time: the key columns
    taken from ``keys`` (the key filter's read of ``rows``, named as in the file), the others read (their row
    groups, or pages)."""
    rest = [name for name in read if name not in keys.column_names]
    for start in range(0, len(rows), BATCH_ROWS):
        count = min(BATCH_ROWS, len(rows) - start)
        with side_by_side():  # (a few records: decoded here, not handed to pyarrow's threads and waited for)
            others = reader.read_rows(rows[start:start + count], rest)
        yield from pa.table([keys.column(name).slice(start, count) if name in keys.column_names
                             else others.column(name) for name in read], names=read).to_batches()


def _rows_keys_match(reader: DataFileReader, in_file_keys: dict[str, str], over_keys: Predicate,
                     types: dict) -> np.ndarray:
    """The positions of the file's records whose key ``over_keys`` holds on, ascending (:func:`_keys_matching`)."""
    return _keys_matching(reader, in_file_keys, over_keys, types)[0]


def _keys_matching(reader: DataFileReader, in_file_keys: dict[str, str], over_keys: Predicate,
                   types: dict) -> tuple[np.ndarray, pa.Table | None]:
    """The positions of the file's records whose key ``over_keys`` holds on, ascending, and their key columns
    (named as in the file) where they are few (fewer than a SELECTIVE-th of the file's records; else None: the
    file is read whole, and the keys are not held); the keys are read from the row groups whose key statistics
    may hold one (a file sorted by key keeps each group's keys narrow), and within a group from the pages whose
    bounds (its column index) may (:func:`_key_spans`)."""
    names = list(dict.fromkeys(in_file_keys.values()))
    found: list[np.ndarray] = []
    tables: list[pa.Table] | None = []

    def found_in(table: pa.Table, positions: np.ndarray) -> None:
        nonlocal tables
        kept = np.flatnonzero(matches(pa.table({key: table.column(old) for key, old in in_file_keys.items()}),
                                      over_keys, types))
        found.append(positions[kept])
        if tables is not None and sum(map(len, found)) * SELECTIVE < reader.row_count:
            tables.append(compute.take_rows(table.select(names), kept))
        else:
            tables = None

    groups = _groups_keys_may_match(reader, in_file_keys, over_keys, types)
    if reader.group_rows is None:
        found_in(reader.read(names), np.arange(reader.row_count, dtype=np.int64))
    else:
        starts = np.concatenate(([0], np.cumsum(reader.group_rows, dtype=np.int64)))
        # (groups without usable key statistics, a string key's: each may still narrow to its pages)
        for group in range(len(reader.group_rows)) if groups is None else groups:
            spans = _key_spans(reader, group, in_file_keys, over_keys, types)
            if spans is None:
                found_in(reader.read_groups([group], names)[0], starts[group] + np.arange(reader.group_rows[group]))
            elif spans:
                positions = starts[group] + np.concatenate([np.arange(low, high) for low, high in spans])
                # (one key column: its pages' values decoded whole where they are plain numbers, as most keys)
                pages = _pages_spanned(reader, names[0], group, spans) if len(names) == 1 else None
                values = reader.page_values(names[0], group, pages) if pages is not None else None
                found_in(reader.read_rows(positions, names) if values is None else pa.table({names[0]: values}),
                         positions)
    if not found:
        return np.zeros(0, dtype=np.int64), pa.schema([reader.arrow_schema.field(name) for name in names]).empty_table()
    return np.concatenate(found).astype(np.int64), None if tables is None else pa.concat_tables(tables)


def _key_spans(reader: DataFileReader, group: int, in_file_keys: dict[str, str], over_keys: Predicate,
               types: dict) -> list[tuple[int, int]] | None:
    """The row spans of a row group (from its first row) on the pages whose key columns' bounds, as their column
    indexes claim them, may satisfy ``over_keys`` (``page_pruning.group_spans``, the test a value filter's pages
    get); None where they hold half the group's rows or more (the group is read whole: taking most of its rows
    costs more than reading them all), or no key column has such an index."""
    columns = {key: (old, types[key]) for key, old in in_file_keys.items()}
    spans = group_spans(reader, group, columns, over_keys)
    if 2 * sum(high - low for low, high in spans) >= reader.group_rows[group]:  # type: ignore[index]
        return None
    return spans


def _pages_spanned(reader: DataFileReader, column: str, group: int, spans: list[tuple[int, int]]) -> list[int] | None:
    """The column's pages in the group whose rows are exactly ``spans`` (ascending); None where they are not
    whole pages of it."""
    pages = reader.page_bounds(column, group)
    if pages is None:
        return None
    numbers: list[int] = []
    firsts = pages.firsts
    for low, high in spans:
        first, last = bisect.bisect_left(firsts, low), bisect.bisect_left(firsts, high)
        if last >= len(firsts) or firsts[first] != low or firsts[last] != high:
            return None
        numbers.extend(range(first, last))
    return numbers


def _groups_keys_may_match(reader: DataFileReader, in_file_keys: dict[str, str], over_keys: Predicate,
                           types: dict) -> list[int] | None:
    """The row groups whose integer keys' min/max statistics may satisfy ``over_keys``; None: not known."""
    bounds = {key: reader.group_bounds(old) for key, old in in_file_keys.items()
              if types[key].root in INTEGERS}
    known = {key: found for key, found in bounds.items() if found is not None}
    if not known or reader.group_rows is None:
        return None
    kept = []
    for group in range(len(reader.group_rows)):
        columns = {key: (*stats, types[key]) for key, found in known.items() if (stats := found[group]) is not None}
        if KnownBounds(columns, reader.group_rows[group]).may_match(over_keys):
            kept.append(group)
    return kept
