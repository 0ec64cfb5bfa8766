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
from fileindex.merge.spec import MergeSpec, merge_spec
from fileindex.table.metadata import DataFile, Schema, bucket_dir, live_files, load_schema, load_snapshot
from fileindex.table.store import TableStore


def table_of(root: Path, snapshot_id: int | None = None) -> tuple[TableStore, Schema, list[DataFile]]:
    store = TableStore(Path(root))
    snapshot = load_snapshot(store, snapshot_id)
    return store, load_schema(store, snapshot.schema_id), live_files(store, snapshot)


def buckets(files: list[DataFile]) -> dict[tuple, list[DataFile]]:
    found: dict[tuple, list[DataFile]] = {}
    for entry in files:
        found.setdefault((entry.partition, entry.bucket), []).append(entry)
    return found


def arrow_schema(schema: Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, arrow_type(f.type)) for f in schema.fields])


def kv_files(store: TableStore, schema: Schema, spec: MergeSpec, entries: list[DataFile],
             columns: list[str]) -> list[KeyValueFile]:
    wanted = system_columns(spec) + read_columns(spec, columns)

    def reader(path: Path) -> Callable:
        return lambda: pq.ParquetFile(path).iter_batches(batch_size=3, columns=wanted)

    return [key_value_file(e, spec, e.file_name, reader(bucket_dir(store, schema, e) / e.file_name)) for e in entries]


def merged_rows(root: Path, snapshot_id: int | None = None, columns: list[str] | None = None) -> pa.Table:
    """Every row of the snapshot, merged bucket by bucket (no predicate)."""
    store, schema, files = table_of(root, snapshot_id)
    spec = merge_spec(schema)
    columns = columns or [f.name for f in schema.fields]
    out = arrow_schema(schema)
    batches = []
    for entries in buckets(files).values():
        batches += list(merge_bucket(spec, kv_files(store, schema, spec, entries, columns), columns))
    return pa.Table.from_batches(batches, pa.schema([out.field(c) for c in columns])) if batches else \
        pa.schema([out.field(c) for c in columns]).empty_table()


def json_rows(rows: pa.Table, schema: Schema) -> list[list]:
    """The rows in the spelling Java's answers use (``fileindex.kit.rows``), sorted."""
    from fileindex.kit.rows import canonical_rows

    class Shim:  # canonical_rows reads the schema's fields only
        pass

    shim = Shim()
    shim.schema = schema  # type: ignore[attr-defined]
    return canonical_rows(rows, shim)  # type: ignore[arg-type]
