"""Manifests and manifest lists written in the table's own Avro shape (rewrite design §2.1, §2.3).

The writer schema and codec are copied from a file the latest snapshot names, so a 0.9-, 1.x- or
2.x-written table gets manifests of its own version's shape: fields the copied schema has and a row
lacks are written null; a row holding a value for a field the schema lacks is refused (a table whose
newest manifests are older than some of its rows). Names are ``manifest-<uuid>-<n>`` and
``manifest-list-<uuid>-<n>``, created only if absent; every file written is recorded in
``created`` so that a failed commit can remove exactly what it wrote.
"""
from __future__ import annotations

import io
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fileindex.java.binary_row import field_stats
from fileindex.table.manifest_entry import ADD, DELETE, ManifestEntry
from fileindex.table.metadata import MAX_MANIFEST_BYTES, TableError, reading
from fileindex.table.store import TableStore
from fileindex.types import DataType



@dataclass(frozen=True)
class AvroShape:
    """A manifest-family file's writer schema (JSON text, as the file holds it) and codec."""

    schema_json: str
    codec: str

    @property
    def parsed(self) -> Any:  # fastavro's parsed schema
        import fastavro

        return fastavro.parse_schema(json.loads(self.schema_json))

    def field_names(self, nested: str | None = None) -> set[str]:
        fields = json.loads(self.schema_json)["fields"]
        if nested is not None:
            fields = next(f["type"]["fields"] for f in fields if f["name"] == nested)
        return {f["name"] for f in fields}


def shape_of(store: TableStore, path: Path, kind: str) -> AvroShape:
    import fastavro

    with reading(store, path, kind):
        data = store.read_bytes(path, f"{store.shown(path)} ({kind})", MAX_MANIFEST_BYTES)
        if data[:4] != b"Obj\x01":
            raise TableError(f"{store.shown(path)} ({kind}): not an Avro file: manifest.format other than avro "
                             "is not supported by rewrite (Java reads every manifest with the current format)")
        reader = fastavro.reader(io.BytesIO(data))
        return AvroShape(reader.metadata["avro.schema"], reader.codec)


def conform(row: dict, shape_fields: set[str], where: str, nested: dict[str, set[str]] | None = None) -> dict:
    """``row`` with exactly the shape's fields: absent ones null; refuse a non-null value the shape cannot hold."""
    extra = [k for k, v in row.items() if k not in shape_fields and v is not None]
    if extra:
        raise TableError(f"{where}: the table's newest manifests have no field {', '.join(sorted(extra))}, which "
                         "an entry holds: the table's files were written by different Paimon versions; not rewritten")
    out = {name: row.get(name) for name in shape_fields}
    for name, inner in (nested or {}).items():
        out[name] = conform(row[name], inner, f"{where} {name}")
    return out


@dataclass
class ManifestWriter:
    """Writes one commit attempt's manifests and lists under one fresh UUID (as Paimon's path factory)."""

    store: TableStore
    entry_shape: AvroShape
    list_shape: AvroShape
    partition_types: list[DataType]
    schema_id: int
    compression_level: int = 1
    created: list[Path] = field(default_factory=list)
    prefix: str = field(default_factory=lambda: str(uuid.uuid4()))
    _counters: dict = field(default_factory=lambda: {"manifest": 0, "manifest-list": 0})

    def _write(self, kind: str, shape: AvroShape, rows: list[dict]) -> tuple[str, int]:
        import fastavro

        buffer = io.BytesIO()
        fastavro.writer(buffer, shape.parsed, rows, codec=shape.codec,
                        codec_compression_level=self.compression_level if shape.codec == "zstandard" else None)
        data = buffer.getvalue()
        while True:
            name = f"{kind}-{self.prefix}-{self._counters[kind]}"
            self._counters[kind] += 1
            path = self.store.manifest_file(name)
            if self.store.link(path, data):
                self.created.append(path)
                return name, len(data)

    def manifest(self, entries: list[ManifestEntry]) -> dict:
        """Write a manifest of ``entries``; its manifest-list row (``ManifestFileMeta``)."""
        fields = self.entry_shape.field_names()
        nested = {"_FILE": self.entry_shape.field_names("_FILE")}
        rows = [conform(e.to_avro(), fields, "manifest entry", nested) for e in entries]
        name, size = self._write("manifest", self.entry_shape, rows)
        low, high, nulls = field_stats([e.partition for e in entries], self.partition_types)
        meta = {
            "_VERSION": 2, "_FILE_NAME": name, "_FILE_SIZE": size,
            "_NUM_ADDED_FILES": sum(e.kind == ADD for e in entries),
            "_NUM_DELETED_FILES": sum(e.kind == DELETE for e in entries),
            "_PARTITION_STATS": {"_MIN_VALUES": low, "_MAX_VALUES": high,
                                 "_NULL_COUNTS": nulls if self.partition_types else []},
            "_SCHEMA_ID": max((e.schema_id for e in entries), default=self.schema_id),
        }
        if entries:
            buckets = [e.bucket for e in entries]
            levels = [e.level for e in entries]
            meta.update(_MIN_BUCKET=min(buckets), _MAX_BUCKET=max(buckets), _MIN_LEVEL=min(levels),
                        _MAX_LEVEL=max(levels))
        return meta

    def manifest_list(self, metas: list[dict]) -> tuple[str, int]:
        fields = self.list_shape.field_names()
        nested = {"_PARTITION_STATS": self.list_shape.field_names("_PARTITION_STATS")}
        metas = [{k: v for k, v in m.items() if k in fields or v is None} for m in metas]
        return self._write("manifest-list", self.list_shape,
                           [conform(m, fields, "manifest list row", nested) for m in metas])

    def remove_created(self) -> None:
        for path in self.created:
            self.store.delete(path)
        self.created.clear()
