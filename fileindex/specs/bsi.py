"""The bsi payload (BitSliceIndexBitmapFileIndex), mirroring specs/bsi.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/bsi/BitSliceIndexBitmapFileIndex.java
"""
from construct import Array, Check, Const, If, Int8ub, Int32sb, Int64sb, Struct, this

from .roaring_bitmap import roaring_bitmap

half_header = Struct(
    "has_index_byte" / Int8ub,
    "version" / If(this.has_index_byte != 0, Const(1, Int8ub)),
    "min" / If(this.has_index_byte != 0, Int64sb),
    "max" / If(this.has_index_byte != 0, Int64sb),
)

bit_slice_index = Struct(
    "ebm" / roaring_bitmap,
    "slices_header" / Struct(
        "num_slices" / Int32sb,
        Check((this.num_slices >= 0) & (this.num_slices <= 64)),
    ),
    "slices" / Array(this.slices_header.num_slices, roaring_bitmap),
)

half = Struct(
    "header" / half_header,
    "index" / If(this.header.has_index_byte != 0, bit_slice_index),
)

bsi = Struct(
    "header" / Struct(
        "version" / Const(1, Int8ub),
        "row_count" / Int32sb,
        Check(this.row_count >= 0),
    ),
    "positive" / half,
    "negative" / half,
)
