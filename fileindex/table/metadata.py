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
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from fileindex.frozen import field, frozen, replace
from functools import cache, lru_cache, partial
from pathlib import Path
from typing import Any, TypeVar, cast

from fileindex.errors import ConfinementError, FileIndexError, UsageError
from fileindex.io import NotRegularError
from fileindex.lazy import import_submodule
from fileindex.memo import BoundedMemo, collection_paused
from fileindex.table.avro_blocks import budget_for, container_blocks
from fileindex.table.errors import TableError
from fileindex.table.manifest_entry import (
    ADD,
    ManifestEntry,
    ValueStats,
    decode_entry,
    typed_manifest,
    value_stats,
)
from fileindex.table.records import field_of
from fileindex.table.names import plain_name, shown_value, whole_number
from fileindex.table.store import TableStore, not_a_table
from fileindex.types import DataType, parse_type


T = TypeVar("T")


class TableHintWarning(UserWarning):
    """The LATEST hint could not be used; the snapshot was found by listing, as Paimon does."""


def shown(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


@contextmanager
def reading(store: TableStore, path: Path, kind: str) -> Iterator[None]:
    """The one boundary of metadata reads: every exception a library raises on a bad file becomes a
    TableError naming the file and what it was read as."""
    name = store.shown(path)
    try:
        yield
    except TableError:
        raise
    except NotRegularError:
        raise TableError(f"{name} ({kind}): not a regular file") from None
    except ConfinementError as err:
        raise TableError(f"{name} ({kind}): {err}") from None
    except FileNotFoundError:
        raise TableError(f"{name} ({kind}): the file is missing") from None
    except OSError as err:
        raise TableError(f"{name} ({kind}): cannot read: {err.strerror or err}") from None
    except RecursionError:
        raise TableError(f"{name} ({kind}): nested too deeply to read") from None
    except Exception as err:  # fastavro, pyarrow, json and zstd raise many types on malformed input
        detail = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise TableError(f"{name} ({kind}): not a readable file: {detail}") from None


def read_rows(store: TableStore, path: Path, kind: str = "manifest") -> list[dict]:
    """The rows of a manifest, manifest list or index manifest, as dicts (Avro, ORC or Parquet)."""
    return read_rows_and_schema(store, path, kind)[0]


@cache
def avro_reader() -> Callable[..., Any]:
    """fastavro's ``reader``: from its C module (what ``fastavro.read`` takes where it is built), imported without the
    package's ``__init__`` and its writer (``fileindex.lazy.import_submodule``). Its ``bz2`` and ``lzma`` are imported
    on first use, never here: ``uncompressed_container`` hands fastavro blocks decompressed already."""
    try:
        return import_submodule("fastavro._read", "bz2", "lzma").reader
    except ImportError:  # (a fastavro without its C extension)
        return import_submodule("fastavro.read").reader


@cache
def avro_decoding() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """fastavro's ``schemaless_reader`` and ``parse_schema``, imported as :func:`avro_reader` imports its reader: a
    container's blocks are decoded record by record with its writer schema parsed once a process
    (:func:`writer_schema`), where fastavro's own reader would parse it again for each of a table's manifests."""
    try:
        return (import_submodule("fastavro._read", "bz2", "lzma").schemaless_reader,
                import_submodule("fastavro._schema").parse_schema)
    except ImportError:  # (a fastavro without its C extension)
        return import_submodule("fastavro.read").schemaless_reader, import_submodule("fastavro.schema").parse_schema


@lru_cache(maxsize=32)
def writer_schema(text: bytes) -> Any:
    """An Avro container's writer schema (its ``avro.schema`` JSON), parsed as fastavro's reader parses it (refusing
    what it refuses), each record bearing fastavro's mark of a parsed schema; shared by every caller, which only
    reads it.

    ``schemaless_reader`` parses its schema again at every call, down to the records that bear the mark: fastavro
    marks a record parsed as the whole schema, never a union's branch, so the branches of a union (pypaimon-rust
    writes ``["null", record]``) are parsed again one by one, sharing the names the union defines. Unmarked, the
    parse was about 20 µs of a manifest row's 36 (#54)."""
    parse, parsed = avro_decoding()[1], json.loads(text)
    if not isinstance(parsed, list):
        return parse(parsed, _force=True)
    parse(parsed, _write_hint=False, _force=True)  # (the union whole first: refused as the reader refuses it)
    named: dict[str, Any] = {}
    return [parse(branch, named, _force=True) for branch in parsed]


MAX_MANIFEST_BYTES = 1 << 30  # a manifest-family file, read whole: Paimon's target is 8 MiB


@lru_cache(maxsize=32)
def typed_writer_schema(text: bytes) -> bool:
    """``typed_manifest`` of the writer schema ``text`` declares, once a schema (a table's manifests share one: it was
    about 1% of a cold read's instructions, asked again of each manifest, #54)."""
    return typed_manifest(writer_schema(text))


def read_rows_and_schema(store: TableStore, path: Path, kind: str = "manifest") -> tuple[list[dict], Any]:
    """``read_rows`` and, for an Avro file, the writer schema fastavro decoded its rows by (else None)."""
    rows, schema, _ = _rows_and_schema(store, path, kind)
    return rows, schema


def _rows_and_schema(store: TableStore, path: Path, kind: str) -> tuple[list[dict], Any, bytes | None]:
    """``read_rows_and_schema`` and, for an Avro file, its writer schema's text (else None)."""
    schema = text = None
    name = f"{store.shown(path)} ({kind})"
    with reading(store, path, kind):
        data = store.read_bytes(path, name, MAX_MANIFEST_BYTES)
        magic = data[:4]
        if magic == b"Obj\x01":
            metadata, blocks = container_blocks(data, name)
            if b"avro.schema" not in metadata:
                raise TableError(f"{name}: an Avro container without its schema")
            text = metadata[b"avro.schema"]
            schema = writer_schema(text)
            record = avro_decoding()[0]
            rows: list[Any] = []
            for records, block in blocks:
                stream = io.BytesIO(block)
                rows += (record(stream, schema, None) for _ in range(records))
        elif magic[:3] == b"ORC":
            from fileindex.table.orc_helper import orc_rows  # (and subprocess) for ORC tables only

            rows = orc_rows(data)
        elif magic == b"PAR1":
            import pyarrow as pa

            from fileindex.arrow.parquet_file import ParquetFile

            parquet = ParquetFile(pa.BufferReader(data))
            expanded = sum(parquet.metadata.row_group(i).total_byte_size for i in range(parquet.num_row_groups))
            if expanded > budget_for(len(data)) or parquet.metadata.num_rows > len(data):
                raise TableError(f"{name}: {parquet.metadata.num_rows} rows of {expanded} bytes in a {len(data)}-byte "
                                 "file: more than a Paimon writer makes")
            rows = parquet.read().to_pylist()
        else:
            raise TableError(f"{name}: not an Avro, ORC or Parquet file (magic {magic!r})")
    if not all(isinstance(row, dict) for row in rows):
        raise TableError(f"{name}: rows are not records")
    return rows, schema, text


MAX_JSON_BYTES = 64 << 20  # a snapshot or schema file: Java's largest are a few hundred KiB


def read_json(store: TableStore, path: Path, kind: str) -> dict:
    name = store.shown(path)
    with reading(store, path, kind):
        try:
            text = store.read_bytes(path, f"{name} ({kind})", MAX_JSON_BYTES)
        except ConfinementError as err:
            if isinstance(err, NotRegularError):
                raise
            raise TableError(f"{name} ({kind}): larger than {MAX_JSON_BYTES >> 20} MiB, which no Paimon writer "
                             "makes") from None
        data = json.loads(text)
    if not isinstance(data, dict):
        raise TableError(f"{name} ({kind}): not a JSON object")
    return data


# ------------------------------------------------------------------------------------- snapshot, schema

@frozen
class Snapshot:
    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    index_manifest: str | None
    file: str = ""  # where it was read from, relative to the table root
    changelog_manifest_list: str | None = None


MAX_HINT_BYTES = 1 << 10  # a LATEST or EARLIEST hint: a snapshot id


def latest_snapshot_id(store: TableStore, *, fetch_ahead: bool = False) -> int:
    """Paimon's SnapshotManager: the LATEST hint when its snapshot exists and has no successor,
    otherwise the highest snapshot-N by listing (saying why on a warning). ``fetch_ahead`` (on a store, for a caller
    that reads the snapshot next): the hint's snapshot is fetched beside the request asking for its successor, not
    after it (a GET wasted only where the hint is not the latest)."""
    root, hint = store.meta, store.latest_hint
    problem = ""
    if store.remote or store.is_file(hint):  # (on a store: read at once, a missing hint is a 404 like a HEAD's)
        try:
            text = store.read_bytes(hint, "LATEST hint", MAX_HINT_BYTES).decode(errors="replace").strip()
        except FileNotFoundError:
            text, problem = "", "is missing"
        except (OSError, ConfinementError) as err:
            text, problem = "", f"cannot be read ({getattr(err, 'strerror', None) or err})"
        # on a store the hint's snapshot is not looked up: load_snapshot reads it (a missing one is an error)
        if whole_number(text) and (store.remote or store.is_file(store.snapshot_file(int(text)))) \
                and not _successor_exists(store, int(text), fetch_ahead):
            return int(text)
        problem = problem or (f"names snapshot {shown_value(text)}, which does not exist" if whole_number(text)
                              and not store.is_file(store.snapshot_file(int(text)))
                              else "is not the latest snapshot" if whole_number(text) else f"holds {shown_value(text)}")
        if problem == "is missing":
            problem = ""  # (no hint is no problem: Paimon lists then too)
    ids = store.snapshot_ids()
    if not ids:
        raise not_a_table(root, "no snapshot/ folder with snapshots")
    if problem:
        warnings.warn(TableHintWarning(f"{store.shown(hint)} {problem}: using snapshot-{max(ids)}, the "
                                       "latest by listing"), stacklevel=2)
    return max(ids)


def _successor_exists(store: TableStore, snapshot_id: int, fetch_ahead: bool) -> bool:
    """Whether ``snapshot-(snapshot_id + 1)`` exists (one HEAD); with ``fetch_ahead`` on a store, ``snapshot_id``'s
    file fetched meanwhile (``TableStore.fetch_ahead``)."""
    successor = store.snapshot_file(snapshot_id + 1)
    if not (fetch_ahead and store.remote):
        return store.exists(successor)
    from fileindex.parallel import aside

    fetched = aside(lambda: store.fetch_ahead(store.snapshot_file(snapshot_id), MAX_JSON_BYTES))
    exists = store.exists(successor)
    fetched.result()  # (held for the read that follows: not fetched twice)
    return exists


def load_snapshot(store: TableStore, snapshot_id: int | None = None) -> Snapshot:
    """A snapshot of the store's branch (None: the latest)."""
    if snapshot_id is not None and (not isinstance(snapshot_id, int) or isinstance(snapshot_id, bool)):
        raise UsageError(f"snapshot {snapshot_id!r}: give a snapshot id (a whole number)")
    snapshot_id = latest_snapshot_id(store, fetch_ahead=True) if snapshot_id is None else snapshot_id
    path = store.snapshot_file(snapshot_id)
    if store.remote:  # (no HEAD before the GET: a missing snapshot is the GET's 404)
        try:
            return read_snapshot(store, path)
        except TableError as err:
            if str(err).endswith("the file is missing"):
                raise no_snapshot(store, snapshot_id) from None
            raise
    if not store.is_file(path):
        raise no_snapshot(store, snapshot_id)
    return read_snapshot(store, path)


def no_snapshot(store: TableStore, snapshot_id: int) -> UsageError:
    """A snapshot id the branch does not have, and the ones it has (one listing: the command fails anyway)."""
    try:
        ids = store.snapshot_ids()
    except (OSError, FileIndexError):
        ids = []
    held = "" if not ids else f" (it has snapshot {ids[0]})" if len(ids) == 1 else \
        f" (it has snapshots {ids[0]} to {ids[-1]})" if ids[-1] - ids[0] == len(ids) - 1 else \
        f" (it has snapshots {', '.join(map(str, ids))})"
    return UsageError(f"{store.meta}: no snapshot {snapshot_id}{held}")


def read_snapshot(store: TableStore, path: Path) -> Snapshot:
    """A snapshot file, or a tag file (a snapshot under a name), of the store's branch."""
    data = read_json(store, path, "snapshot")
    where = f"{store.shown(path)} (snapshot)"
    names = {key: plain_name(field_of(data, key, str, where), where, key) for key in SNAPSHOT_LISTS}
    optional = {}
    for key in SNAPSHOT_OPTIONAL_NAMES:
        name = field_of(data, key, str, where, optional=True)
        optional[key] = None if name is None else plain_name(name, where, key)
    return Snapshot(field_of(data, "id", int, where), field_of(data, "schemaId", int, where),
                    names["baseManifestList"], names["deltaManifestList"], optional["indexManifest"],
                    store.shown(path), optional["changelogManifestList"])


# the files a snapshot names, each under manifest/ (statistics: statistics/)
SNAPSHOT_LISTS = ("baseManifestList", "deltaManifestList")
SNAPSHOT_OPTIONAL_NAMES = ("indexManifest", "changelogManifestList", "statistics")


@frozen
class Field:
    id: int
    name: str
    type: DataType
    default_value: str | None = None


BOOLEANS = {"TRUE": True, "FALSE": False}  # a boolean option's values (Java's OptionsUtils.convertToBoolean)


@frozen
class Schema:
    id: int
    fields: tuple[Field, ...]
    partition_keys: tuple[str, ...]
    primary_keys: tuple[str, ...]
    options: dict = field(default_factory=dict)
    file: str = ""  # where it was read from, relative to the table root

    def flag(self, key: str, default: bool) -> bool:
        """A boolean option read as Java's ``Options`` reads one: true or false in any case and nothing else (no
        blank around it), a TableError naming the option and the schema file otherwise, as Java refuses it."""
        text = self.options.get(key)
        if text is None:
            return default
        value = boolean_option(text)
        if value is None:
            where = f"{self.file} (schema)" if self.file else "the table's schema"
            raise TableError(f"{where}: option {key}={shown_value(text)} is not a boolean: Java reads true or false "
                             "(in any case) and refuses anything else")
        return value

    def by_name(self) -> dict[str, Field]:
        return {f.name: f for f in self.fields}

    def by_id(self) -> dict[int, Field]:
        return {f.id: f for f in self.fields}

    def types(self) -> dict[str, DataType]:
        return {f.name: f.type for f in self.fields}


# the table-wide boolean options read here (Schema.flag), refused unless true or false where they are set
BOOLEAN_OPTIONS = frozenset({"data-evolution.enabled", "deletion-vectors.enabled", "file-index.read.enabled",
                             "partition.legacy-name", "index-file-in-data-file-dir", "ignore-delete"})


def boolean_option(text: str) -> bool | None:
    """A boolean option's value as Java parses it (true or false in any case, nothing around); None: neither."""
    return BOOLEANS.get(text.upper())  # (Java's toUpperCase, which also takes 'ſ' for 's')


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
        raise TableError(f"unknown complex type {name!r}")
    return DataType(root, nullable=nullable, children=children)


def load_schema(store: TableStore, schema_id: int) -> Schema:
    """A schema of the store's branch."""
    path = store.schema_file(schema_id)
    if not store.remote and not store.exists(path):  # (on a store: the GET's 404 says the same)
        raise TableError(f"schema/schema-{schema_id} (schema): the file is missing")
    data = read_json(store, path, "schema")
    where = f"{store.shown(path)} (schema)"
    fields = []
    for number, item in enumerate(field_of(data, "fields", list, where)):
        at = f"{where} fields[{number}]"
        with reading(store, path, "schema"):
            try:
                data_type = json_type(field_of(item, "type", (str, dict), at))
            except (UsageError, TableError, KeyError, TypeError, AttributeError) as err:
                raise TableError(f"{at}: type: {err}") from None
        fields.append(Field(field_of(item, "id", int, at), field_of(item, "name", str, at), data_type,
                            field_of(item, "defaultValue", str, at, optional=True)))
    ids = [f.id for f in fields]
    if len(set(ids)) != len(ids):
        raise TableError(f"{where}: field ids repeat ({sorted(i for i in set(ids) if ids.count(i) > 1)})")
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise TableError(f"{where}: field names repeat ({sorted(n for n in set(names) if names.count(n) > 1)})")
    keys = [field_of(data, name, list, where, optional=True) or [] for name in ("partitionKeys", "primaryKeys")]
    options = field_of(data, "options", dict, where, optional=True) or {}
    if not all(isinstance(k, str) for k in keys[0] + keys[1]) or not all(isinstance(v, str) for v in options.values()):
        raise TableError(f"{where}: partitionKeys, primaryKeys and options hold strings")
    for name, named in zip(("partitionKeys", "primaryKeys"), keys, strict=True):
        if unknown := [k for k in named if k not in names]:
            raise TableError(f"{where}: {name} names no field {', '.join(map(repr, unknown))}")
    if (declared := field_of(data, "id", int, where)) != schema_id:
        # (a table's schema and an older file's are told apart by id: one naming another would read by wrong fields)
        raise TableError(f"{where}: its id is {declared}, not {schema_id} as its file name says")
    return Schema(schema_id, tuple(fields), tuple(keys[0]), tuple(keys[1]), options, store.shown(path))


class Schemas:
    """A table's schemas by id, each read once, and a data file's schema: the one it was written with,
    narrowed to the columns it wrote (``_WRITE_COLS``)."""

    def __init__(self, store: TableStore, *known: Schema):
        self.store = store
        self._by_id = {schema.id: schema for schema in known}
        self._of_file: dict[tuple, Schema] = {}

    def by_id(self, schema_id: int) -> Schema:
        schema = self._by_id.get(schema_id)
        if schema is None:
            schema = self._by_id[schema_id] = load_schema(self.store, schema_id)
        return schema

    def of(self, entry: ManifestEntry) -> Schema:
        key = (entry.schema_id, entry.write_cols)
        schema = self._of_file.get(key)
        if schema is None:
            schema = self.by_id(entry.schema_id)
            if entry.write_cols is not None:
                wanted = set(entry.write_cols)
                if unknown := sorted(wanted - set(schema.by_name())):
                    # (Java's read refuses it; read, the file's other columns were nulls, its claim on them unseen)
                    raise TableError(f"data file {entry.file_name} (bucket {entry.bucket}): _WRITE_COLS names no "
                                     f"field {', '.join(map(repr, unknown))} of its schema ({entry.schema_id})")
                schema = replace(schema, fields=tuple(f for f in schema.fields if f.name in wanted))
            self._of_file[key] = schema
        return schema


# ------------------------------------------------------------------------------------- data files

def live_files(store: TableStore, snapshot: Snapshot,
               keep_manifest: Callable[[ValueStats | None], bool] | None = None) -> list[ManifestEntry]:
    """ADD entries not DELETEd, over the base and delta manifest lists (table spec §5). Each manifest
    list's and manifest's decoded entries are memoized per process (``MANIFESTS``). ``keep_manifest``:
    whether to read a manifest, from its partition statistics (a manifest left out must hold no entry,
    ADD or DELETE, of a partition the caller wants)."""
    live: dict[tuple, ManifestEntry] = {}
    manifests = _manifests(store, snapshot, keep_manifest)
    if store.remote:  # (each a request: fetched together, decoded in order)
        store.prefetch(_not_memoized([path for path, _ in manifests], "manifest"), MAX_MANIFEST_BYTES)
    for manifest, listed_in in manifests:
        _merge(live, manifest_entries(store, manifest, listed_in))
    return _each_file_once(live, snapshot)


def live_entries(store: TableStore, snapshot: Snapshot) -> list[ManifestEntry]:
    """``live_files``, each entry holding its Avro row (what a committer writes back); read from the files
    every time (only what a scan needs is memoized)."""
    live: dict[tuple, ManifestEntry] = {}
    for manifest, listed_in in _manifests(store, snapshot):
        _merge(live, _decoded_manifest(store, manifest, listed_in, keep_rows=True))
    return _each_file_once(live, snapshot)


def _merge(live: dict[tuple, ManifestEntry], entries: Iterable[ManifestEntry]) -> None:
    """In manifest order, as Java's FileEntry.mergeEntries: a DELETE removes the ADD before it, and an ADD after
    it (a rewrite that gives a file back an entry it had) is live again."""
    for entry in entries:
        if entry.kind is ADD:
            live[entry.identifier] = entry
        else:
            live.pop(entry.identifier, None)


def _each_file_once(live: dict[tuple, ManifestEntry], snapshot: Snapshot) -> list[ManifestEntry]:
    """The live entries, refusing a data file live under two of them (an ADD at another level, or with other
    extra files or index, that no DELETE removed): its rows would be read twice."""
    files: dict[tuple, ManifestEntry] = {}
    for entry in live.values():
        where = (entry.external_path,) if entry.external_path else (entry.partition, entry.bucket, entry.file_name)
        other = files.setdefault(where, entry)
        if other is not entry:
            raise TableError(f"{snapshot.file}: data file {entry.file_name} (bucket {entry.bucket}) is live under two "
                             f"manifest entries (levels {other.level} and {entry.level}): a table holds a file once")
    return list(live.values())


# Manifest lists and manifests are immutable in Paimon (each commit writes new names); a file rewritten
# in place anyway has a new identity. Weighed by the files' sizes: decoded, an entry with its embedded
# index takes about 3.5 times its Avro bytes (measured: 2.2 MiB for a 0.63 MiB manifest of 2,000 entries),
# so 32 MiB of manifests is about 110 MiB held.
MANIFESTS: BoundedMemo[Any] = BoundedMemo(items=4096, budget=32 << 20)


def _remote_key(path: Path, what: str) -> tuple:
    """The ``MANIFESTS`` key of a metadata file on a remote store (its name: see ``_memoized``)."""
    return (str(path),), what


def _not_memoized(paths: list[Path], what: str) -> list[Path]:
    """The metadata files on a remote store whose decoded ``what`` is not memoized yet."""
    return [path for path in paths if MANIFESTS.get(_remote_key(path, what)) is None]


def _memoized(store: TableStore, path: Path, what: str, decode: Callable[[], T]) -> T:
    """``decode()`` of the file at ``path`` (decoded as ``what``), memoized under the file's identity; a file
    that cannot be looked up or decoded is not memoized (reading it raises, each time)."""
    if store.remote:  # (a HEAD costs what the GET does: a manifest's name is its identity, Paimon never rewrites one)
        key: tuple = _remote_key(path, what)
        found = MANIFESTS.get(key)
        if found is None:
            found = decode()
            MANIFESTS.put(key, found, store.bytes_read(path))
        return cast(T, found)
    info = store.io.info(str(path))
    if info is None or info.kind != "file":
        return decode()
    key = (info.identity, what)
    found = MANIFESTS.get(key)
    if found is None:  # (the identity was taken before reading: a file changed since is missed next time)
        found = decode()
        MANIFESTS.put(key, found, info.size)
    return cast(T, found)


@frozen
class ManifestMeta:
    """A manifest list's row: the manifest's name and the statistics of its entries' partitions."""

    name: str
    partition_stats: ValueStats | None


def _manifests(store: TableStore, snapshot: Snapshot,
               keep: Callable[[ValueStats | None], bool] | None = None) -> list[tuple[Path, str]]:
    """(path, the manifest list naming it, as shown) of every manifest of the snapshot that ``keep`` keeps,
    in order."""
    manifests = []
    listings = [store.manifest_file(name) for name in (snapshot.base_manifest_list, snapshot.delta_manifest_list)]
    if store.remote:  # (the base and delta lists fetched together: one round trip, not two)
        store.prefetch(_not_memoized(listings, "manifest list"), MAX_MANIFEST_BYTES)
    for path in listings:
        metas = _memoized(store, path, "manifest list", partial(manifest_list_entries, store, path,
                                                         f"manifest list named by {snapshot.file}"))
        shown = store.shown(path)  # (one listing's: not worked out again per manifest)
        manifests += [(store.manifest_file(meta.name), shown) for meta in metas
                      if keep is None or keep(meta.partition_stats)]
    return manifests


def manifest_list_entries(store: TableStore, path: Path, kind: str = "manifest list") -> tuple[ManifestMeta, ...]:
    """The manifests a manifest list names (each a plain name, under manifest/), with their partition statistics."""
    rows = read_rows(store, path, kind)
    metas = []
    for number, row in enumerate(rows):
        where = f"{store.shown(path)} (manifest list) row {number}"
        metas.append(ManifestMeta(plain_name(field_of(row, "_FILE_NAME", str, where), where, "_FILE_NAME"),
                                  value_stats(row.get("_PARTITION_STATS"))))
    return tuple(metas)


def manifest_list_names(store: TableStore, path: Path, kind: str = "manifest list") -> tuple[str, ...]:
    return tuple(meta.name for meta in manifest_list_entries(store, path, kind))


def manifest_entries(store: TableStore, path: Path, listed_in: str) -> tuple[ManifestEntry, ...]:
    """The entries of a manifest, ADD and DELETE, memoized (``MANIFESTS``)."""
    return _memoized(store, path, "manifest", lambda: tuple(_decoded_manifest(store, path, listed_in)))


def _decoded_manifest(store: TableStore, path: Path, listed_in: str, *,
                      keep_rows: bool = False) -> list[ManifestEntry]:
    with collection_paused():  # its rows are many objects living until the entries are built
        name = store.shown(path)
        rows, _, text = _rows_and_schema(store, path, f"manifest named by {listed_in}")
        typed = text is not None and typed_writer_schema(text)
        return [decode_entry(row, f"{name} (manifest) row {number}", typed, keep_row=keep_rows)
                for number, row in enumerate(rows)]
