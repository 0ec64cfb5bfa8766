meta:
  id: roaring_bitmap
  ks-version: '0.11'
  title: RoaringBitmap portable serialization (framing only)
  license: Apache-2.0
  endian: le
doc: |
  The portable Roaring format that Java's RoaringBitmap32.serialize() writes inside Paimon index
  payloads (little-endian, unlike the rest of the payloads). This spec only frames a bitmap, so that
  the bytes after it can be found; the values are decoded with pyroaring. A cookie of 12346 means no
  run containers (then a u4 container count follows); a low half of 12347 means run containers, the
  container count minus one in the high half, and a bitset telling which containers are runs. The
  offsets table is absent when there are run containers and fewer than 4 containers.
doc-ref: https://github.com/RoaringBitmap/RoaringFormatSpec
seq:
  - id: cookie
    -orig-id: cookie
    type: u4
    valid:
      expr: _ == 12346 or (_ & 0xffff) == 12347
  - id: num_containers_no_run
    type: u4
    if: not has_runs
  - id: run_flags
    size: (num_containers + 7) / 8
    if: has_runs
  - id: descriptions
    type: container_description
    repeat: expr
    repeat-expr: num_containers
  - id: offsets
    type: u4
    repeat: expr
    repeat-expr: num_containers
    if: not has_runs or num_containers >= 4
  - id: containers
    type: container(_index)
    repeat: expr
    repeat-expr: num_containers
instances:
  has_runs:
    value: (cookie & 0xffff) == 12347
  num_containers:
    value: 'has_runs ? (cookie >> 16) + 1 : num_containers_no_run'
types:
  container_description:
    seq:
      - id: key
        type: u2
        doc: The high 16 bits shared by the container's values.
      - id: card_minus_one
        type: u2
  container:
    params:
      - id: i
        type: u4
    seq:
      - id: num_runs
        type: u2
        if: is_run
      - id: data
        size: 'is_run ? 4 * num_runs : (_parent.descriptions[i].card_minus_one < 4096 ? 2 * (_parent.descriptions[i].card_minus_one + 1) : 8192)'
        doc: Run pairs (start, length - 1), sorted 16-bit values (array), or a 65536-bit bitmap.
    instances:
      is_run:
        value: '_parent.has_runs and (_parent.run_flags[i / 8] & (1 << (i % 8))) != 0'
