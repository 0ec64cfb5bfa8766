"""The bsi payload (BitSliceIndexBitmapFileIndex), mirroring specs/bsi.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/bsi/BitSliceIndexBitmapFileIndex.java
"""
from construct import Array, Check, Const, If, Int8ub, Int32sb, Int64sb, Struct, this

from .roaring_bitmap import roaring_bitmap

bit_slice_index = Struct(
    "version" / Const(1, Int8ub),
    "min" / Int64sb,
    "max" / Int64sb,
    "ebm" / roaring_bitmap,
    "num_slices" / Int32sb,
    Check((this.num_slices >= 0) & (this.num_slices <= 64)),
    "slices" / Array(this.num_slices, roaring_bitmap),
)

bsi = Struct(
    "version" / Const(1, Int8ub),
    "row_count" / Int32sb,
    Check(this.row_count >= 0),
    "has_positive_byte" / Int8ub,
    "positive" / If(this.has_positive_byte != 0, bit_slice_index),
    "has_negative_byte" / Int8ub,
    "negative" / If(this.has_negative_byte != 0, bit_slice_index),
)
