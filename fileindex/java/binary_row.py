"""Paimon's serialized BinaryRow (table spec §4.4), enough to name a partition's directory and to read
the min/max statistics of the types statistics compare.

Bytes: a 4-byte big-endian arity, then the row: a header byte and null bits padded to 8-byte words,
one 8-byte little-endian slot per field, and a variable-length tail. Strings of up to 7 bytes sit in
their slot (the last byte is 0x80 | length); longer ones store (offset << 32 | length). A DECIMAL of
precision up to 18 is its unscaled long in the slot, a wider one the big-endian two's complement bytes
of its unscaled value in the tail (offset << 32 | length; 16 bytes reserved); a TIMESTAMP of precision
up to 3 is its epoch milliseconds in the slot, a finer one (offset << 32 | nanos of the millisecond) with
the milliseconds in the tail (Java's ``AbstractBinaryWriter.writeDecimal`` and ``writeTimestamp``).
"""
from __future__ import annotations

import datetime as dt
import decimal
import struct

from fileindex.errors import UsageError
from fileindex.values import DECIMAL_CONTEXT, Timestamp

_ESCAPED = set('"#%\'*/:=?\\{}[]^\x7f') | {chr(c) for c in range(0x20)}
DEFAULT_PARTITION_NAME = "__DEFAULT_PARTITION__"


UNKNOWN = object()  # a field whose type ``fields(..., lenient=True)`` does not decode


