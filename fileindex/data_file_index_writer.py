"""Build the container Paimon's ``DataFileIndexWriter`` writes for one data file (spec §1, §3, §10).

Every requested (column, index type) gets its index over the column's values in row order;
a map-key index ``m[k]`` gets each row's value for key k (null when the map is null or lacks the
key). Columns are laid out in Java's ``HashMap`` order. A container of at most the
in-manifest threshold is embedded in the manifest, a larger one becomes ``<data file>.index``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import pyarrow as pa
import pyarrow.compute as pc

from .container import write_container
from .errors import UsageError
from .file_index_options import FileIndexOptions, IndexRequest, parse_options
from .indexes import INDEX_TYPES
from .types import DataType, column_type


@dataclass(frozen=True)
class BuiltContainer:
    data: bytes
    row_count: int
    requests: tuple[IndexRequest, ...]
    in_manifest_threshold: int

    @property
    def embedded(self) -> bool:
        """Paimon embeds a container of at most the threshold in the manifest (strictly greater: a file)."""
        return len(self.data) <= self.in_manifest_threshold


def column_values(table: pa.Table, request: IndexRequest, schema: dict[str, DataType]) -> pa.ChunkedArray:
    if request.map_column is None:
        return table.column(request.column)
    maps = table.column(request.map_column)
    key = pa.scalar(request.map_key, type=maps.type.key_type)
    return pc.map_lookup(maps, key, "first")


def build_table_index(table: pa.Table, schema: dict[str, DataType], options: FileIndexOptions) -> BuiltContainer:
    payloads: dict[str, dict[str, bytes | None]] = {}
    for request in options.requests:
        data_type = column_type(schema, request.column)
        if request.map_column is not None and table.num_rows == 0:
            payload = None  # a map-key writer that saw no record: EMPTY entry
        else:
            values = column_values(table, request, schema)
            payload = INDEX_TYPES[request.index_type].build(values, data_type, request.options)
        payloads.setdefault(request.column, {})[request.index_type] = payload
    return BuiltContainer(write_container(payloads), table.num_rows, options.requests, options.in_manifest_threshold)


def build_parquet_index(path: str | Path, table_options: Mapping[str, str],
                        schema_override: dict[str, DataType] | None = None) -> BuiltContainer:
    """Read only the indexed columns of a Parquet file and build its container."""
    import pyarrow.parquet as pq

    from .arrow_types import schema_of

    parquet = pq.ParquetFile(path)
    schema = schema_of(parquet.schema_arrow) if schema_override is None else {}
    schema.update(schema_override or {})
    options = parse_options(table_options, schema)
    if not options.requests:
        raise UsageError("no index requested: set file-index.<type>.columns, e.g. "
                         "--option file-index.bloom-filter.columns=id")
    names = list(dict.fromkeys(r.map_column or r.column for r in options.requests))
    missing = [n for n in names if n not in parquet.schema_arrow.names]
    if missing:
        raise UsageError(f"{path}: no column {', '.join(map(repr, missing))} in the Parquet file")
    table = parquet.read(columns=names)
    return build_table_index(table, schema, options)
