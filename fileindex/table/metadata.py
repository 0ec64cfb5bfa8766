"""Paimon table metadata a file-index reader needs (table spec §1-§5): snapshots, schemas, manifests.

Manifest-family files are read in whatever format they are (Avro with fastavro, ORC with pyarrow in a
helper process (``orc_helper``), Parquet with pyarrow), sniffed from their magic bytes. Live data files
are the ADD entries of the base and delta manifest lists that no later DELETE entry names, in manifest
order and compared by Paimon's full file identifier. Data files are found only through the snapshot,
never by listing directories.
"""
from __future__ import annotations

import io
import json
import os
import stat
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar, cast

from fileindex.errors import UsageError
from fileindex.memo import BoundedMemo, collection_paused, file_identity
from fileindex.table.avro_blocks import budget_for, uncompressed_container
from fileindex.table.errors import TableError
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.table.names import external_path, inside, local_external_path, plain_name
from fileindex.table.store import TableStore, not_a_table
from fileindex.types import DataType, parse_type


T = TypeVar("T")
TypeSpec = type | tuple[type, ...]  # what isinstance takes


class TableHintWarning(UserWarning):
    """The LATEST hint could not be used; the snapshot was found by listing, as Paimon does."""


def shown(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


@contextmanager
def reading(root: Path, path: Path, kind: str) -> Iterator[None]:
    """The one boundary of metadata reads: every exception a library raises on a bad file becomes a
    TableError naming the file and what it was read as."""
    try:
        yield
    except TableError:
        raise
    except FileNotFoundError:
        raise TableError(f"{shown(root, path)} ({kind}): the file is missing") from None
    except OSError as err:
        raise TableError(f"{shown(root, path)} ({kind}): cannot read: {err.strerror or err}") from None
    except RecursionError:
        raise TableError(f"{shown(root, path)} ({kind}): nested too deeply to read") from None
    except Exception as err:  # fastavro, pyarrow, json and zstd raise many types on malformed input
        detail = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise TableError(f"{shown(root, path)} ({kind}): not a readable file: {detail}") from None


def read_rows(path: Path, kind: str = "manifest", root: Path | None = None) -> list[dict]:
    """The rows of a manifest, manifest list or index manifest, as dicts (Avro, ORC or Parquet)."""
    return read_rows_and_schema(path, kind, root)[0]


def read_rows_and_schema(path: Path, kind: str = "manifest", root: Path | None = None) -> tuple[list[dict], Any]:
    """``read_rows`` and, for an Avro file, the writer schema fastavro decoded its rows by (else None)."""
    root = root or path.parent.parent
    schema = None
    with reading(root, path, kind):
        size = regular_file(root, path, kind)
        with open(path, "rb") as file:
            magic = file.read(4)
            file.seek(0)
            if magic == b"Obj\x01":
                import fastavro

                reader = fastavro.reader(io.BytesIO(uncompressed_container(file.read(),
                                                                           f"{shown(root, path)} ({kind})")))
                schema = reader.writer_schema
                rows: list[Any] = list(reader)
            elif magic[:3] == b"ORC":
                from fileindex.table.orc_helper import orc_rows  # (and subprocess) for ORC tables only

                rows = orc_rows(path)
            elif magic == b"PAR1":
                import pyarrow.parquet

                parquet = pyarrow.parquet.ParquetFile(file)
                expanded = sum(parquet.metadata.row_group(i).total_byte_size for i in range(parquet.num_row_groups))
                if expanded > budget_for(size) or parquet.metadata.num_rows > size:
                    raise TableError(f"{shown(root, path)} ({kind}): {parquet.metadata.num_rows} rows of {expanded} "
                                     f"bytes in a {size}-byte file: more than a Paimon writer makes")
                rows = parquet.read().to_pylist()
            else:
                raise TableError(f"{shown(root, path)} ({kind}): not an Avro, ORC or Parquet file (magic {magic!r})")
    if not all(isinstance(row, dict) for row in rows):
        raise TableError(f"{shown(root, path)} ({kind}): rows are not records")
    return rows, schema


MAX_JSON_BYTES = 64 << 20  # a snapshot or schema file: Java's largest are a few hundred KiB


def regular_file(root: Path, path: Path, kind: str) -> int:
    """The size of the metadata file at ``path``, a regular file inside the table (after symlinks)."""
    inside(root, path, f"{shown(root, path)} ({kind})")
    size = os.stat(path)
    if not stat.S_ISREG(size.st_mode):
        raise TableError(f"{shown(root, path)} ({kind}): not a regular file")
    return size.st_size


def read_json(root: Path, path: Path, kind: str) -> dict:
    with reading(root, path, kind):
        if regular_file(root, path, kind) > MAX_JSON_BYTES:
            raise TableError(f"{shown(root, path)} ({kind}): larger than {MAX_JSON_BYTES >> 20} MiB, which no "
                             "Paimon writer makes")
        data = json.loads(path.read_bytes())
    if not isinstance(data, dict):
        raise TableError(f"{shown(root, path)} ({kind}): not a JSON object")
    return data


def field_of(record: dict, key: str, types: TypeSpec, where: str, *, optional: bool = False) -> Any:
    """``record[key]`` if it has one of ``types`` (a TableError naming the field otherwise)."""
    value = record.get(key) if isinstance(record, dict) else None
    if value is None and optional:
        return None
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise TableError(f"{where}: field {key} is {got}, not {_names(types)}")
    return value


def _tuple(types: TypeSpec) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _names(types: TypeSpec) -> str:
    return " or ".join(t.__name__ for t in _tuple(types))


# ------------------------------------------------------------------------------------- snapshot, schema

@dataclass(frozen=True)
class Snapshot:
    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    index_manifest: str | None
    file: str = ""  # where it was read from, relative to the table root
    changelog_manifest_list: str | None = None


def latest_snapshot_id(store: TableStore) -> int:
    """Paimon's SnapshotManager: the LATEST hint when its snapshot exists and has no successor,
    otherwise the highest snapshot-N by listing (saying why on a warning)."""
    root, hint = store.meta, store.latest_hint
    problem = ""
    if hint.is_file():
        try:
            text = hint.read_text(errors="replace").strip()
        except OSError as err:
            text, problem = "", f"cannot be read ({err.strerror})"
        if text.isdigit() and store.snapshot_file(int(text)).is_file() \
                and not store.snapshot_file(int(text) + 1).exists():
            return int(text)
        problem = problem or (f"names snapshot {text}, which does not exist" if text.isdigit()
                              and not store.snapshot_file(int(text)).is_file()
                              else "is not the latest snapshot" if text.isdigit() else f"holds {text[:20]!r}")
    ids = store.snapshot_ids()
    if not ids:
        raise not_a_table(root, "no snapshot/ folder with snapshots")
    if problem:
        warnings.warn(TableHintWarning(f"{shown(root, hint)} {problem}: using snapshot-{max(ids)}, the "
                                       "latest by listing"), stacklevel=2)
    return max(ids)


def load_snapshot(store: TableStore, snapshot_id: int | None = None) -> Snapshot:
    """A snapshot of the store's branch (None: the latest)."""
    if snapshot_id is not None and (not isinstance(snapshot_id, int) or isinstance(snapshot_id, bool)):
        raise UsageError(f"snapshot {snapshot_id!r}: give a snapshot id (a whole number)")
    snapshot_id = latest_snapshot_id(store) if snapshot_id is None else snapshot_id
    path = store.snapshot_file(snapshot_id)
    if not path.is_file():
        raise UsageError(f"{store.meta}: no snapshot {snapshot_id}")
    return read_snapshot(store.meta, path)


def read_snapshot(root: Path, path: Path) -> Snapshot:
    """A snapshot file, or a tag file (a snapshot under a name)."""
    data = read_json(root, path, "snapshot")
    where = f"{shown(root, path)} (snapshot)"
    names = {key: plain_name(field_of(data, key, str, where), where, key) for key in SNAPSHOT_LISTS}
    optional = {}
    for key in SNAPSHOT_OPTIONAL_NAMES:
        name = field_of(data, key, str, where, optional=True)
        optional[key] = None if name is None else plain_name(name, where, key)
    return Snapshot(field_of(data, "id", int, where), field_of(data, "schemaId", int, where),
                    names["baseManifestList"], names["deltaManifestList"], optional["indexManifest"],
                    shown(root, path), optional["changelogManifestList"])


# the files a snapshot names, each under manifest/ (statistics: statistics/)
SNAPSHOT_LISTS = ("baseManifestList", "deltaManifestList")
SNAPSHOT_OPTIONAL_NAMES = ("indexManifest", "changelogManifestList", "statistics")


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


def json_type(value: Any) -> DataType:  # (untrusted JSON)
    """A Paimon schema field type: an SQL string, or an object for ARRAY / MAP / MULTISET / ROW."""
    if isinstance(value, str):
        return parse_type(value)
    name = value["type"]
    nullable = not name.endswith("NOT NULL")
    root = name.split()[0]
    if root in ("ARRAY", "MULTISET"):
        children: tuple[DataType, ...] = (json_type(value["element"]),)
    elif root == "MAP":
        children = (json_type(value["key"]), json_type(value["value"]))
    elif root == "ROW":
        fields = value["fields"]
        return DataType("ROW", nullable=nullable, children=tuple(json_type(f["type"]) for f in fields),
                        field_names=tuple(f["name"] for f in fields))
    else:
        raise TableError(f"unknown complex type {name!r} in a schema file")
    return DataType(root, nullable=nullable, children=children)


def load_schema(store: TableStore, schema_id: int) -> Schema:
    """A schema of the store's branch."""
    root, path = store.meta, store.schema_file(schema_id)
    if not path.exists():
        raise TableError(f"schema/schema-{schema_id} (schema): the file is missing")
    data = read_json(root, path, "schema")
    where = f"{shown(root, path)} (schema)"
    fields = []
    for number, item in enumerate(field_of(data, "fields", list, where)):
        at = f"{where} fields[{number}]"
        with reading(root, path, "schema"):
            try:
                data_type = json_type(field_of(item, "type", (str, dict), at))
            except (UsageError, KeyError, TypeError, AttributeError) as err:
                raise TableError(f"{at}: type: {err}") from None
        fields.append(Field(field_of(item, "id", int, at), field_of(item, "name", str, at), data_type,
                            field_of(item, "defaultValue", str, at, optional=True)))
    ids = [f.id for f in fields]
    if len(set(ids)) != len(ids):
        raise TableError(f"{where}: field ids repeat ({sorted(i for i in set(ids) if ids.count(i) > 1)})")
    keys = [field_of(data, name, list, where, optional=True) or [] for name in ("partitionKeys", "primaryKeys")]
    options = field_of(data, "options", dict, where, optional=True) or {}
    if not all(isinstance(k, str) for k in keys[0] + keys[1]) or not all(isinstance(v, str) for v in options.values()):
        raise TableError(f"{where}: partitionKeys, primaryKeys and options hold strings")
    return Schema(field_of(data, "id", int, where), tuple(fields), tuple(keys[0]), tuple(keys[1]), options)


# ------------------------------------------------------------------------------------- data files

INDEX_FILE_SUFFIX = ".index"  # a sidecar index among a data file's extra files

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
    file_size: int | None = None  # bytes, as the manifest says (None: it does not)
    value_stats: ValueStats | None = None  # min/max/null counts of the columns (None: none usable)
    value_stats_cols: tuple[str, ...] | None = None  # the columns the statistics cover (None: every column)

    @property
    def index_files(self) -> tuple[str, ...]:
        """The names of the file's sidecar indexes among its extra files (Paimon names one at most)."""
        return tuple(name for name in self.extra_files if name.endswith(INDEX_FILE_SUFFIX))

    @property
    def identifier(self) -> tuple:
        """Paimon's FileEntry.Identifier (1.3+): what a DELETE entry must match."""
        return (self.partition, self.bucket, self.level, self.file_name, self.extra_files, self.external_path,
                self.embedded_index)


@dataclass(frozen=True)
class ValueStats:
    """A data file's ``_VALUE_STATS``: BinaryRows of the columns' minimums and maximums, and null counts
    (None: unknown), for the columns ``value_stats_cols`` names."""

    min_values: bytes
    max_values: bytes
    null_counts: tuple[int | None, ...]


def _value_stats(record: object) -> ValueStats | None:
    """The record as ValueStats, or None where it is not one (statistics only ever prune: none is sound)."""
    if not isinstance(record, dict):
        return None
    low, high, counts = record.get("_MIN_VALUES"), record.get("_MAX_VALUES"), record.get("_NULL_COUNTS")
    if not isinstance(low, (bytes, bytearray)) or not isinstance(high, (bytes, bytearray)) \
            or not isinstance(counts, list) or not all(c is None or type(c) is int for c in counts):
        return None
    return ValueStats(bytes(low), bytes(high), tuple(counts))


@dataclass(frozen=True)
class ManifestField:
    """Where a manifest entry holds one of DataFile's fields, and the types it may have there."""

    name: str  # the manifest's field
    in_file: bool  # in the entry's _FILE record (else in the entry itself)
    avro: tuple[str, ...]  # Avro types fastavro decodes to ``python`` (``array<string>``: a list of str)
    python: type | tuple[type, ...]
    optional: bool = False
    normal: Any = None  # makes the value DataFile's (hashable tuples, defaults)


_INTS, _STRING, _BYTES, _NAMES = ("int", "long"), ("string",), ("bytes",), ("array<string>",)

# DataFile's fields in its order: the one table both the checked and the typed reading go by
MANIFEST_FIELDS = (
    ManifestField("_PARTITION", False, _BYTES, (bytes, bytearray), normal=bytes),
    ManifestField("_BUCKET", False, _INTS, int),
    ManifestField("_LEVEL", True, _INTS, int),
    ManifestField("_FILE_NAME", True, _STRING, str),
    ManifestField("_ROW_COUNT", True, _INTS, int),
    ManifestField("_SCHEMA_ID", True, _INTS, int),
    ManifestField("_EXTRA_FILES", True, _NAMES, list, True, lambda names: tuple(names) if names else ()),
    ManifestField("_EMBEDDED_FILE_INDEX", True, _BYTES, (bytes, bytearray), True,
                  lambda data: data if data is None or type(data) is bytes else bytes(data)),
    ManifestField("_EXTERNAL_PATH", True, _STRING, str, True),
    ManifestField("_FIRST_ROW_ID", True, _INTS, int, True),
    ManifestField("_WRITE_COLS", True, _NAMES, list, True, lambda names: None if names is None else tuple(names)),
    ManifestField("_MAX_SEQUENCE_NUMBER", True, _INTS, int, True, lambda number: number or 0),
    ManifestField("_FILE_SIZE", True, _INTS, int, True),
    ManifestField("_VALUE_STATS", True, ("record",), dict, True, _value_stats),
    ManifestField("_VALUE_STATS_COLS", True, _NAMES, list, True, lambda names: None if names is None else tuple(names)),
)
_ENTRY_NAMES = tuple(f.name for f in MANIFEST_FIELDS if not f.in_file)
_FILE_NAMES = tuple(f.name for f in MANIFEST_FIELDS if f.in_file)
_NORMALS = tuple((i, f.normal) for i, f in enumerate(MANIFEST_FIELDS) if f.normal is not None)
_LISTS = tuple(i for i, f in enumerate(MANIFEST_FIELDS) if f.python is list)
_ROW_COUNT = _FILE_NAMES.index("_ROW_COUNT") + len(_ENTRY_NAMES)  # (the entry's own fields come first)
_NAME, _EXTRA, _EXTERNAL = (_FILE_NAMES.index(name) + len(_ENTRY_NAMES)
                            for name in ("_FILE_NAME", "_EXTRA_FILES", "_EXTERNAL_PATH"))


def _data_file(row: dict, where: str, typed: bool = False) -> DataFile:
    """The entry of a manifest row. ``typed``: the file's Avro schema gives every field the type
    MANIFEST_FIELDS expects (``typed_manifest``), so only values are checked; otherwise each field's
    type is checked and a wrong one named."""
    values: list[Any]
    if typed:
        meta = row["_FILE"]
        values = [row.get(name) for name in _ENTRY_NAMES] + [meta.get(name) for name in _FILE_NAMES]
    else:
        meta = field_of(row, "_FILE", dict, where)
        at = f"{where} _FILE"
        values = [field_of(meta if f.in_file else row, f.name, f.python, at if f.in_file else where,
                           optional=f.optional) for f in MANIFEST_FIELDS]
        if not all(isinstance(name, str) for i in _LISTS for name in values[i] or ()):
            raise TableError(f"{at}: _EXTRA_FILES, _WRITE_COLS and _VALUE_STATS_COLS hold file and column names")
    if values[_ROW_COUNT] < 0:
        raise TableError(f"{where} _FILE: _ROW_COUNT is {values[_ROW_COUNT]}")
    plain_name(values[_NAME], f"{where} _FILE", "_FILE_NAME")
    for name in values[_EXTRA] or ():
        plain_name(name, f"{where} _FILE", "_EXTRA_FILES entry")
    if values[_EXTERNAL] is not None:
        external_path(values[_EXTERNAL], f"{where} _FILE", "_EXTERNAL_PATH")
    for i, normal in _NORMALS:
        values[i] = normal(values[i])
    return DataFile(*values)


def typed_manifest(schema: object) -> bool:
    """Whether an Avro writer schema gives _KIND and every field of MANIFEST_FIELDS a type fastavro
    decodes to the Python type expected (a nullable union only where the field is optional): then
    the rows it decodes need no per-field type check. Any other schema (or none) is read checked."""
    entry = _record_fields(schema)
    if entry is None:
        return False
    meta = _record_fields(entry.get("_FILE"))
    if meta is None or _avro_shape(entry.get("_KIND")) != ("int", False):
        return False
    for spec in MANIFEST_FIELDS:
        declared = (meta if spec.in_file else entry).get(spec.name)
        if declared is None:
            if not spec.optional:
                return False
            continue
        shape, nullable = _avro_shape(declared)
        if shape not in spec.avro or (nullable and not spec.optional):
            return False
    return True


def _record_fields(schema: object) -> dict | None:
    if not isinstance(schema, dict) or schema.get("type") != "record" or not isinstance(schema.get("fields"), list):
        return None
    return {f["name"]: f.get("type") for f in schema["fields"] if isinstance(f, dict) and "name" in f}


def _avro_shape(declared: object) -> tuple[str | None, bool]:
    """(``int``, ``string``, ``array<string>``...: what the type decodes as, or None for any other
    (a logical type, a named reference), whether it is a union with null)."""
    if isinstance(declared, list):
        others = [t for t in declared if t != "null"]
        if len(declared) == 2 and len(others) == 1:
            shape, nullable = _avro_shape(others[0])
            return (shape, True) if not nullable else (None, False)
        return None, False
    if isinstance(declared, dict):
        if declared.get("type") == "record":
            return "record", False
        if declared.get("type") == "array" and set(declared) == {"type", "items"}:
            return ("array<string>", False) if _avro_shape(declared["items"]) == ("string", False) else (None, False)
        return _avro_shape(declared["type"]) if set(declared) == {"type"} else (None, False)
    if declared in ("int", "long", "string", "bytes"):
        return declared, False
    return None, False


def live_files(store: TableStore, snapshot: Snapshot,
               keep_manifest: Callable[[ValueStats | None], bool] | None = None) -> list[DataFile]:
    """ADD entries not DELETEd, over the base and delta manifest lists (table spec §5). Each manifest
    list's and manifest's decoded entries are memoized per process (``MANIFESTS``). ``keep_manifest``:
    whether to read a manifest, from its partition statistics (a manifest left out must hold no entry,
    ADD or DELETE, of a partition the caller wants)."""
    live: dict[tuple, DataFile] = {}
    for manifest, listed_in in _manifests(store, snapshot, keep_manifest):
        _merge(live, ((kind, entry, entry) for kind, entry in manifest_entries(store.root, manifest, listed_in)))
    return list(live.values())


def live_entries(store: TableStore, snapshot: Snapshot) -> list[tuple[ManifestEntry, DataFile]]:
    """``live_files`` with each file's whole manifest entry (what a committer writes back); read from the
    files every time (only what a scan needs is memoized)."""
    live: dict[tuple, tuple[ManifestEntry, DataFile]] = {}
    for manifest, listed_in in _manifests(store, snapshot):
        _merge(live, ((kind, entry, (ManifestEntry.from_avro(row), entry))
                      for kind, entry, row in _decoded_manifest(store.root, manifest, listed_in)))
    return list(live.values())


def _merge(live: dict, entries: Iterable[tuple[int, DataFile, Any]]) -> None:
    """In manifest order, as Java's FileEntry.mergeEntries: a DELETE removes the ADD before it, and an ADD after
    it (a rewrite that gives a file back an entry it had) is live again."""
    for kind, entry, value in entries:
        if kind == 0:
            live[entry.identifier] = value
        else:
            live.pop(entry.identifier, None)


# Manifest lists and manifests are immutable in Paimon (each commit writes new names); a file rewritten
# in place anyway has a new identity. Weighed by the files' sizes: decoded, an entry with its embedded
# index takes about 3.5 times its Avro bytes (measured: 2.2 MiB for a 0.63 MiB manifest of 2,000 entries),
# so 32 MiB of manifests is about 110 MiB held.
MANIFESTS: BoundedMemo[Any] = BoundedMemo(items=4096, budget=32 << 20)


def _memoized(path: Path, what: str, decode: Callable[[], T]) -> T:
    """``decode()`` of the file at ``path`` (decoded as ``what``), memoized under the file's identity; a file
    that cannot be stat'ed or decoded is not memoized (reading it raises, each time)."""
    try:
        stat = os.stat(path)
    except OSError:
        return decode()
    key = (file_identity(os.fspath(path), stat), what)
    found = MANIFESTS.get(key)
    if found is None:  # (the identity was taken before reading: a file changed since is missed next time)
        found = decode()
        MANIFESTS.put(key, found, stat.st_size)
    return cast(T, found)


@dataclass(frozen=True)
class ManifestMeta:
    """A manifest list's row: the manifest's name and the statistics of its entries' partitions."""

    name: str
    partition_stats: ValueStats | None


def _manifests(store: TableStore, snapshot: Snapshot,
               keep: Callable[[ValueStats | None], bool] | None = None) -> list[tuple[Path, str]]:
    """(path, the manifest list naming it, as shown) of every manifest of the snapshot that ``keep`` keeps,
    in order."""
    manifests = []
    for listing in (snapshot.base_manifest_list, snapshot.delta_manifest_list):
        path = store.manifest_file(listing)
        metas = _memoized(path, "manifest list", partial(manifest_list_entries, store.root, path,
                                                         f"manifest list named by {snapshot.file}"))
        manifests += [(store.manifest_file(meta.name), shown(store.root, path)) for meta in metas
                      if keep is None or keep(meta.partition_stats)]
    return manifests


def manifest_list_entries(root: Path, path: Path, kind: str = "manifest list") -> tuple[ManifestMeta, ...]:
    """The manifests a manifest list names (each a plain name, under manifest/), with their partition statistics."""
    rows = read_rows(path, kind, root)
    metas = []
    for number, row in enumerate(rows):
        where = f"{shown(root, path)} (manifest list) row {number}"
        metas.append(ManifestMeta(plain_name(field_of(row, "_FILE_NAME", str, where), where, "_FILE_NAME"),
                                  _value_stats(row.get("_PARTITION_STATS"))))
    return tuple(metas)


def manifest_list_names(root: Path, path: Path, kind: str = "manifest list") -> tuple[str, ...]:
    return tuple(meta.name for meta in manifest_list_entries(root, path, kind))


def manifest_entries(root: Path, path: Path, listed_in: str) -> tuple[tuple[int, DataFile], ...]:
    """(kind: 0 ADD, 1 DELETE; the entry) of each row of a manifest, memoized (``MANIFESTS``)."""
    return _memoized(path, "manifest", lambda: tuple((kind, entry) for kind, entry, _
                                                     in _decoded_manifest(root, path, listed_in)))


def _decoded_manifest(root: Path, path: Path, listed_in: str) -> list[tuple[int, DataFile, dict]]:
    with collection_paused():  # its rows are many objects living until the entries are built
        return _decode_manifest(root, path, listed_in)


def _decode_manifest(root: Path, path: Path, listed_in: str) -> list[tuple[int, DataFile, dict]]:
    name = shown(root, path)
    rows, schema = read_rows_and_schema(path, f"manifest named by {listed_in}", root)
    typed = typed_manifest(schema)
    decoded = []
    for number, row in enumerate(rows):
        where = f"{name} (manifest) row {number}"
        kind = row["_KIND"] if typed else field_of(row, "_KIND", int, where)
        if kind not in (0, 1):
            raise TableError(f"{where}: entry kind {kind} (0 = ADD, 1 = DELETE)")
        decoded.append((kind, _data_file(row, where, typed), row))
    return decoded


def data_file_path(store: TableStore, schema: Schema, entry: DataFile) -> Path:
    if entry.external_path:
        return local_external_path(entry.external_path)
    return bucket_dir(store, schema, entry) / entry.file_name


def bucket_dir(store: TableStore, schema: Schema, entry: DataFile) -> Path:
    if schema.partition_keys:
        from fileindex.java.binary_row import partition_path

        return store.bucket_dir(partition_path(entry.partition, schema), entry.bucket)
    return store.bucket_dir(None, entry.bucket)
