meta:
  id: bsi
  ks-version: '0.11'
  title: Apache Paimon bsi (bit-sliced index) payload
  application: Apache Paimon
  license: Apache-2.0
  endian: be
  imports:
    - roaring_bitmap
doc: |
  The body of a `bsi` index (BitSliceIndexBitmapFileIndex). Each value maps to a long (integers and
  DATE/TIME sign-extended, DECIMAL its unscaled long, TIMESTAMP epoch millis for precision <= 3 and
  micros above). Rows with values >= 0 go to the positive half, rows with values < 0 to the negative
  half, which stores |v|. Each half is a BitSliceIndexRoaringBitmap: min (always written as 0 by
  Java), max (the largest magnitude), the existence bitmap of its rows, and one bitmap per bit of
  max - min (slice i holds the rows whose value - min has bit i set).
doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/bsi/BitSliceIndexBitmapFileIndex.java
seq:
  - id: header
    type: header
  - id: positive
    type: half
    doc: The rows with values >= 0.
  - id: negative
    type: half
    doc: The rows with values < 0, by magnitude.
types:
  header:
    seq:
      - id: version
        type: u1
        valid: 1
      - id: row_count
        -orig-id: rowCount
        type: s4
        valid:
          min: 0
        doc: rowNumber, every record written including nulls.
  half:
    doc: |
      An optional BitSliceIndexRoaringBitmap (writeBoolean, then the index when true). The fixed
      fields are one header type, which a reader reads on its own; the bitmaps it frames itself.
    seq:
      - id: header
        type: half_header
      - id: index
        type: bit_slice_index
        if: header.has_index
  half_header:
    seq:
      - id: has_index_byte
        type: u1
        doc: writeBoolean; any non-zero byte reads as true.
      - id: version
        type: u1
        valid: 1
        if: has_index
      - id: min
        -orig-id: min
        type: s8
        if: has_index
      - id: max
        -orig-id: max
        type: s8
        if: has_index
    instances:
      has_index:
        value: has_index_byte != 0
  bit_slice_index:
    doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/utils/BitSliceIndexRoaringBitmap.java
    seq:
      - id: ebm
        -orig-id: ebm
        type: roaring_bitmap
        doc: Existence bitmap, the rows of this half.
      - id: slices_header
        type: slices_header
        doc: Where the ebm ends (its size is not recorded; a reader frames it).
      - id: slices
        -orig-id: slices
        type: roaring_bitmap
        repeat: expr
        repeat-expr: slices_header.num_slices
  slices_header:
    seq:
      - id: num_slices
        -orig-id: slices.length
        type: s4
        valid:
          min: 0
          max: 64
