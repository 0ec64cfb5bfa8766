"""The per-data-file container (``FileIndexFormat``), versions 1 and 2 (spec §3): reading
(``layout``: the entry table, zero-copy bodies), writing, and the column order of Java's writer
(``column_order``). May import: ``fileindex.codec``, ``fileindex.java``, ``fileindex.errors``,
``fileindex.generated``, ``fileindex.specs``.
"""

from fileindex.container.layout import (  # noqa: E402  the package's API, re-exported
    FileIndexContainer,
    raw_bytes,
    reframe,
    stream_container,
    write_container,
    write_entries,
)

__all__ = ["FileIndexContainer", "raw_bytes", "reframe", "stream_container", "write_container", "write_entries"]
