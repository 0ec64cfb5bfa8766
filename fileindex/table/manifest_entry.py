"""A manifest entry as a value (table spec §5; rewrite design §2.1): :class:`ManifestEntry`, the one type a
scan reads and a rewrite changes and commits back, with its kind (:class:`EntryKind`), read from and written
to the manifest's Avro row in one place (``decode_entry``, ``ManifestEntry.to_avro``).
"""
from __future__ import annotations

from fileindex.frozen import field, frozen
from enum import IntEnum
from typing import Any

from fileindex.table.errors import TableError
from fileindex.table.names import external_path, plain_name
from fileindex.table.records import field_of


INDEX_FILE_SUFFIX = ".index"  # a sidecar index among a data file's extra files

class EntryKind(IntEnum):
    """What a manifest entry does to its data file (``_KIND``)."""

    ADD = 0
    DELETE = 1


ADD, DELETE = EntryKind.ADD, EntryKind.DELETE


@frozen
class ManifestEntry:
    """One row of a manifest (Paimon's ``ManifestEntry`` with its ``DataFileMeta``): ADD or DELETE of a data file.

    The one type scans, rewrite and commit share. The fields are the ones this project reads or changes;
    ``row`` is the Avro row as read, kept only where an entry is to be written back (``live_entries``), so
    that ``to_avro`` gives back every field it does not type (statistics, keys, creation time, the fields
    of later Paimon versions) as the table wrote it. Changing an entry is ``dataclasses.replace``.
    """

    kind: EntryKind
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
    # a primary-key table's key-value file: its smallest and largest key (BinaryRows of the primary key without
    # the partition keys; empty for append tables), their statistics, its retract (-U/-D) row count (None: not
    # recorded) and its smallest sequence number
    min_key: bytes = b""
    max_key: bytes = b""
    key_stats: ValueStats | None = None
    delete_row_count: int | None = None
    min_sequence_number: int = 0
    row: dict | None = field(default=None, repr=False, compare=False)  # the Avro row as read, for writing back

    @property
    def index_files(self) -> tuple[str, ...]:
        """The names of the file's sidecar indexes among its extra files (Paimon names one at most)."""
        return tuple(name for name in self.extra_files if name.endswith(INDEX_FILE_SUFFIX))

    @property
    def identifier(self) -> tuple:
        """Paimon's FileEntry.Identifier (1.3+): what a DELETE entry must match."""
        return (self.partition, self.bucket, self.level, self.file_name, self.extra_files, self.external_path,
                self.embedded_index)

    @classmethod
    def from_avro(cls, row: dict, where: str = "manifest row") -> ManifestEntry:
        """The entry of a decoded manifest row, its fields checked, holding the row for ``to_avro``."""
        return decode_entry(row, where, keep_row=True)

    def to_avro(self) -> dict:
        """The row to write: the row as read, with the fields a writer changes (the kind, partition and
        bucket; the file's name, size, schema, level, extra files and embedded index) set from the entry (a
        None the table's schema has no field for is left out by the writer)."""
        if self.row is None:
            raise ValueError(f"{self.file_name}: an entry read without its row (live_files) cannot be written "
                             "back: read it with live_entries")
        changed = {"_FILE_NAME": self.file_name, "_FILE_SIZE": self.file_size, "_SCHEMA_ID": self.schema_id,
                   "_LEVEL": self.level, "_EXTRA_FILES": list(self.extra_files),
                   "_EMBEDDED_FILE_INDEX": self.embedded_index}
        return {**self.row, "_KIND": int(self.kind), "_PARTITION": self.partition, "_BUCKET": self.bucket,
                "_FILE": {**self.row["_FILE"], **changed}}


@frozen
class ValueStats:
    """A data file's ``_VALUE_STATS``: BinaryRows of the columns' minimums and maximums, and null counts
    (None: unknown), for the columns ``value_stats_cols`` names."""

    min_values: bytes
    max_values: bytes
    null_counts: tuple[int | None, ...]


def value_stats(record: object) -> ValueStats | None:
    """The record as ValueStats, or None where it is not one (statistics only ever prune: none is sound)."""
    if not isinstance(record, dict):
        return None
    low, high, counts = record.get("_MIN_VALUES"), record.get("_MAX_VALUES"), record.get("_NULL_COUNTS")
    if not isinstance(low, (bytes, bytearray)) or not isinstance(high, (bytes, bytearray)) \
            or not isinstance(counts, list) or not all(c is None or type(c) is int for c in counts):
        return None
    return ValueStats(bytes(low), bytes(high), tuple(counts))


