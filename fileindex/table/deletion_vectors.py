"""Deletion vectors of a snapshot (table spec §7): which rows of each data file are deleted.

The snapshot's index manifest lists DELETION_VECTORS index files; each range maps a data file
(within its partition and bucket) to an offset and length in one of them. A vector is framed as
a big-endian length, a magic number, a Roaring bitmap and a CRC-32 of magic + bitmap. The 32-bit
kind is read; the 64-bit kind is recognised and disables index use for that file, as in Java.
"""
from __future__ import annotations

import zlib
from fileindex.frozen import frozen
from pathlib import Path

from pyroaring import FrozenBitMap

from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes import roaring
from fileindex.table.metadata import Schema, Snapshot, TableError, field_of, read_rows, reading
from fileindex.table.names import external_path, plain_name
from fileindex.table.store import TableStore

MAGIC_32 = 1581511376
MAX_VECTOR_FILE_BYTES = 1 << 30  # a deletion-vector index file, read whole
MAGIC_64_BYTES = bytes.fromhex("d1d33964")


@frozen
class DeletionVector:
    rows: FrozenBitMap | None  # None: a 64-bit vector, or one that cannot be read (``problem``)
    index_file: str
    problem: str = ""  # why the vector cannot be read: the file's deleted rows are unknown


def _decode(data: bytes, offset: int, length: int) -> FrozenBitMap | None:
    if offset < 1 or offset + 8 > len(data):
        raise TableError(f"deletion vector offset {offset} outside the {len(data)}-byte file")
    stored = int.from_bytes(data[offset:offset + 4], "big")
    magic = data[offset + 4:offset + 8]
    if magic == MAGIC_64_BYTES:
        return None
    if int.from_bytes(magic, "big") != MAGIC_32:
        raise TableError(f"unknown deletion vector magic {magic.hex()} at offset {offset + 4}")
    if stored != length:
        raise TableError(f"deletion vector length {stored} at offset {offset} does not match {length}")
    if offset + 4 + stored + 4 > len(data):
        raise TableError(f"deletion vector of {stored} bytes at offset {offset} runs past the end of the "
                         f"{len(data)}-byte file")
    framed = data[offset + 4:offset + 4 + stored]
    crc = int.from_bytes(data[offset + 4 + stored:offset + 8 + stored], "big")
    if zlib.crc32(framed) != crc:
        raise TableError(f"deletion vector CRC mismatch at offset {offset} (stored {crc:08x})")
    return roaring.deserialize(framed[4:], offset=offset + 8, field="deletion_vector/bitmap")


def deletion_vectors(store: TableStore, snapshot: Snapshot, schema: Schema) -> dict[tuple, DeletionVector]:
    """(partition bytes, bucket, data file name) → its deletion vector.

    A deletion-vector index file that is missing or corrupt does not stop the table: each vector it
    should hold comes back with a ``problem``, so that only the files it covers are affected. A data file
    named by two vectors is malformed metadata (taking either could bring deleted rows back).
    """
    if not snapshot.index_manifest:
        return {}
    vectors: dict[tuple, DeletionVector] = {}
    in_data_dir = schema.flag("index-file-in-data-file-dir", False)
    manifest = store.manifest_file(snapshot.index_manifest)
    for number, row in enumerate(read_rows(store, manifest, f"index manifest named by {snapshot.file}")):
        where = f"{store.shown(manifest)} (index manifest) row {number}"
        if field_of(row, "_INDEX_TYPE", str, where) != "DELETION_VECTORS":
            continue
        name = plain_name(field_of(row, "_FILE_NAME", str, where), where, "_FILE_NAME")
        bucket = field_of(row, "_BUCKET", int, where)
        external = field_of(row, "_EXTERNAL_PATH", str, where, optional=True)
        if external:
            external_path(external, where, "_EXTERNAL_PATH")
        path = Path(external) if external else \
            store.deletion_vector_file(name, bucket, in_data_dir=in_data_dir, external=None)
        problem = ""
        try:  # (storage this reader cannot open, or a folder not allowed, leaves the file's deleted rows unknown)
            if external:
                path = store.deletion_vector_file(name, bucket, in_data_dir=in_data_dir, external=external)
            with reading(store, path, "deletion-vector index file"):
                data = store.read_bytes(path, "deletion-vector index file", MAX_VECTOR_FILE_BYTES,
                                        external=bool(external))
            if not data or data[0] != 1:
                raise TableError(f"{store.shown(path)} (deletion-vector index file): version "
                                 f"{data[:1].hex() or 'missing'} (expected 01)")
        except (TableError, UsageError) as err:
            data, problem = b"", str(err)
        partition = bytes(field_of(row, "_PARTITION", (bytes, bytearray), where))
        for entry in field_of(row, "_DELETIONS_VECTORS_RANGES", list, where, optional=True) or ():
            file_name = plain_name(field_of(entry, "f0", str, f"{where} ranges"), f"{where} ranges", "f0")
            if (partition, bucket, file_name) in vectors:  # (which one holds its deleted rows? neither is read)
                raise TableError(f"{where} ranges: data file {file_name} has a deletion vector in "
                                 f"{vectors[(partition, bucket, file_name)].index_file} too: a data file has one "
                                 "(malformed metadata)")
            rows, why = None, problem
            if not why:
                try:
                    rows = _decode(data, field_of(entry, "f1", int, f"{where} ranges"),
                                   field_of(entry, "f2", int, f"{where} ranges"))
                except FileIndexError as err:
                    why = f"{store.shown(path)} (deletion-vector index file): {err}"
            vectors[(partition, bucket, file_name)] = DeletionVector(rows, name, why)
    return vectors
