"""The file-index container (Paimon FileIndexFormat, versions 1 and 2), mirroring specs/file_index_format.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/FileIndexFormat.java
"""
from construct import (
    Array,
    Bytes,
    Check,
    Const,
    FixedSized,
    GreedyBytes,
    Int16ub,
    Int32sb,
    Int64sb,
    Pointer,
    Rebuild,
    Seek,
    Struct,
    Tell,
    len_,
    this,
)

MAGIC = bytes.fromhex("00054e4ed01a35ae")
VERSION = 1
EMPTY_INDEX_FLAG = -1


def java_utf(name: str):
    """DataOutputStream.writeUTF as two fields of the enclosing record: ``len_<name>`` (u16 byte
    count), then ``<name>`` (modified UTF-8, raw bytes here)."""
    return [f"len_{name}" / Rebuild(Int16ub, len_(this[name])), name / Bytes(this[f"len_{name}"])]

index_entry = Struct(
    *java_utf("index_type"),
    "ofs_body" / Int32sb,  # absolute offset of the payload, or EMPTY_INDEX_FLAG
    "len_body" / Int32sb,
)

column = Struct(
    *java_utf("name"),
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


# ------------------------------------------------------------------------------------------------
# Version 2 (EXPERIMENTAL: apache/paimon PR #10101, not merged; spec §3.4). Payloads follow the
# 12-byte preamble; the footer (64-bit absolute start and length per index) and the trailer end the
# container. Writers build the preamble, stream the payloads, then build the footer and trailer.

VERSION_2 = 2
TAIL_MAGIC = b"PAFIDX02"

preamble_v2 = Struct(
    "magic" / Const(MAGIC),
    "version" / Const(VERSION_2, Int32sb),
)

index_entry_v2 = Struct(
    *java_utf("index_type"),
    "ofs_body" / Int64sb,  # absolute offset of the payload, or EMPTY_INDEX_FLAG
    "len_body" / Int64sb,
)

column_v2 = Struct(
    *java_utf("name"),
    "num_indexes" / Rebuild(Int32sb, len_(this.indexes)),
    Check(this.num_indexes >= 0),
    "indexes" / Array(this.num_indexes, index_entry_v2),
)

footer = Struct(
    "num_columns" / Rebuild(Int32sb, len_(this.columns)),
    Check(this.num_columns >= 0),
    "columns" / Array(this.num_columns, column_v2),
    "trailing" / GreedyBytes,  # must be empty
)

trailer = Struct(
    "len_footer" / Int32sb,
    "tail_magic" / Const(TAIL_MAGIC),
)

# Parsing only: the trailer is found from the end of the input, the footer just before it.
file_index_format_v2 = Struct(
    "magic" / Const(MAGIC),
    "version" / Const(VERSION_2, Int32sb),
    "_size" / Pointer(0, Seek(0, 2)),
    Check(this._size >= 28),
    "trailer" / Pointer(-12, trailer),
    Check(this.trailer.len_footer >= 4),
    Check(this.trailer.len_footer <= this._size - 24),
    "footer" / Pointer(lambda this: this._size - 12 - this.trailer.len_footer,
                       FixedSized(this.trailer.len_footer, footer)),
)
