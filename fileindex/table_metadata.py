"""Paimon table metadata a file-index reader needs (table spec §1-§5): snapshots, schemas, manifests.

Manifest-family files are read in whatever format they are (Avro with fastavro, ORC or Parquet with
pyarrow), sniffed from their magic bytes. Live data files are the ADD entries of the base and delta
manifest lists that no DELETE entry names, compared by Paimon's full file identifier. Data files are
found only through the snapshot, never by listing directories.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import FileIndexError, UsageError
from .types import DataType, parse_type


class TableError(FileIndexError):
    """Table metadata that is missing or does not follow Paimon's layout."""


def read_rows(path: Path) -> list[dict]:
    """The rows of a manifest, manifest list or index manifest, as dicts (Avro, ORC or Parquet)."""
    try:
        with open(path, "rb") as file:
            magic = file.read(4)
            file.seek(0)
            if magic == b"Obj\x01":
                import fastavro

                return list(fastavro.reader(file))
    except OSError as err:
        raise TableError(f"cannot read {path}: {err.strerror}") from None
    if magic[:3] == b"ORC":
        import pyarrow.orc

        return pyarrow.orc.ORCFile(str(path)).read().to_pylist()
    if magic == b"PAR1":
        import pyarrow.parquet

        return pyarrow.parquet.read_table(str(path)).to_pylist()
    raise TableError(f"{path}: not an Avro, ORC or Parquet file (magic {magic!r})")


# ------------------------------------------------------------------------------------- snapshot, schema

@dataclass(frozen=True)
class Snapshot:
    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    index_manifest: str | None


def latest_snapshot_id(root: Path) -> int:
    folder = root / "snapshot"
    hint = folder / "LATEST"
    if hint.is_file():
        text = hint.read_text().strip()
        if text.isdigit() and not (folder / f"snapshot-{int(text) + 1}").exists():
            return int(text)
    ids = [int(p.name.split("-", 1)[1]) for p in folder.glob("snapshot-*") if p.name.split("-", 1)[1].isdigit()]
    if not ids:
        raise UsageError(f"{root}: no snapshot/ folder with snapshots: is this a Paimon table root?")
    return max(ids)


def load_snapshot(root: Path, snapshot_id: int | None = None) -> Snapshot:
    snapshot_id = latest_snapshot_id(root) if snapshot_id is None else snapshot_id
    path = root / "snapshot" / f"snapshot-{snapshot_id}"
    if not path.is_file():
        raise UsageError(f"{root}: no snapshot {snapshot_id}")
    data = json.loads(path.read_text())
    return Snapshot(data["id"], data["schemaId"], data["baseManifestList"], data["deltaManifestList"],
                    data.get("indexManifest"))


@dataclass(frozen=True)
class Field:
    id: int
    name: str
    type: DataType
    default_value: str | None = None


@dataclass(frozen=True)
class Schema:
    id: int
    fields: tuple[Field, ...]
    partition_keys: tuple[str, ...]
    primary_keys: tuple[str, ...]
    options: dict = field(default_factory=dict)

    def by_name(self) -> dict[str, Field]:
        return {f.name: f for f in self.fields}

    def by_id(self) -> dict[int, Field]:
        return {f.id: f for f in self.fields}

    def types(self) -> dict[str, DataType]:
        return {f.name: f.type for f in self.fields}


def json_type(value) -> DataType:
    """A Paimon schema field type: an SQL string, or an object for ARRAY / MAP / MULTISET / ROW."""
    if isinstance(value, str):
        return parse_type(value)
    name = value["type"]
    nullable = not name.endswith("NOT NULL")
    root = name.split()[0]
    if root in ("ARRAY", "MULTISET"):
        children = (json_type(value["element"]),)
    elif root == "MAP":
        children = (json_type(value["key"]), json_type(value["value"]))
    elif root == "ROW":
        fields = value["fields"]
        return DataType("ROW", nullable=nullable, children=tuple(json_type(f["type"]) for f in fields),
                        field_names=tuple(f["name"] for f in fields))
    else:
        raise TableError(f"unknown complex type {name!r} in a schema file")
    return DataType(root, nullable=nullable, children=children)


def load_schema(root: Path, schema_id: int) -> Schema:
    path = root / "schema" / f"schema-{schema_id}"
    if not path.is_file():
        raise TableError(f"{root}: schema {schema_id} is missing (schema/schema-{schema_id})")
    data = json.loads(path.read_text())
    fields = tuple(Field(f["id"], f["name"], json_type(f["type"]), f.get("defaultValue")) for f in data["fields"])
    return Schema(data["id"], fields, tuple(data.get("partitionKeys", ())), tuple(data.get("primaryKeys", ())),
                  data.get("options", {}))


# ------------------------------------------------------------------------------------- data files

@dataclass(frozen=True)
class DataFile:
    partition: bytes
    bucket: int
    level: int
    file_name: str
    row_count: int
    schema_id: int
    extra_files: tuple[str, ...]
    embedded_index: bytes | None
    external_path: str | None
    first_row_id: int | None
    write_cols: tuple[str, ...] | None
    max_sequence_number: int

    @property
    def identifier(self) -> tuple:
        """Paimon's FileEntry.Identifier (1.3+): what a DELETE entry must match."""
        return (self.partition, self.bucket, self.level, self.file_name, self.extra_files, self.external_path,
                self.embedded_index)


def _data_file(row: dict) -> DataFile:
    meta = row["_FILE"]
    write_cols = meta.get("_WRITE_COLS")
    return DataFile(
        partition=bytes(row["_PARTITION"]), bucket=row["_BUCKET"], level=meta["_LEVEL"],
        file_name=meta["_FILE_NAME"], row_count=meta["_ROW_COUNT"], schema_id=meta["_SCHEMA_ID"],
        extra_files=tuple(meta.get("_EXTRA_FILES") or ()),
        embedded_index=bytes(meta["_EMBEDDED_FILE_INDEX"]) if meta.get("_EMBEDDED_FILE_INDEX") is not None else None,
        external_path=meta.get("_EXTERNAL_PATH"), first_row_id=meta.get("_FIRST_ROW_ID"),
        write_cols=tuple(write_cols) if write_cols is not None else None,
        max_sequence_number=meta.get("_MAX_SEQUENCE_NUMBER", 0),
    )


def live_files(root: Path, snapshot: Snapshot) -> list[DataFile]:
    """ADD entries not DELETEd, over the base and delta manifest lists (table spec §5)."""
    manifests = []
    for listing in (snapshot.base_manifest_list, snapshot.delta_manifest_list):
        manifests += read_rows(root / "manifest" / listing)
    added: list[DataFile] = []
    deleted: set[tuple] = set()
    for manifest in manifests:
        for row in read_rows(root / "manifest" / manifest["_FILE_NAME"]):
            kind = row["_KIND"]
            if kind not in (0, 1):
                raise TableError(f"manifest {manifest['_FILE_NAME']}: entry kind {kind} (0 = ADD, 1 = DELETE)")
            entry = _data_file(row)
            (added.append(entry) if kind == 0 else deleted.add(entry.identifier))
    return [entry for entry in added if entry.identifier not in deleted]


def bucket_dir(root: Path, schema: Schema, entry: DataFile) -> Path:
    if schema.partition_keys:
        from .binary_row import partition_path

        return root / partition_path(entry.partition, schema) / f"bucket-{entry.bucket}"
    return root / f"bucket-{entry.bucket}"
