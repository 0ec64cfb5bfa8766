"""Which memory pool a read's Arrow buffers come from (#54).

pyarrow's default pool (mimalloc, in its wheels) gives freed memory back to the kernel, so a table read whole again
in a warm process, after other work, often has its pages mapped and zeroed anew by the kernel: in about half such
runs that took 29% of the CPU of a full scan of 10M rows (perf: ``clear_page_erms`` under mimalloc's page
allocation; 1.2-1.7 s of CPU against 0.73-0.80 in the other runs). DuckDB's result, from the C library's allocator,
reuses the pages the last one freed. A read into rows the caller keeps whole (``kept``: a scan's ``to_arrow``, with
or without a filter) takes its buffers from the C library's allocator too: 3% there, 0.71-0.81 s in every run
(Parquet's buffers: pyarrow's ORC reader takes no pool). Every such read, not only the unfiltered ones: a large
result in one pool and the next in the other left the second to map fresh pages (``amount > 100`` after a full
scan: 1.92 s of CPU against 1.25). A streamed read keeps pyarrow's pool: the C library's allocator held on to more
between its batches (a streamed full scan peaked at 243 MiB against 188). A process that chose its pool
(``ARROW_DEFAULT_MEMORY_POOL``) keeps its choice.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa

_KEPT = threading.local()


def current() -> pa.MemoryPool | None:
    """The pool this thread's reads allocate from (None: pyarrow's default)."""
    return pa.system_memory_pool() if getattr(_KEPT, "on", False) else None


@contextmanager
def kept() -> Iterator[None]:
    """``with kept():`` this thread's reads build buffers that the caller keeps whole (a read into ``to_arrow``)."""
    was = getattr(_KEPT, "on", False)
    _KEPT.on = not os.environ.get("ARROW_DEFAULT_MEMORY_POOL")
    try:
        yield
    finally:
        _KEPT.on = was
