meta:
  id: file_index_format
  title: Apache Paimon file-index container (FileIndexFormat, version 1)
  application: Apache Paimon
  file-extension: index
  license: Apache-2.0
  endian: be
doc: |
  The per-data-file index container. A HEAD (magic, version, head length and the
  column table) is followed by the BODY: the index payloads of every (column, index
  type) pair, concatenated in header order with no padding. The container is either
  written next to the data file as `<data-file>.index` or embedded in the manifest
  (`_EMBEDDED_FILE_INDEX`) when it is at most `file-index.in-manifest-threshold`.
  All integers are big-endian. Names use Java's modified UTF-8 (DataOutputStream.writeUTF):
  U+0000 is `C0 80` and a supplementary character is two 3-byte surrogate sequences;
  they are kept as raw bytes here and decoded by the library.
doc-ref: https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/FileIndexFormat.java
seq:
  - id: magic
    contents: [0x00, 0x05, 0x4e, 0x4e, 0xd0, 0x1a, 0x35, 0xae]
    doc: MAGIC = 1493475289347502L; Java rejects any other value ("This file is not file index file.").
  - id: version
    type: s4
    valid: 1
    doc: VERSION_1. Java's reader throws for any other version.
  - id: len_head
    type: s4
    valid:
      min: 16
    doc: |
      head_length: bytes of the whole HEAD counted from offset 0 (magic included), so the
      BODY starts at this offset. Java reads `head_length - 16` further bytes as the column table.
  - id: head
    size: len_head - 16
    type: column_table
    doc: The rest of the HEAD. Java ignores bytes after the column table (forward compatibility).
types:
  column_table:
    doc: The column table inside the HEAD region.
    seq:
      - id: num_columns
        type: s4
        valid:
          min: 0
        doc: column_number
      - id: columns
        type: column
        repeat: expr
        repeat-expr: num_columns
      - id: len_redundant
        type: s4
        doc: REDUNDANT_LENGTH; the writer always writes 0, the reader ignores it.
      - id: redundant
        size-eos: true
        doc: Redundant bytes reserved for future use; none are written, all are ignored on read.
  column:
    doc: One data column (or map-key column `m[k]`) and the indexes built on it.
    seq:
      - id: name
        type: java_utf
        doc: Column name, e.g. `price` or `attrs[color]` for a map-key index.
      - id: num_indexes
        type: s4
        valid:
          min: 0
      - id: indexes
        type: index_entry
        repeat: expr
        repeat-expr: num_indexes
  index_entry:
    doc: One index of one column; its payload lies in the BODY.
    seq:
      - id: index_type
        type: java_utf
        doc: Index type identifier ("bloom-filter", "bitmap", "bsi", "range-bitmap").
      - id: ofs_body
        type: s4
        doc: |
          start: ABSOLUTE offset of the payload from byte 0 of the container, or -1
          (EMPTY_INDEX_FLAG) when the index writer never received a record.
      - id: len_body
        type: s4
        doc: length of the payload in bytes; 0 for an empty entry.
    instances:
      is_empty:
        value: ofs_body == -1
        doc: EMPTY_INDEX_FLAG; read through EmptyFileIndexReader.
      body:
        io: _root._io
        pos: ofs_body
        size: len_body
        if: ofs_body != -1
        doc: The index payload (bloom-filter, bitmap, bsi or range-bitmap layout).
  java_utf:
    doc: |
      A string written by java.io.DataOutputStream.writeUTF: an unsigned 16-bit byte count,
      then modified UTF-8 (CESU-8 style surrogates, `C0 80` for U+0000).
    doc-ref: https://docs.oracle.com/javase/8/docs/api/java/io/DataInput.html#modified-utf-8
    seq:
      - id: len_value
        type: u2
      - id: value
        size: len_value