@frozen
class ManifestField:
    """Where a manifest row holds one of ManifestEntry's fields, and the types it may have there."""

    name: str  # the manifest's field
    in_file: bool  # in the entry's _FILE record (else in the entry itself)
    avro: tuple[str, ...]  # Avro types fastavro decodes to ``python`` (``array<string>``: a list of str)
    python: type | tuple[type, ...]
    optional: bool = False
    normal: Any = None  # makes the value ManifestEntry's (hashable tuples, defaults)


_INTS, _STRING, _BYTES, _NAMES = ("int", "long"), ("string",), ("bytes",), ("array<string>",)

# ManifestEntry's fields after its kind, in its order: the one table both the checked and the typed reading go by
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
    ManifestField("_VALUE_STATS", True, ("record",), dict, True, value_stats),
    ManifestField("_VALUE_STATS_COLS", True, _NAMES, list, True, lambda names: None if names is None else tuple(names)),
    ManifestField("_MIN_KEY", True, _BYTES, (bytes, bytearray), True, lambda row: b"" if row is None else bytes(row)),
    ManifestField("_MAX_KEY", True, _BYTES, (bytes, bytearray), True, lambda row: b"" if row is None else bytes(row)),
    ManifestField("_KEY_STATS", True, ("record",), dict, True, value_stats),
    ManifestField("_DELETE_ROW_COUNT", True, _INTS, int, True),
    ManifestField("_MIN_SEQUENCE_NUMBER", True, _INTS, int, True, lambda number: number or 0),
)
_ENTRY_NAMES = tuple(f.name for f in MANIFEST_FIELDS if not f.in_file)
_FILE_NAMES = tuple(f.name for f in MANIFEST_FIELDS if f.in_file)
_NORMALS = tuple((i, f.normal) for i, f in enumerate(MANIFEST_FIELDS) if f.normal is not None)
_LISTS = tuple(i for i, f in enumerate(MANIFEST_FIELDS) if f.python is list)
_ROW_COUNT = _FILE_NAMES.index("_ROW_COUNT") + len(_ENTRY_NAMES)  # (the entry's own fields come first)
_NAME, _EXTRA, _EXTERNAL, _SIZE, _LEVEL = (_FILE_NAMES.index(name) + len(_ENTRY_NAMES) for name in (
    "_FILE_NAME", "_EXTRA_FILES", "_EXTERNAL_PATH", "_FILE_SIZE", "_LEVEL"))


def decode_entry(row: dict, where: str, typed: bool = False, *, keep_row: bool = False) -> ManifestEntry:
    """The entry of a manifest row (holding the row with ``keep_row``). ``typed``: the file's Avro schema gives
    _KIND and every field the type MANIFEST_FIELDS expects (``typed_manifest``), so only values are checked;
    otherwise each field's type is checked and a wrong one named."""
    kind = row["_KIND"] if typed else field_of(row, "_KIND", int, where)
    if kind not in (0, 1):
        raise TableError(f"{where}: entry kind {kind} (0 = ADD, 1 = DELETE)")
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
    if values[_LEVEL] < 0:  # (a primary-key table's scan reads by level: one below 0 was skipped as level 0)
        raise TableError(f"{where} _FILE: _LEVEL is {values[_LEVEL]}")
    if values[_SIZE] is not None and values[_SIZE] <= 0:  # (a read's memory budget goes by it: no file is empty)
        raise TableError(f"{where} _FILE: _FILE_SIZE is {values[_SIZE]}")
    plain_name(values[_NAME], f"{where} _FILE", "_FILE_NAME")
    for name in values[_EXTRA] or ():
        plain_name(name, f"{where} _FILE", "_EXTRA_FILES entry")
    if values[_EXTERNAL] is not None:
        external_path(values[_EXTERNAL], f"{where} _FILE", "_EXTERNAL_PATH")
    for i, normal in _NORMALS:
        values[i] = normal(values[i])
    return ManifestEntry(EntryKind(kind), *values, row=row if keep_row else None)  # type: ignore[misc]  # (the fields after kind, in order)


def typed_manifest(schema: object) -> bool:
    """Whether an Avro writer schema gives _KIND and every field of MANIFEST_FIELDS a type fastavro
    decodes to the Python type expected (a nullable union only where the field is optional): then
    the rows it decodes need no per-field type check. Any other schema (or none) is read checked.
    A row of ``["null", record]`` (the schema pypaimon-rust writes) is typed as the record: a null row is
    refused before its entry is read (``read_rows``)."""
    if isinstance(schema, list) and len(schema) == 2 and schema[0] == "null":
        schema = schema[1]
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
