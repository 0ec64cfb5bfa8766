"""Deletion vectors of a snapshot (table spec §7): which rows of each data file are deleted.

The snapshot's index manifest lists DELETION_VECTORS index files; each range maps a data file
(within its partition and bucket) to an offset and length in one of them. A vector is framed as
a big-endian length, a magic number, a Roaring bitmap and a CRC-32 of magic + bitmap. The 32-bit
kind is read; the 64-bit kind is recognised and disables index use for that file, as in Java.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

from pyroaring import FrozenBitMap

from . import roaring
from .table_metadata import Schema, Snapshot, TableError, read_rows

MAGIC_32 = 1581511376
MAGIC_64_BYTES = bytes.fromhex("d1d33964")


@dataclass(frozen=True)
class DeletionVector:
    rows: FrozenBitMap | None  # None: a 64-bit vector, which Java's evaluator does not combine with indexes
    index_file: str


def _decode(data: bytes, offset: int, length: int, where: str) -> FrozenBitMap | None:
    if offset < 1 or offset + 8 > len(data):
        raise TableError(f"{where}: deletion vector offset {offset} outside the {len(data)}-byte file")
    stored = int.from_bytes(data[offset:offset + 4], "big")
    magic = data[offset + 4:offset + 8]
    if magic == MAGIC_64_BYTES:
        return None
    if int.from_bytes(magic, "big") != MAGIC_32:
        raise TableError(f"{where}: unknown deletion vector magic {magic.hex()} at offset {offset + 4}")
    if stored != length or offset + 4 + stored + 4 > len(data):
        raise TableError(f"{where}: deletion vector length {stored} at offset {offset} does not match {length}")
    framed = data[offset + 4:offset + 4 + stored]
    crc = int.from_bytes(data[offset + 4 + stored:offset + 8 + stored], "big")
    if zlib.crc32(framed) != crc:
        raise TableError(f"{where}: deletion vector CRC mismatch at offset {offset} (stored {crc:08x})")
    return roaring.deserialize(framed[4:], offset=offset + 8, field="deletion_vector/bitmap")


def deletion_vectors(root: Path, snapshot: Snapshot, schema: Schema) -> dict[tuple, DeletionVector]:
    """(partition bytes, bucket, data file name) → its deletion vector."""
    if not snapshot.index_manifest:
        return {}
    vectors: dict[tuple, DeletionVector] = {}
    in_data_dir = schema.options.get("index-file-in-data-file-dir", "false").lower() == "true"
    for row in read_rows(root / "manifest" / snapshot.index_manifest):
        if row["_INDEX_TYPE"] != "DELETION_VECTORS":
            continue
        if row.get("_EXTERNAL_PATH"):
            path = Path(row["_EXTERNAL_PATH"])
        elif in_data_dir:
            path = root / f"bucket-{row['_BUCKET']}" / row["_FILE_NAME"]
        else:
            path = root / "index" / row["_FILE_NAME"]
        try:
            data = path.read_bytes()
        except OSError as err:
            raise TableError(f"deletion vector file {path}: {err.strerror}") from None
        if not data or data[0] != 1:
            raise TableError(f"{path}: deletion vector file version {data[:1].hex() or 'missing'} (expected 01)")
        for entry in row.get("_DELETIONS_VECTORS_RANGES") or ():
            rows = _decode(data, entry["f1"], entry["f2"], str(path))
            vectors[(bytes(row["_PARTITION"]), row["_BUCKET"], entry["f0"])] = DeletionVector(rows, row["_FILE_NAME"])
    return vectors
