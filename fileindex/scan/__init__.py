"""Reading a table, in one place: the one :class:`~fileindex.scan.table.PaimonTable` (metadata, schemas,
``plan`` and ``scan``), the one planner (``planner``: partition → bucket → statistics → file index →
deletion vectors, a typed :class:`~fileindex.scan.funnel.FileRead` per live data file), the funnel
(``funnel``: ``FileRead``, ``Stage``, ``Explain``), the per-file reader the Python reader and both Spark
paths share (``reader``), the exact filter (``truth``) and the lazy Arrow stream (``table_scan``). Spark
only distributes the planner's file reads over tasks; it never plans around the planner.

Below ``pipeline`` (the per-file work of build and verify) and above ``table`` (metadata, the store).
"""
