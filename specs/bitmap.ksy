meta:
  id: bitmap
  ks-version: '0.11'
  title: Apache Paimon bitmap index payload, versions 1 and 2
  application: Apache Paimon
  license: Apache-2.0
  endian: be
  imports:
    - roaring_bitmap
doc: |
  The body of a `bitmap` index (BitmapFileIndex, BitmapFileIndexMeta / BitmapFileIndexMetaV2).
  A dictionary maps each distinct non-null value to the rows holding it. A value found in exactly
  one row r stores offset -1 - r and no bitmap; other values store the offset of a serialized
  RoaringBitmap32 (portable format, little-endian inside, after runOptimize) in the BODY. Nulls
  get a bitmap of their own (-1 - r for a single null row; otherwise first in the BODY, offset 0).

  Version 1 lists (value, offset) pairs in the writer's HashMap order and lays the BODY out in
  that order: a bitmap's length is the distance to the next non-negative offset. Version 2 sorts
  the entries into index blocks of at most `index-block-size` bytes, each with a directory entry
  (first value, block offset), and records each bitmap's length.

  Values are encoded by column type (the `key_kind` parameter): TINYINT s1, SMALLINT s2,
  INT/DATE/TIME s4, BIGINT/TIMESTAMP s8 (epoch millis for precision <= 3, micros above),
  FLOAT floatToIntBits s4, DOUBLE doubleToLongBits s8, BOOLEAN one byte, CHAR/VARCHAR an s4
  length and the UTF-8 bytes.
doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/bitmap/BitmapFileIndexMetaV2.java
params:
  - id: key_kind
    type: u1
    enum: key_kind
    doc: How values of the column are encoded (from the column's Paimon type).
seq:
  - id: header
    type: header
    doc: |
      The fixed fields before the records (V1's dictionary, V2's block directory), which a reader
      reads first; the records that follow are decoded in bulk.
  - id: v1_entries
    type: v1_entry
    repeat: expr
    repeat-expr: header.num_values
    if: header.version == 1
  - id: block_dir
    type: block_ref
    repeat: expr
    repeat-expr: header.num_blocks
    if: header.version == 2
    doc: The first value of each index block and the block's offset from the start of the index blocks.
  - id: index_blocks_header
    type: index_blocks_header
    if: header.version == 2
    doc: |
      Where the directory ends; a reader decodes the directory in bulk, then reads this type there.
  - id: index_blocks
    size: index_blocks_header.len_index_blocks
    type: index_block_list
    if: header.version == 2
  - id: body
    size-eos: true
    doc: The serialized bitmaps; offsets are relative to the start of this region.
instances:
  ofs_body:
    value: _io.size - body.size
    doc: Where the BODY starts in the payload; bitmap offsets count from here.
  null_bitmap:
    io: _root._io
    pos: ofs_body + header.ofs_null
    type: roaring_bitmap
    if: header.has_null and header.ofs_null >= 0
    doc: The rows holding null (when more than one row does).
enums:
  key_kind:
    1: i1
    2: i2
    4: i4
    8: i8
    36: f4
    72: f8
    16: boolean
    32: string
types:
  header:
    seq:
      - id: version
        type: u1
        valid:
          any-of: [1, 2]
        doc: VERSION_1 or VERSION_2; Java refuses newer versions ("your plugin version is lower").
      - id: row_count
        -orig-id: rowCount
        type: s4
        valid:
          min: 0
        doc: rowCount, every record written including nulls.
      - id: num_values
        -orig-id: nonNullBitmapNumber
        type: s4
        valid:
          min: 0
          max: (_io.size - _io.pos) / 5
        doc: |
          nonNullBitmapNumber, the number of distinct non-null values. V1 lists as many records of at
          least 5 bytes (a key and an offset), so a count the bytes left cannot hold is malformed.
      - id: has_null_byte
        -orig-id: hasNullValue
        type: u1
        doc: hasNullValue (DataOutputStream.writeBoolean; any non-zero byte reads as true).
      - id: ofs_null
        -orig-id: nullValueOffset
        type: s4
        if: has_null
        doc: nullValueOffset; -1 - row for a single null row, else the body offset of the null bitmap.
      - id: len_null_bitmap
        type: s4
        if: has_null and version == 2
        doc: V2 only; the serialized size of the null bitmap, written even for a single null row.
      - id: num_blocks
        -orig-id: indexBlocks.size()
        type: s4
        if: version == 2
        valid:
          min: 0
          max: (_io.size - _io.pos) / 5
        doc: The number of index blocks; each has a directory record of at least 5 bytes.
    instances:
      has_null:
        value: has_null_byte != 0
  key:
    doc: One value of the column, encoded by key_kind.
    seq:
      - id: value
        type:
          switch-on: _root.key_kind
          cases:
            'key_kind::i1': s1
            'key_kind::i2': s2
            'key_kind::i4': s4
            'key_kind::i8': s8
            'key_kind::f4': s4
            'key_kind::f8': s8
            'key_kind::boolean': u1
            'key_kind::string': string_key
  string_key:
    seq:
      - id: len_value
        type: s4
      - id: value
        size: len_value
        doc: UTF-8 bytes (BinaryString).
  v1_entry:
    seq:
      - id: key
        type: key
      - id: ofs_bitmap
        -orig-id: offset
        type: s4
        doc: Body offset of the value's bitmap, or -1 - row for a single-row value.
    instances:
      bitmap:
        io: _root._io
        pos: _root.ofs_body + ofs_bitmap
        type: roaring_bitmap
        if: ofs_bitmap >= 0
        doc: The value's rows; a bitmap's length is the distance to the next offset (self-delimiting).
  block_ref:
    seq:
      - id: first_key
        type: key
      - id: ofs_block
        type: s4
        doc: Offset of the block from the start of the index blocks.
  index_blocks_header:
    seq:
      - id: len_index_blocks
        type: s4
        valid:
          min: 0
          max: _io.size - _io.pos
        doc: Total bytes of all index blocks ("bitmap body offset" in the Java writer).
  index_block_list:
    seq:
      - id: blocks
        type: index_block
        repeat: eos
  index_block:
    doc: Sorted entries; a block holds at most index-block-size bytes (4 + sum of 8 + value size).
    seq:
      - id: header
        type: index_block_header
        doc: |
          Read on its own where the directory puts the block; the entries after it are decoded in bulk.
      - id: entries
        type: v2_entry
        repeat: expr
        repeat-expr: header.num_entries
  index_block_header:
    seq:
      - id: num_entries
        type: s4
        valid:
          min: 0
          max: (_io.size - _io.pos) / 9
        doc: An entry takes at least 9 bytes (a 1-byte key, offset and length).
  v2_entry:
    seq:
      - id: key
        type: key
      - id: ofs_bitmap
        -orig-id: offset
        type: s4
        doc: Body offset of the bitmap, or -1 - row for a single-row value.
      - id: len_bitmap
        -orig-id: length
        type: s4
        doc: Serialized bitmap length, or -1 for a single-row value.
    instances:
      bitmap:
        io: _root._io
        pos: _root.ofs_body + ofs_bitmap
        size: len_bitmap
        type: roaring_bitmap
        if: ofs_bitmap >= 0
        doc: The value's rows.
