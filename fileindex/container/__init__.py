"""The per-data-file container (``FileIndexFormat``), versions 1 and 2 (spec §3): the entry table
and the bounds of its bodies (``head``), an opened file with zero-copy bodies (``file``), writing
(``writer``), the column order of Java's writer (``column_order``) and the deep checks of an entry
table (``invariants``). May import: ``fileindex.decoding``, ``fileindex.java``, ``fileindex.errors``,
``fileindex.generated``, ``fileindex.specs``.
"""

from fileindex.lazy import lazy_exports

# the package's API, re-exported: each module imported when one of its names is first asked for
__getattr__ = lazy_exports("fileindex.container", {
    "FileIndexContainer": "fileindex.container.file", "raw_bytes": "fileindex.container.file",
    **dict.fromkeys(("reframe", "stream_container", "write_container", "write_entries"), "fileindex.container.writer"),
})

__all__ = ["FileIndexContainer", "raw_bytes", "reframe", "stream_container", "write_container", "write_entries"]
