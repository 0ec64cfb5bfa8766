"""Running the declarative specs: the Kaitai-generated readers with errors at absolute offsets
(``kaitai``) and bounds-checked payload reads (``cursor``).
May import: ``fileindex.errors``, ``fileindex.types``, ``fileindex.java``, ``fileindex.generated``.
"""
