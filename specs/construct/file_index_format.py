"""The file-index container (Paimon FileIndexFormat, version 1), mirroring specs/file_index_format.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/FileIndexFormat.java
"""
from construct import (
    Array,
    Bytes,
    Check,
    Const,
    Int16ub,
    Int32sb,
    Rebuild,
    Struct,
    Tell,
    len_,
    this,
)

MAGIC = bytes.fromhex("00054e4ed01a35ae")
VERSION = 1
EMPTY_INDEX_FLAG = -1

# DataOutputStream.writeUTF: u16 byte count, then modified UTF-8 (raw bytes here).
java_utf = Struct(
    "len_value" / Rebuild(Int16ub, len_(this.value)),
    "value" / Bytes(this.len_value),
)

index_entry = Struct(
    "index_type" / java_utf,
    "ofs_body" / Int32sb,  # absolute offset of the payload, or EMPTY_INDEX_FLAG
    "len_body" / Int32sb,
)

column = Struct(
    "name" / java_utf,
    "num_indexes" / Rebuild(Int32sb, len_(this.indexes)),
    Check(this.num_indexes >= 0),
    "indexes" / Array(this.num_indexes, index_entry),
)

# The HEAD region after the first 16 bytes. The column table is read from the main stream
# (not a sized substream) so that positions stay absolute; the redundant area runs to len_head.
column_table = Struct(
    "num_columns" / Rebuild(Int32sb, len_(this.columns)),
    Check(this.num_columns >= 0),
    "columns" / Array(this.num_columns, column),
    "len_redundant" / Int32sb,
    "_redundant_start" / Tell,
    Check(this._redundant_start <= this._.len_head),
    "redundant" / Bytes(this._.len_head - this._redundant_start),
)

file_index_format = Struct(
    "magic" / Const(MAGIC),
    "version" / Const(VERSION, Int32sb),
    "len_head" / Int32sb,
    Check(this.len_head >= 16),
    "head" / column_table,
)
