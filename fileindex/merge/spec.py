"""What a primary-key table's merge is, read from its schema as Java Paimon 0.9.0 reads it (``CoreOptions``,
the merge functions' factories): the engine, the sort key (the primary key without the partition keys), the
sequence fields, the delete options, partial-update's sequence groups and every field's aggregate function.

A table this reader cannot merge exactly is refused here, in one line naming what is not implemented: an
engine or aggregate function it does not know, an option of later Paimon versions that changes the merge
(``sequence.field.sort-order`` descending, ``aggregation.remove-record-on-delete``, ...), or a key or sequence
field of a type whose order Java does not define as a total order (FLOAT, DOUBLE) or that is not a scalar.
"""
from __future__ import annotations

from dataclasses import dataclass

from fileindex.errors import UsageError
from fileindex.merge.aggregators import check_function, may_refuse_retraction
from fileindex.table.metadata import Schema
from fileindex.types import DataType

DEDUPLICATE, PARTIAL_UPDATE, AGGREGATION, FIRST_ROW = "deduplicate", "partial-update", "aggregation", "first-row"
ENGINES = (DEDUPLICATE, PARTIAL_UPDATE, AGGREGATION, FIRST_ROW)

# CoreOptions.IGNORE_DELETE and its fallback keys, in the order Options.get tries them
IGNORE_DELETE_KEYS = ("ignore-delete", "first-row.ignore-delete", "deduplicate.ignore-delete",
                      "partial-update.ignore-delete")

# options of later Paimon versions that change what a merge returns: refused unless at their default
LATER_OPTIONS = {
    "sequence.field.sort-order": "ascending",
    "aggregation.remove-record-on-delete": "false",
    "sequence.snapshot-ordering": "false",
}
LATER_PREFIXED = ("partial-update.remove-record-on-sequence-group",)

# types whose order Paimon's key and sequence comparators define as a total order, and this reader sorts alike
ORDERED = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "TIME", "BOOLEAN", "CHAR", "VARCHAR", "BINARY",
           "VARBINARY", "DECIMAL", "TIMESTAMP", "TIMESTAMP_LTZ")

FIELDS = "fields."
AGGREGATE_FUNCTION, IGNORE_RETRACT, SEQUENCE_GROUP = "aggregate-function", "ignore-retract", "sequence-group"
DEFAULT_AGGREGATE = "fields.default-aggregate-function"


@dataclass(frozen=True)
class Aggregate:
    """A field's aggregate function as the table declares it (``primary-key``: a key field's)."""

    function: str
    ignore_retract: bool = False
    delimiter: str = ","  # listagg's


@dataclass(frozen=True)
class SequenceGroup:
    """partial-update's ``fields.<sequence fields>.sequence-group = <fields>``: the sequence fields order
    the updates and retractions of the fields (the sequence fields included)."""

    sequence_fields: tuple[str, ...]
    fields: tuple[str, ...]


@dataclass(frozen=True)
class MergeSpec:
    """A primary-key table's merge. ``fields``: every value field (the table's fields, in order) and type."""

    engine: str
    keys: tuple[str, ...]  # the sort key: the primary key without the partition keys
    fields: tuple[tuple[str, DataType], ...]
    sequence_fields: tuple[str, ...] = ()
    ignore_delete: bool = False
    remove_record_on_delete: bool = False  # partial-update's
    groups: tuple[SequenceGroup, ...] = ()
    aggregates: tuple[tuple[str, Aggregate], ...] = ()  # (field, its function), for the fields that have one
    deletion_vectors: bool = False
    file_index_read: bool = True

    def types(self) -> dict[str, DataType]:
        return dict(self.fields)

    @property
    def key_types(self) -> tuple[DataType, ...]:
        types = self.types()
        return tuple(types[k] for k in self.keys)

    def aggregate_of(self) -> dict[str, Aggregate]:
        return dict(self.aggregates)

    @property
    def skips_level_zero(self) -> bool:
        """Whether a batch scan reads only files above level 0 (deletion vectors, first-row: DataTableBatchScan)."""
        return self.deletion_vectors or self.engine == FIRST_ROW

    @property
    def merges_values(self) -> bool:
        """Whether a key's row is combined from several records' values (partial-update, aggregation), so no
        record's values say what the merged row holds."""
        return self.engine in (PARTIAL_UPDATE, AGGREGATION)


def deciding_columns(spec: MergeSpec) -> tuple[str, ...]:
    """The value fields whose values can decide whether the merge of a key fails: a read of other columns returns
    the same rows, or fails, only if it reads these too. Deduplicate, first-row and partial-update decide by the
    row kinds alone (partial-update's sequence groups take a retraction by the table's groups, whatever is read);
    the fields whose aggregate may refuse a retraction (aggregation's, or a partial-update group's) decide by
    running."""
    if spec.engine not in (AGGREGATION, PARTIAL_UPDATE):
        return ()
    types = spec.types()
    return tuple(name for name, aggregate in spec.aggregates
                 if not aggregate.ignore_retract and may_refuse_retraction(aggregate.function, types[name]))


def key_fields(schema: Schema) -> tuple[str, ...]:
    """The fields of a primary-key table's key-value files' keys: the primary key without the partition keys."""
    return tuple(k for k in schema.primary_keys if k not in schema.partition_keys)


