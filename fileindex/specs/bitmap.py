"""The bitmap index payload, versions 1 and 2, mirroring specs/bitmap.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/bitmap/BitmapFileIndexMetaV2.java
"""
from functools import cache

from construct import (
    Array,
    Bytes,
    Check,
    FixedSized,
    GreedyBytes,
    GreedyRange,
    If,
    Int8sb,
    Int8ub,
    Int16sb,
    Int32sb,
    Int64sb,
    Rebuild,
    Struct,
    len_,
    this,
)

string_key = Struct(
    "len_value" / Rebuild(Int32sb, len_(this.value)),
    "value" / Bytes(this.len_value),
)

# key_kind (the enum of bitmap.ksy) -> how one value is encoded
KEY_ENCODINGS = {
    "i1": Int8sb, "i2": Int16sb, "i4": Int32sb, "i8": Int64sb,
    "f4": Int32sb,  # Float.floatToIntBits
    "f8": Int64sb,  # Double.doubleToLongBits
    "boolean": Int8ub,
    "string": string_key,
}


@cache
def bitmap(key_kind: str) -> Struct:
    """The payload for one key encoding. Building needs ``len_index_blocks`` (V2) given explicitly."""
    key = Struct("value" / KEY_ENCODINGS[key_kind])
    v1_entry = Struct("key" / key, "ofs_bitmap" / Int32sb)
    v2_entry = Struct("key" / key, "ofs_bitmap" / Int32sb, "len_bitmap" / Int32sb)
    index_block = Struct(
        "header" / Struct(
            "num_entries" / Rebuild(Int32sb, len_(this._.entries)),
            Check(this.num_entries >= 0),
        ),
        "entries" / Array(this.header.num_entries, v2_entry),
    )
    block_ref = Struct("first_key" / key, "ofs_block" / Int32sb)
    has_null = this.has_null_byte != 0
    header_v2 = this.version == 2
    header = Struct(
        "version" / Int8ub,
        Check((this.version == 1) | (this.version == 2)),
        "row_count" / Int32sb,
        Check(this.row_count >= 0),
        "num_values" / Int32sb,
        Check(this.num_values >= 0),
        "has_null_byte" / Int8ub,
        "ofs_null" / If(has_null, Int32sb),
        "len_null_bitmap" / If(has_null & header_v2, Int32sb),
        "num_blocks" / If(header_v2, Rebuild(Int32sb, len_(this._.block_dir))),
    )
    v2 = this.header.version == 2
    return Struct(
        "header" / header,
        "v1_entries" / If(this.header.version == 1, Array(this.header.num_values, v1_entry)),
        "block_dir" / If(v2, Array(this.header.num_blocks, block_ref)),
        "index_blocks_header" / If(v2, Struct("len_index_blocks" / Int32sb, Check(this.len_index_blocks >= 0))),
        "index_blocks" / If(v2, FixedSized(this.index_blocks_header.len_index_blocks,
                                           Struct("blocks" / GreedyRange(index_block)))),
        "body" / GreedyBytes,
    )
