meta:
  id: bloom_filter
  ks-version: '0.11'
  title: Apache Paimon bloom-filter index payload
  application: Apache Paimon
  license: Apache-2.0
  endian: be
doc: |
  The body of a `bloom-filter` index (BloomFilterFileIndex, BloomFilter64): the number of hash
  functions, then the bit set. numBits = 8 * (payload length - 4). Bit `pos` is bit
  `pos & 7` (least significant first) of byte `pos >> 3`. Positions come from the 64-bit FastHash
  of each value: h1 = low 32 bits, h2 = high 32 bits, c_i = h1 + i*h2 in int32 arithmetic,
  c_i = ~c_i when negative, pos_i = c_i mod numBits, for i = 1..k.
doc-ref: https://github.com/apache/paimon/blob/5dacde516bf6e29b583aff8b32bab321bfc6e64f/paimon-common/src/main/java/org/apache/paimon/fileindex/bloomfilter/BloomFilterFileIndex.java
seq:
  - id: num_hash_functions
    -orig-id: numHashFunctions
    type: s4
    valid:
      min: 1
    doc: |
      numHashFunctions (k), written with DataOutputStream.writeInt. Java's reader re-assembles it
      from sign-extended bytes, which is only right for k < 128; this is a plain big-endian int.
instances:
  len_bitset:
    value: _io.size - 4
    doc: Bytes of the bit set; numBits is 8 times this.
  bitset:
    pos: 4
    size: len_bitset
    doc: BloomFilter64's BitSet bytes, byte 0 first, least significant bit first.
