meta:
  id: file_index_format
  ks-version: '0.11'
  title: Apache Paimon file-index container (FileIndexFormat, versions 1 and 2)
  application: Apache Paimon
  file-extension: index
  license: Apache-2.0
  endian: be
doc: |
  The per-data-file index container, in one of two layouts chosen by `version`.

  Version 1 (released): a HEAD (magic, version, head length and the
  column table) is followed by the BODY: the index payloads of every (column, index
  type) pair, concatenated in header order with no padding. The container is either
  written next to the data file as `<data-file>.index` or embedded in the manifest
  (`_EMBEDDED_FILE_INDEX`) when it is at most `file-index.in-manifest-threshold`.
  All integers are big-endian. Names use Java's modified UTF-8 (DataOutputStream.writeUTF):
  U+0000 is `C0 80` and a supplementary character is two 3-byte surrogate sequences;
  they are kept as raw bytes here and decoded by the library.

  Version 2 (EXPERIMENTAL: proposed in apache/paimon PR #10030, closed, and PR #10101, open; not
  merged): the payloads follow the 12-byte preamble directly; a FOOTER with 64-bit absolute start
  and length per index follows them, then a 12-byte TRAILER (footer length, tail magic "PAFIDX02").
  A reader finds the footer from the end of the input, so it needs the container's total length.
doc-ref:
  - https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/FileIndexFormat.java
  - https://github.com/apache/paimon/pull/10101
  - https://docs.oracle.com/javase/8/docs/api/java/io/DataInput.html#modified-utf-8
seq:
  - id: magic
    -orig-id: MAGIC
    contents: [0x00, 0x05, 0x4e, 0x4e, 0xd0, 0x1a, 0x35, 0xae]
    doc: MAGIC = 1493475289347502L; Java rejects any other value ("This file is not file index file.").
  - id: version
    -orig-id: version (VERSION_1, VERSION_2)
    type: s4
    valid:
      any-of: [1, 2]
    doc: VERSION_1, or VERSION_2 of the proposal. Java's released reader throws for any version but 1.
  - id: len_head
    -orig-id: head_length
    type: s4
    valid:
      min: 16
    if: version == 1
    doc: |
      head_length: bytes of the whole HEAD counted from offset 0 (magic included), so the
      BODY starts at this offset. Java reads `head_length - 16` further bytes as the column table.
  - id: head
    size: len_head - 16
    type: column_table
    if: version == 1
    doc: The rest of the HEAD. Java ignores bytes after the column table (forward compatibility).
instances:
  trailer:
    pos: _io.size - 12
    type: trailer
    if: version == 2
    doc: Version 2 only; the last 12 bytes of the container.
  footer:
    pos: _io.size - 12 - trailer.len_footer
    size: trailer.len_footer
    type: footer
    if: version == 2
    doc: Version 2 only; the entry table, ending where the trailer starts.
types:
  trailer:
    -orig-id: FileIndexFormatV2 tail
    doc: Version 2. Where the footer starts, and the tail magic that marks a complete file.
    seq:
      - id: len_footer
        -orig-id: footer_length
        type: s4
        valid:
          min: 4
          max: _io.size - 24
        doc: |
          footer_length: bytes from the footer's start up to this field. The footer starts at
          `size - 12 - len_footer`, which must leave the 12-byte preamble before it.
      - id: tail_magic
        -orig-id: TAIL_MAGIC
        contents: PAFIDX02
        doc: 0x5041464944583032; "Invalid file index tail magic" otherwise.
  footer:
    doc: Version 2. The entry table; every byte of it is used (no trailing bytes).
    seq:
      - id: num_columns
        -orig-id: column_number / column_count
        type: s4
        valid:
          min: 0
        doc: column_count
      - id: columns
        type: column_v2
        repeat: expr
        repeat-expr: num_columns
      - id: trailing
        size-eos: true
        doc: Must be empty; Java ignores such bytes, a strict reader reports them.
  column_v2:
    doc: Version 2. One column and its indexes, as in version 1 but with 64-bit positions.
    seq:
      - id: len_name
        type: u2
        doc: writeUTF's byte count of the name.
      - id: name
        size: len_name
        doc: Column name in Java's modified UTF-8.
      - id: num_indexes
        -orig-id: index_number
        type: s4
        valid:
          min: 0
      - id: indexes
        type: index_entry_v2
        repeat: expr
        repeat-expr: num_indexes
  index_entry_v2:
    doc: Version 2. One index; its payload lies between the preamble and the footer.
    seq:
      - id: len_index_type
        type: u2
        doc: writeUTF's byte count of the index type.
      - id: index_type
        size: len_index_type
        doc: Index type identifier in Java's modified UTF-8.
      - id: ofs_body
        -orig-id: start
        type: s8
        doc: start, ABSOLUTE from byte 0 (may exceed 2^31), or -1 (EMPTY_INDEX_FLAG).
      - id: len_body
        -orig-id: length
        type: s8
        doc: length; 0 for an empty entry. Java rejects a payload over Integer.MAX_VALUE bytes.
    instances:
      is_empty:
        value: ofs_body == -1
      body:
        io: _root._io
        pos: ofs_body
        size: len_body
        if: ofs_body != -1
        doc: The index payload.
  column_table:
    doc: The column table inside the HEAD region.
    seq:
      - id: num_columns
        -orig-id: column_number / column_count
        type: s4
        valid:
          min: 0
        doc: column_number
      - id: columns
        type: column
        repeat: expr
        repeat-expr: num_columns
      - id: len_redundant
        -orig-id: REDUNDANT_LENGTH
        type: s4
        doc: REDUNDANT_LENGTH; the writer always writes 0, the reader ignores it.
      - id: redundant
        size-eos: true
        doc: Redundant bytes reserved for future use; none are written, all are ignored on read.
  column:
    doc: One data column (or map-key column `m[k]`) and the indexes built on it.
    seq:
      - id: len_name
        type: u2
        doc: writeUTF's byte count of the name.
      - id: name
        size: len_name
        doc: |
          Column name in Java's modified UTF-8, e.g. `price` or `attrs[color]` for a map-key
          index. The two fields are writeUTF's output; they sit in the column record itself rather
          than in a type of their own so that the reader builds one object per column.
      - id: num_indexes
        -orig-id: index_number
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
      - id: len_index_type
        type: u2
        doc: writeUTF's byte count of the index type.
      - id: index_type
        size: len_index_type
        doc: Index type identifier in Java's modified UTF-8 ("bloom-filter", "bitmap", "bsi", "range-bitmap").
      - id: ofs_body
        -orig-id: start
        type: s4
        doc: |
          start: ABSOLUTE offset of the payload from byte 0 of the container, or -1
          (EMPTY_INDEX_FLAG) when the index writer never received a record.
      - id: len_body
        -orig-id: length
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
