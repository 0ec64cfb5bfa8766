"""A primary-key table read by this project's merge, file by file with pyarrow (the harness the merge's tests
use until the planner reads primary-key tables): per bucket of a snapshot, the files ``prune_bucket`` keeps,
merged by ``merge_bucket``, then filtered exactly."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from fileindex.arrow.types import arrow_type
from fileindex.merge.layout import KeyValueFile, key_value_file, read_columns, system_columns
from fileindex.merge.reader import merge_bucket
from fileindex.merge.pruning import (
    FileDecision,
    embedded_index_test,
    key_statistics_test,
    prune_bucket,
    value_statistics_test,
)
from fileindex.merge.spec import MergeSpec, merge_spec
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate, and_, columns, conjuncts
from fileindex.table.buckets import reachable_buckets
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.table.metadata import Schema, live_files, load_schema, load_snapshot
from fileindex.table.store import TableStore


def table_of(root: Path, snapshot_id: int | None = None) -> tuple[TableStore, Schema, list[ManifestEntry]]:
    store = TableStore(Path(root))
    snapshot = load_snapshot(store, snapshot_id)
    return store, load_schema(store, snapshot.schema_id), live_files(store, snapshot)


def buckets(files: list[ManifestEntry]) -> dict[tuple, list[ManifestEntry]]:
    found: dict[tuple, list[ManifestEntry]] = {}
    for entry in files:
        found.setdefault((entry.partition, entry.bucket), []).append(entry)
    return found


def arrow_schema(schema: Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, arrow_type(f.type)) for f in schema.fields])


def kv_files(store: TableStore, schema: Schema, spec: MergeSpec, entries: list[ManifestEntry],
             columns: list[str]) -> list[KeyValueFile]:
    wanted = system_columns(spec) + read_columns(spec, columns)

    def reader(path: Path) -> Callable:
        return lambda: pq.ParquetFile(path).iter_batches(batch_size=3, columns=wanted)

    return [key_value_file(e, spec, e.file_name, reader(Path(store.data_file(e, schema)))) for e in entries]


def merged_rows(root: Path, snapshot_id: int | None = None, columns: list[str] | None = None) -> pa.Table:
    """Every row of the snapshot, merged bucket by bucket (no predicate)."""
    return scan(root, snapshot_id, None, columns)[0]


def scan(root: Path, snapshot_id: int | None, where: str | Predicate | None, wanted: list[str] | None = None,
         prune: Callable | None = None) -> tuple[pa.Table, list[FileDecision]]:
    """The snapshot's rows ``where`` holds: the partitions and buckets it allows (the planner's stages), per
    bucket the files ``prune`` keeps
    (default: ``prune_bucket`` with every test), merged, filtered exactly; and every file's decision."""
    from fileindex.scan.truth import filtered

    store, schema, files = table_of(root, snapshot_id)
    spec = merge_spec(schema)
    predicate = parse_predicate(where, schema.types()) if isinstance(where, str) else where
    names = [f.name for f in schema.fields]
    wanted = wanted or names
    read = [n for n in names if n in set(wanted) | (set(columns(predicate)) if predicate else set())]
    out = pa.schema([arrow_schema(schema).field(c) for c in read])
    batches: list[pa.RecordBatch] = []
    decisions: list[FileDecision] = []
    reachable = reachable_buckets(predicate, schema) if predicate is not None else None
    for (partition, bucket), entries in buckets(files).items():
        if predicate is not None and not partition_may_match(schema, partition, predicate):
            continue
        if reachable is not None and bucket not in reachable:
            continue
        kept = (prune or default_prune)(spec, schema, entries, predicate)
        decisions += kept
        chosen = [d.file for d in kept if d.kept]
        batches += list(merge_bucket(spec, kv_files(store, schema, spec, chosen, read), read))
    rows = pa.Table.from_batches(batches, out) if batches else out.empty_table()
    if predicate is not None:
        rows = filtered(rows, predicate, schema.types())
    return rows.select(wanted), decisions


def default_prune(spec: MergeSpec, schema: Schema, entries: list[ManifestEntry],
                  predicate: Predicate | None) -> list[FileDecision]:
    if predicate is None:
        return prune_bucket(spec, entries)
    same = lambda entry: schema  # noqa: E731 (the test tables keep their first schema)
    return prune_bucket(spec, entries, key_test=key_statistics_test(spec, predicate),
                        value_test=value_statistics_test(schema, same, predicate),
                        index_test=embedded_index_test(schema, same, predicate))


def partition_may_match(schema: Schema, partition: bytes, predicate: Predicate) -> bool:
    """The predicate's conjuncts over partition keys on the partition's values (the planner's stage)."""
    from fileindex.java.binary_row import fields
    from fileindex.scan.truth import matches

    keys = set(schema.partition_keys)
    over_keys = [c for c in conjuncts(predicate) if keys and set(columns(c)) <= keys]
    if not over_keys:
        return True
    types = schema.types()
    values = fields(partition, [types[k] for k in schema.partition_keys])
    row = pa.table({k: pa.array([v], type=arrow_type(types[k]))
                    for k, v in zip(schema.partition_keys, values, strict=True)})
    return bool(matches(row, and_(*over_keys), types)[0])


def json_rows(rows: pa.Table, schema: Schema) -> list[list]:
    """The rows in the spelling Java's answers use (``fileindex.kit.rows``), sorted."""
    from fileindex.kit.rows import canonical_rows

    class Shim:  # canonical_rows reads the schema's fields only
        pass

    shim = Shim()
    shim.schema = schema  # type: ignore[attr-defined]
    return canonical_rows(rows, shim)  # type: ignore[arg-type]