def merge_spec(schema: Schema) -> MergeSpec:
    """The merge of a primary-key table of this schema; a UsageError naming what this reader does not implement."""
    options = schema.options
    if not schema.primary_keys:
        raise UsageError("the table has no primary key: its rows are not merged")
    names = [f.name for f in schema.fields]
    types = schema.types()
    keys = key_fields(schema)
    if not keys:  # (that the keys name fields, the schema's reading checks)
        raise UsageError(f"primary key {', '.join(schema.primary_keys)}: it must not name only partition keys")
    engine = merge_engine(schema)
    _refuse_later_options(options)
    for key in keys:
        _require_ordered(types[key], f"primary key field {key}")
    sequence_fields = _names(options.get("sequence.field", ""), names, "sequence.field")
    if sequence_fields and engine == FIRST_ROW:
        raise UsageError("sequence.field on a first-row table: Java refuses it too")
    for name in sequence_fields:
        _require_ordered(types[name], f"sequence field {name}")
    ignore_delete = schema.flag(next((k for k in IGNORE_DELETE_KEYS if k in options), "ignore-delete"), False)
    remove_record = schema.flag("partial-update.remove-record-on-delete", False) and engine == PARTIAL_UPDATE
    groups = _sequence_groups(options, names, types) if engine == PARTIAL_UPDATE else ()
    aggregates = _aggregates(schema, engine, bool(groups))
    if engine == PARTIAL_UPDATE:
        if aggregates and not groups:
            raise UsageError("partial-update with aggregate functions and no sequence group: Java refuses it too "
                             "(\"Must use sequence group for aggregation functions\")")
        if remove_record and (ignore_delete or groups):
            raise UsageError("partial-update.remove-record-on-delete with ignore-delete or sequence groups: Java "
                             "refuses the combination too")
    return MergeSpec(engine, keys, tuple((f.name, f.type) for f in schema.fields), sequence_fields, ignore_delete,
                     remove_record, groups, aggregates, schema.flag("deletion-vectors.enabled", False),
                     schema.flag("file-index.read.enabled", True))


def merge_engine(schema: Schema) -> str:
    """The table's ``merge-engine``; a UsageError for one that is none of Java's (Java opens no such table: a
    deletion-vector table, whose files are read unmerged, is refused as well, not read as if deduplicated)."""
    engine = schema.options.get("merge-engine", DEDUPLICATE).strip().lower()
    if engine not in ENGINES:
        raise UsageError(f"merge-engine={engine}: not a merge engine this reader implements ({', '.join(ENGINES)})")
    return engine


def _refuse_later_options(options: dict) -> None:
    for key, default in LATER_OPTIONS.items():
        if key in options and options[key].strip().lower() != default:
            raise UsageError(f"{key}={options[key]}: an option of later Paimon versions that changes the merge; "
                             "not implemented here")
    for key in options:
        if key.startswith(LATER_PREFIXED):
            raise UsageError(f"{key}: an option of later Paimon versions that changes the merge; not implemented here")
        if key.startswith(FIELDS) and key.endswith(".distinct") and options[key].strip().lower() == "true":
            raise UsageError(f"{key}=true: distinct aggregation (later Paimon versions) is not implemented here")


def _names(text: str, names: list[str], option: str) -> tuple[str, ...]:
    found = tuple(n.strip() for n in text.split(",") if n.strip())
    for name in found:
        if name not in names:
            raise UsageError(f"{option}: {name} is not a field of the table")
    if len(set(found)) < len(found):
        raise UsageError(f"{option}: a field is named twice ({text})")
    return found


def _require_ordered(data_type: DataType, what: str) -> None:
    if data_type.root not in ORDERED:
        raise UsageError(f"{what} is {data_type}: merging by a {data_type.root} is not implemented here (Paimon "
                         "orders FLOAT and DOUBLE keys without a total order)")


def _sequence_groups(options: dict, names: list[str], types: dict) -> tuple[SequenceGroup, ...]:
    groups = []
    claimed: set[str] = set()
    for key in sorted(options):
        if not (key.startswith(FIELDS) and key.endswith("." + SEQUENCE_GROUP)):
            continue
        sequence = _names(key[len(FIELDS):-len(SEQUENCE_GROUP) - 1], names, key)
        fields = _names(options[key], names, key)
        for name in sequence:
            _require_ordered(types[name], f"sequence field {name} of {key}")
        members = set(sequence) | set(fields)
        if not sequence or members & claimed:
            raise UsageError(f"{key}: a field belongs to two sequence groups (not implemented here)")
        claimed |= members
        groups.append(SequenceGroup(sequence, tuple(f for f in names if f in members)))
    return tuple(groups)


def _aggregates(schema: Schema, engine: str, grouped: bool) -> tuple[tuple[str, Aggregate], ...]:
    """Each field's aggregate function as the engine's factory assigns them: aggregation gives every field
    one (the key fields ``primary-key``, then the field's own, the default, or last_non_null_value);
    partial-update only the fields that name one or, with a default, every field."""
    if engine not in (AGGREGATION, PARTIAL_UPDATE):
        return ()
    options = schema.options
    default = options.get(DEFAULT_AGGREGATE)
    found = []
    for field in schema.fields:
        own = options.get(f"{FIELDS}{field.name}.{AGGREGATE_FUNCTION}")
        if field.name in schema.primary_keys:
            function = "primary-key" if own is not None or default is not None or engine == AGGREGATION else None
        else:
            function = own or default or ("last_non_null_value" if engine == AGGREGATION else None)
        if function is None:
            continue
        if field.name in options.get("sequence.field", "").split(",") and own is not None:
            raise UsageError(f"fields.{field.name}.aggregate-function on a sequence field: Java refuses it too")
        check_function(function.strip(), field.type, field.name)
        ignore_retract = schema.flag(f"{FIELDS}{field.name}.{IGNORE_RETRACT}", False)
        delimiter = options.get(f"{FIELDS}{field.name}.list-agg-delimiter", ",")
        found.append((field.name, Aggregate(function.strip(), ignore_retract, delimiter)))
    return tuple(found)
