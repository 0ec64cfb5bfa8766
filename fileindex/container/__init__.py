"""The per-data-file container (``FileIndexFormat``), versions 1 and 2 (spec §3): the entry table
and the bounds of its bodies (``head``), an opened file with zero-copy bodies (``file``), writing
(``writer``), the column order of Java's writer (``column_order``) and the deep checks of an entry
table (``invariants``). May import: ``fileindex.decoding``, ``fileindex.java``, ``fileindex.errors``,
``fileindex.generated``, ``fileindex.specs``.
"""

from fileindex.container.file import FileIndexContainer, raw_bytes  # the package's API, re-exported
from fileindex.container.writer import reframe, stream_container, write_container, write_entries

__all__ = ["FileIndexContainer", "raw_bytes", "reframe", "stream_container", "write_container", "write_entries"]
