"""Java compatibility: what Paimon's Java code computes, bit for bit (spec §5.4, §11).

``String.hashCode`` and Paimon's ``BinaryString.hashCode`` (``hash``), ``java.util.HashMap`` iteration
order (``hashmap``), modified UTF-8 (``utf``), XXH64 and ``FastHash`` (``xxh64``, ``fast_hash``,
``column_hash``), ``BinaryRow`` (``binary_row``), Arrow string buffers for vectorized hashing, and
the text Java prints for doubles, floats and timestamps (``text``).
May import: ``fileindex.arrow`` and the base modules.
"""
