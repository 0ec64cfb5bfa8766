"""The bloom-filter payload (BloomFilterFileIndex / BloomFilter64), mirroring specs/bloom_filter.ksy.

https://github.com/apache/paimon/blob/master/paimon-common/src/main/java/org/apache/paimon/fileindex/bloomfilter/BloomFilterFileIndex.java
"""
from construct import Check, GreedyBytes, Int32sb, Struct, this

bloom_filter = Struct(
    "num_hash_functions" / Int32sb,
    Check(this.num_hash_functions >= 1),
    "bitset" / GreedyBytes,
)
