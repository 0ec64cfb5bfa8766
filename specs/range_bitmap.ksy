meta:
  id: range_bitmap
  ks-version: '0.11'
  title: Apache Paimon range-bitmap index payload
  application: Apache Paimon
  license: Apache-2.0
  endian: be
  imports:
    - roaring_bitmap
doc: |
  The body of a `range-bitmap` index (RangeBitmapFileIndex, RangeBitmap). The distinct non-null
  values are sorted and numbered 0..cardinality-1 (their codes); a chunked dictionary maps values
  to codes, and a bit-sliced index maps each row to its code: slice i holds the rows whose code has
  bit i set, the existence bitmap (ebm) the non-null rows. Values are encoded by column type (the
  `key_kind` parameter, as in the bitmap spec; FLOAT and DOUBLE as raw bits, DECIMAL(p <= 18) as its
  unscaled long, TIMESTAMP(p <= 6) as epoch millis or micros).
doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/rangebitmap/RangeBitmap.java
params:
  - id: key_kind
    type: u1
    enum: key_kind
seq:
  - id: len_header
    type: s4
    valid:
      min: 0
    doc: Bytes of the header that follows (version .. len_dictionary).
  - id: header
    size: len_header
    type: header
instances:
  dictionary:
    pos: 4 + len_header
    size: header.len_dictionary
    type: dictionary
    doc: Follows the header. An instance, so that reading the header reads nothing else.
  bsi:
    pos: 4 + len_header + header.len_dictionary
    size-eos: true
    type: bit_slice_index
    doc: Follows the dictionary, to the end of the payload.
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
  key:
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
  header:
    seq:
      - id: version
        type: u1
        valid: 1
      - id: row_count
        type: s4
        valid:
          min: 0
        doc: rid, every row including nulls.
      - id: cardinality
        -orig-id: cardinality
        type: s4
        valid:
          min: 0
        doc: Number of distinct non-null values.
      - id: min
        -orig-id: min
        type: key
        if: cardinality > 0
      - id: max
        -orig-id: max
        type: key
        if: cardinality > 0
      - id: len_dictionary
        type: s4
        valid:
          min: 0
  dictionary:
    doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/rangebitmap/dictionary/chunked/ChunkedDictionary.java
    seq:
      - id: len_dictionary_header
        type: s4
        valid: 13
      - id: version
        type: u1
        valid: 1
      - id: num_chunks
        type: s4
        valid:
          min: 0
          max: (_io.size - _io.pos) / 4
        doc: The number of chunks; each has a 4-byte offset below.
      - id: len_offsets
        type: s4
        valid:
          min: 0
        doc: 4 * num_chunks.
      - id: len_chunks
        type: s4
        valid:
          min: 0
    instances:
      chunk_offsets:
        pos: 4 + len_dictionary_header
        type: s4
        repeat: expr
        repeat-expr: num_chunks
        doc: |
          Where each chunk header starts inside the chunk-header region. This and the parts below
          are instances: reading the dictionary's header reads nothing else.
      chunks:
        pos: 4 + len_dictionary_header + len_offsets
        size: len_chunks
        type: chunk_list
      keys:
        pos: 4 + len_dictionary_header + len_offsets + len_chunks
        size-eos: true
        doc: The key blobs of the chunks; chunk.ofs_keys counts from here.
  chunk_list:
    seq:
      - id: chunks
        type: chunk
        repeat: eos
  chunk:
    doc: |
      A run of consecutive codes: the head key (code head_code) is here; the num_keys keys after it
      (codes head_code + 1 ...) are in the key blob at ofs_keys. For strings the blob starts with
      num_keys offsets (relative to the keys part) followed by length-prefixed keys.
    seq:
      - id: version
        type: u1
        valid: 1
      - id: head_key
        type: key
      - id: head_code
        type: s4
      - id: ofs_keys
        type: s4
      - id: num_keys
        type: s4
      - id: len_key_offsets
        type: s4
        if: _root.key_kind == key_kind::string
      - id: len_keys
        type: s4
      - id: fixed_length
        type: s4
        if: _root.key_kind != key_kind::string
  bit_slice_index:
    doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/rangebitmap/BitSliceIndexBitmap.java
    seq:
      - id: len_header
        type: s4
        valid:
          min: 0
      - id: header
        size: len_header
        type: bsi_header
    instances:
      ebm:
        pos: 4 + len_header
        size: header.len_ebm
        type: roaring_bitmap
        doc: The rows with a value. This and the slices are instances, read on demand.
      slices:
        pos: 4 + len_header + header.len_ebm
        type: roaring_bitmap
        repeat: expr
        repeat-expr: header.num_slices
        doc: Written back to back; header.indexes locates each one from the end of the ebm.
  bsi_header:
    seq:
      - id: version
        type: u1
        valid: 1
      - id: num_slices
        type: u1
        doc: One byte; 64 for an all-null column.
      - id: len_ebm
        type: s4
        valid:
          min: 0
      - id: len_indexes
        type: s4
        doc: 8 * num_slices.
      - id: indexes
        type: slice_ref
        repeat: expr
        repeat-expr: num_slices
  slice_ref:
    seq:
      - id: ofs_slice
        type: s4
      - id: len_slice
        type: s4
