"""A manifest entry as a value: what a rewrite reads from a table's manifests, changes and commits back
(table spec §5; rewrite design §2.1).

A :class:`ManifestEntry` types the fields this project reads or changes (the kind, partition and bucket,
and in :class:`FileMeta` the data file's name, size, schema, level, extra files and embedded index);
every other field (statistics, keys, sequence numbers, creation time, the fields of later Paimon
versions) is carried as the table wrote it, in ``others``, so that ``to_avro`` gives back the row
``from_avro`` read. Changing an entry is ``dataclasses.replace``; the Avro writer schema the rows are
written with is the table's own (:class:`fileindex.table.manifest_writer.AvroShape`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ADD, DELETE = 0, 1

_ENTRY_FIELDS = ("_KIND", "_PARTITION", "_BUCKET", "_FILE")
_FILE_FIELDS = ("_FILE_NAME", "_FILE_SIZE", "_SCHEMA_ID", "_LEVEL", "_EXTRA_FILES", "_EMBEDDED_FILE_INDEX")

Others = tuple[tuple[str, Any], ...]  # the record's other fields, in the order read, values as decoded


def _others(record: dict, typed: tuple[str, ...]) -> Others:
    return tuple((name, value) for name, value in record.items() if name not in typed)


@dataclass(frozen=True)
class FileMeta:
    """A manifest entry's ``_FILE`` record (Paimon's ``DataFileMeta``)."""

    file_name: str
    file_size: int | None
    schema_id: int
    level: int
    extra_files: tuple[str, ...]
    embedded_index: bytes | None
    others: Others = ()

    @classmethod
    def from_avro(cls, record: dict) -> FileMeta:
        embedded = record.get("_EMBEDDED_FILE_INDEX")
        return cls(record["_FILE_NAME"], record.get("_FILE_SIZE"), record["_SCHEMA_ID"], record["_LEVEL"],
                   tuple(record.get("_EXTRA_FILES") or ()), None if embedded is None else bytes(embedded),
                   _others(record, _FILE_FIELDS))

    def to_avro(self) -> dict:
        """The record to write (a None the table's schema has no field for is left out by the writer)."""
        return {"_FILE_NAME": self.file_name, "_FILE_SIZE": self.file_size, "_SCHEMA_ID": self.schema_id,
                "_LEVEL": self.level, "_EXTRA_FILES": list(self.extra_files),
                "_EMBEDDED_FILE_INDEX": self.embedded_index, **dict(self.others)}


@dataclass(frozen=True)
class ManifestEntry:
    """One row of a manifest (Paimon's ``ManifestEntry``): ADD or DELETE of a data file."""

    kind: int  # ADD (0) or DELETE (1)
    partition: bytes  # the BinaryRow of the partition values
    bucket: int
    file: FileMeta
    others: Others = ()

    @classmethod
    def from_avro(cls, row: dict) -> ManifestEntry:
        """The entry of a decoded manifest row (its types checked where the manifest was read)."""
        return cls(row["_KIND"], bytes(row["_PARTITION"]), row["_BUCKET"], FileMeta.from_avro(row["_FILE"]),
                   _others(row, _ENTRY_FIELDS))

    def to_avro(self) -> dict:
        """The row to write (fields the table's schema lacks are refused by the writer, absent ones written null)."""
        return {"_KIND": self.kind, "_PARTITION": self.partition, "_BUCKET": self.bucket,
                "_FILE": self.file.to_avro(), **dict(self.others)}