def fields(data: bytes, types: list) -> list:
    """The values of a serialized BinaryRow, by Paimon type (None for nulls); a row too short for its fields'
    slots, or a string outside it, is a ValueError."""
    if len(data) < 4:
        raise ValueError(f"a {len(data)}-byte row, without its 4-byte arity")
    arity = struct.unpack_from(">i", data, 0)[0]
    if arity != len(types):
        raise UsageError(f"partition row has {arity} fields, the schema {len(types)}")
    slots_end = 4 + ((arity + 63 + 8) // 64) * 8 + 8 * arity
    if len(data) < slots_end:
        raise ValueError(f"a {len(data)}-byte row of {arity} fields, whose slots end at byte {slots_end}")
    return [field_at(data, i, data_type, arity) for i, data_type in enumerate(types)]


def field_at(data: bytes, i: int, data_type, arity: int, *, lenient: bool = False):
    """Field ``i`` (of ``arity``) of a serialized BinaryRow (None: null). ``lenient``, for a row of statistics:
    floats (Python floats), decimals (``decimal.Decimal``) and timestamps (:class:`Timestamp`) are decoded
    too, and a type not decoded here is UNKNOWN (else a UsageError); a tail outside the row is a ValueError."""
    row = memoryview(data)[4:]
    bit = i + 8
    if row[bit // 8] & (1 << (bit % 8)):
        return None
    if lenient and not _decodable(data_type):
        return UNKNOWN
    null_bytes = ((arity + 63 + 8) // 64) * 8
    slot = bytes(row[null_bytes + 8 * i:null_bytes + 8 * i + 8])
    if lenient and data_type.root in _STATISTIC_TYPES:
        return _statistic_value(row, slot, data_type)
    return _value(row, slot, data_type)


_STATISTIC_TYPES = ("FLOAT", "DOUBLE", "DECIMAL", "TIMESTAMP", "TIMESTAMP_LTZ")  # decoded in statistics only


def _decodable(data_type) -> bool:
    return data_type.root in ("BOOLEAN", "TINYINT", "SMALLINT", "INT", "DATE", "TIME", "BIGINT", *_STATISTIC_TYPES) \
        or data_type.is_string or data_type.is_binary


def _statistic_value(row: memoryview, slot: bytes, data_type):
    root = data_type.root
    if root in ("FLOAT", "DOUBLE"):
        return struct.unpack_from("<f" if root == "FLOAT" else "<d", slot)[0]
    if root == "DECIMAL":
        if data_type.precision <= 18:
            unscaled = int.from_bytes(slot, "little", signed=True)
        else:
            unscaled = int.from_bytes(_tail(row, slot, 16), "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-data_type.scale, context=DECIMAL_CONTEXT)
    if data_type.precision <= 3:
        return Timestamp(int.from_bytes(slot, "little", signed=True))
    offset_and_nanos = int.from_bytes(slot, "little")
    at = offset_and_nanos >> 32
    if at + 8 > len(row):
        raise ValueError(f"a timestamp's milliseconds at {at} lie outside the {len(row)}-byte row")
    return Timestamp(int.from_bytes(row[at:at + 8], "little", signed=True), offset_and_nanos & 0xFFFFFFFF)


def _tail(row: bytes | memoryview, slot: bytes, most: int) -> bytes:
    offset_and_size = int.from_bytes(slot, "little")
    offset, size = offset_and_size >> 32, offset_and_size & 0xFFFFFFFF
    if size > most or offset + size > len(row):
        raise ValueError(f"{size} bytes at {offset} do not fit the {len(row)}-byte row")
    return bytes(row[offset:offset + size])


def _value(row: bytes | memoryview, slot: bytes, data_type):
    root = data_type.root
    if root == "BOOLEAN":
        return slot[0] != 0
    if root in ("TINYINT", "SMALLINT", "INT", "DATE", "TIME", "BIGINT"):
        width = {"TINYINT": 1, "SMALLINT": 2, "BIGINT": 8}.get(root, 4)
        return int.from_bytes(slot[:width], "little", signed=True)
    if data_type.is_string or data_type.is_binary:
        if slot[7] & 0x80:
            data = slot[:slot[7] & 0x7F]
        else:
            data = _tail(row, slot, len(row))
        return data.decode("utf-8", "replace") if data_type.is_string else bytes(data)
    raise UsageError(f"partition columns of type {data_type} are not supported yet (INT, BIGINT, STRING, "
                     "DATE, BOOLEAN, ... are)")


def _escape(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def partition_path(data: bytes, schema) -> str:
    """``k1=v1/k2=v2`` as Paimon names the partition directory (legacy names by default)."""
    by_name = schema.by_name()
    types = [by_name[k].type for k in schema.partition_keys]
    values = fields(data, types)
    legacy = schema.flag("partition.legacy-name", True)
    default = schema.options.get("partition.default-name", DEFAULT_PARTITION_NAME)
    parts = []
    for key, value, data_type in zip(schema.partition_keys, values, types, strict=True):
        if value is None:
            text = default
        elif data_type.root == "DATE" and not legacy:
            text = (dt.date(1970, 1, 1) + dt.timedelta(days=value)).isoformat()
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        if not text.strip():
            text = default
        parts.append(f"{_escape(key)}={_escape(text)}")
    return "/".join(parts)


_FIXED_WIDTH = {"BOOLEAN": 1, "TINYINT": 1, "SMALLINT": 2, "INT": 4, "DATE": 4, "TIME": 4, "BIGINT": 8}


def serialize(values: list, types: list) -> bytes:
    """A serialized BinaryRow holding ``values`` (the inverse of :func:`fields`), laid out as Java's
    ``BinaryRowWriter`` lays it out: unused slot bytes and the tail's padding are zero."""
    arity = len(types)
    null_bytes = ((arity + 63 + 8) // 64) * 8
    head = bytearray(null_bytes + 8 * arity)
    tail = bytearray()
    for i, (value, data_type) in enumerate(zip(values, types, strict=True)):
        at = null_bytes + 8 * i
        if value is None:
            head[(i + 8) // 8] |= 1 << ((i + 8) % 8)
        elif data_type.root in _FIXED_WIDTH:
            width = _FIXED_WIDTH[data_type.root]
            head[at:at + width] = int(value).to_bytes(width, "little", signed=True)
        elif data_type.is_string or data_type.is_binary:
            data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
            if len(data) <= 7:
                head[at:at + len(data)] = data
                head[at + 7] = 0x80 | len(data)
            else:
                offset = len(head) + len(tail)
                head[at:at + 8] = (offset << 32 | len(data)).to_bytes(8, "little")
                tail += data + bytes(-len(data) % 8)
        elif data_type.root in ("FLOAT", "DOUBLE"):
            head[at:at + 8] = struct.pack("<f" if data_type.root == "FLOAT" else "<d", value).ljust(8, b"\0")
        elif data_type.root == "DECIMAL":
            unscaled = int(decimal.Decimal(value).scaleb(data_type.scale, context=DECIMAL_CONTEXT))
            if data_type.precision <= 18:
                head[at:at + 8] = unscaled.to_bytes(8, "little", signed=True)
            else:  # BigInteger.toByteArray: the fewest bytes that hold it with a sign bit
                data = unscaled.to_bytes((unscaled + (unscaled < 0)).bit_length() // 8 + 1, "big", signed=True)
                head[at:at + 8] = ((len(head) + len(tail)) << 32 | len(data)).to_bytes(8, "little")
                tail += data.ljust(16, b"\0")
        elif data_type.is_timestamp:
            if data_type.precision <= 3:
                head[at:at + 8] = value.millis.to_bytes(8, "little", signed=True)
            else:
                head[at:at + 8] = ((len(head) + len(tail)) << 32 | value.nanos_of_milli).to_bytes(8, "little")
                tail += value.millis.to_bytes(8, "little", signed=True)
        else:
            _value(b"", b"", data_type)  # raises the unsupported-type error
    return struct.pack(">i", arity) + bytes(head) + bytes(tail)


def sort_key(value, data_type):
    """Java's order of a partition value of ``data_type`` (strings and binaries: unsigned bytes)."""
    if isinstance(value, str):
        return value.encode("utf-8")
    return value


def field_stats(rows: list[bytes], types: list) -> tuple[bytes, bytes, list[int]]:
    """(min row, max row, null counts) over serialized BinaryRows, per field, as Java's
    ``SimpleStatsCollector`` computes a manifest's partition statistics."""
    decoded = [fields(row, types) for row in rows]
    columns = [[values[i] for values in decoded] for i in range(len(types))]
    low, high, nulls = [], [], []
    for values, data_type in zip(columns, types, strict=True):
        present = [v for v in values if v is not None]
        nulls.append(len(values) - len(present))
        low.append(min(present, key=lambda v: sort_key(v, data_type)) if present else None)
        high.append(max(present, key=lambda v: sort_key(v, data_type)) if present else None)
    return serialize(low, types), serialize(high, types), nulls
