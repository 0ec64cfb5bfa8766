"""The range-bitmap payload (RangeBitmap), mirroring specs/range_bitmap.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/rangebitmap/RangeBitmap.java
"""
from functools import cache

from construct import (
    Array,
    Check,
    Const,
    FixedSized,
    GreedyBytes,
    GreedyRange,
    If,
    Int8ub,
    Int32sb,
    Struct,
    this,
)

from .bitmap import KEY_ENCODINGS
from .roaring_bitmap import roaring_bitmap

slice_ref = Struct("ofs_slice" / Int32sb, "len_slice" / Int32sb)

bsi_header = Struct(
    "version" / Const(1, Int8ub),
    "num_slices" / Int8ub,
    "len_ebm" / Int32sb,
    "len_indexes" / Int32sb,
    "indexes" / Array(this.num_slices, slice_ref),
)

bit_slice_index = Struct(
    "len_header" / Int32sb,
    "header" / FixedSized(this.len_header, bsi_header),
    "ebm" / FixedSized(this.header.len_ebm, roaring_bitmap),
    "slices" / Array(this.header.num_slices, roaring_bitmap),
)


@cache
def range_bitmap(key_kind: str) -> Struct:
    key = Struct("value" / KEY_ENCODINGS[key_kind])
    is_string = key_kind == "string"
    chunk = Struct(
        "version" / Const(1, Int8ub),
        "head_key" / key,
        "head_code" / Int32sb,
        "ofs_keys" / Int32sb,
        "num_keys" / Int32sb,
        "len_key_offsets" / If(is_string, Int32sb),
        "len_keys" / Int32sb,
        "fixed_length" / If(not is_string, Int32sb),
    )
    dictionary = Struct(
        "len_dictionary_header" / Const(13, Int32sb),
        "version" / Const(1, Int8ub),
        "num_chunks" / Int32sb,
        Check(this.num_chunks >= 0),
        "len_offsets" / Int32sb,
        "len_chunks" / Int32sb,
        "chunk_offsets" / Array(this.num_chunks, Int32sb),
        "chunks" / FixedSized(this.len_chunks, Struct("chunks" / GreedyRange(chunk))),
        "keys" / GreedyBytes,
    )
    header = Struct(
        "version" / Const(1, Int8ub),
        "row_count" / Int32sb,
        Check(this.row_count >= 0),
        "cardinality" / Int32sb,
        Check(this.cardinality >= 0),
        "min" / If(this.cardinality > 0, key),
        "max" / If(this.cardinality > 0, key),
        "len_dictionary" / Int32sb,
    )
    return Struct(
        "len_header" / Int32sb,
        "header" / FixedSized(this.len_header, header),
        "dictionary" / FixedSized(this.header.len_dictionary, dictionary),
        "bsi" / bit_slice_index,
    )
