"""Index bodies, one package per type (``bloom_filter``, ``bitmap``, ``bsi``, ``range_bitmap``), with
what they share: the reader visitor (``reader``), the answers (``result``: REMAIN, SKIP, rows), the
Roaring framing (``roaring``), option parsing (``options``) and the registry of types (``registry``).
May import: ``fileindex.decoding``, ``fileindex.java``, ``fileindex.arrow``, the base modules.
"""
