"""Running the declarative specs: the Kaitai-generated readers with errors at absolute offsets
(``kaitai``), the one walk of their debug readers' position records (``debug_tree``: explain's
fields and the errors' places) and bounds-checked payload reads (``cursor``). The only package that
imports the Kaitai runtime (besides the generated readers and ``fileindex.kaitai_runtime``).
May import: ``fileindex.errors``, ``fileindex.types``, ``fileindex.java``, ``fileindex.generated``.
"""
