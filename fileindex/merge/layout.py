"""The key-value file layout of a primary-key table (table spec §3; Paimon's ``KeyValue``,
``KeyValueDataFileWriter``): each row is one record, its key fields ``_KEY_<k>`` (the primary key without the
partition keys, Parquet field id 1073741823 + the field's id), ``_SEQUENCE_NUMBER`` (BIGINT, 2147483646),
``_VALUE_KIND`` (TINYINT, 2147483645: 0 +I, 1 -U, 2 +U, 3 -D), then the value: every field of the table,
the key fields included. A file's rows are sorted by key, each key once (its writer merged a commit's records
of one key); its manifest entry names its level, smallest and largest key, sequence range and how many of its
rows are retractions.

:class:`KeyValueFile` is what the merge is handed per file: that entry's facts and a way to read the file's
rows as Arrow batches holding the system columns and the value columns the merge reads (``read_columns``), in
the table's current names (the caller maps older schemas' fields by id).
"""
from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa

from fileindex.errors import FileIndexError
from fileindex.java.binary_row import UNKNOWN, field_at
from fileindex.merge.spec import PARTIAL_UPDATE, MergeSpec
from fileindex.table.manifest_entry import ManifestEntry
from fileindex.types import DataType

KEY_PREFIX = "_KEY_"
SEQUENCE_NUMBER = "_SEQUENCE_NUMBER"
VALUE_KIND = "_VALUE_KIND"


def key_column(field: str) -> str:
    return KEY_PREFIX + field


def system_columns(spec: MergeSpec) -> list[str]:
    """The columns of the layout every merge reads: the key fields, the sequence number and the row kind."""
    return [key_column(k) for k in spec.keys] + [SEQUENCE_NUMBER, VALUE_KIND]


def read_columns(spec: MergeSpec, columns: Sequence[str]) -> list[str]:
    """The value columns a merge reads to give ``columns``: those, the sequence fields, and the sequence fields
    of partial-update's groups that order a wanted field (Java's ``adjustProjection``), in table order."""
    wanted = set(columns) | set(spec.sequence_fields)
    if spec.engine == PARTIAL_UPDATE:
        for group in spec.groups:
            if wanted & set(group.fields):
                wanted |= set(group.sequence_fields)
    return [name for name, _ in spec.fields if name in wanted]


Key = tuple  # a key's values as the merge compares them: integers (dates, times, timestamps too), str, bytes, bool


@dataclass(frozen=True)
class KeyValueFile:
    """One data file of a bucket, as the merge needs it. ``min_key``/``max_key`` None: not known (the file is
    then merged as a sorted run of its own)."""

    name: str
    level: int
    row_count: int
    delete_row_count: int | None  # retraction rows (-U, -D); None: not recorded
    min_key: Key | None
    max_key: Key | None
    batches: Callable[[], Iterator[pa.RecordBatch]]
    min_sequence: int = 0
    max_sequence: int = 0

    @property
    def without_retractions(self) -> bool:
        """Java's ``withoutDeleteRow`` (a count not recorded counts as none, as Java reads old files)."""
        return not self.delete_row_count


def key_value_file(entry: ManifestEntry, spec: MergeSpec, name: str,
                   batches: Callable[[], Iterator[pa.RecordBatch]]) -> KeyValueFile:
    """The file of a manifest entry, its key range decoded from ``_MIN_KEY``/``_MAX_KEY``."""
    return KeyValueFile(name, entry.level, entry.row_count, entry.delete_row_count,
                        decode_key(entry.min_key, spec.key_types), decode_key(entry.max_key, spec.key_types), batches,
                        entry.min_sequence_number, entry.max_sequence_number)


def decode_key(row: bytes, types: Sequence[DataType]) -> Key | None:
    """A BinaryRow of the key fields (of ``types``) as the merge compares keys; None where it does not decode (a
    type not decoded here, or bytes that are not a row of them)."""
    try:
        if struct.unpack_from(">i", row)[0] != len(types):
            return None
        values = tuple(field_at(row, i, t, len(types), lenient=True) for i, t in enumerate(types))
    except (FileIndexError, IndexError, struct.error, ValueError, OverflowError):
        return None
    if any(v is UNKNOWN or v is None for v in values):
        return None
    return values
