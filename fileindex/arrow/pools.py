"""The memory pool a scan reads its Parquet rows into (#54): Arrow's own jemalloc, freed pages kept for a while.

pyarrow's default pool (mimalloc, in its Linux wheels) gives freed memory back to the kernel at once, so a warm
process reading a large table again has the pages of its last result mapped and zeroed anew by the kernel: in
about half of the warm full scans of 10M rows, ``clear_page_erms`` was 19-29% of the CPU. The C library's
allocator keeps them, but DuckDB and Python free into it too, and between their frees our reads cost more than
they saved (docs/benchmarks.md). Arrow's jemalloc is a copy of its own (prefixed: nothing else in the process
allocates from it) whose freed pages are given back after a decay time; Arrow sets 1 s, which gave a streamed
full read 4.6-5.0 s of system time against mimalloc's 1.0-1.3, so it is set to jemalloc's own default for dirty
pages, ``DECAY_MS``, at the first read (the setting is the process's, for Arrow's jemalloc arenas made after it:
those of the threads that first allocate from it then; the first thread's keeps Arrow's 1 s).

A process that chose its pool keeps it for the reads too (opting out): ``ARROW_DEFAULT_MEMORY_POOL`` set, or a
default pool other than mimalloc (``pa.set_memory_pool`` before the first read); so does a pyarrow built without
jemalloc (its Windows and macOS wheels).
"""
from __future__ import annotations

import functools
import os

import pyarrow as pa

DECAY_MS = 10_000


@functools.cache
def reads() -> pa.MemoryPool | None:
    """The pool a read's buffers come from (None: pyarrow's default), chosen at the process's first read."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL") or pa.default_memory_pool().backend_name != "mimalloc":
        return None
    try:
        pa.jemalloc_set_decay_ms(DECAY_MS)
        return pa.jemalloc_memory_pool()
    except NotImplementedError:  # (pyarrow.lib.ArrowNotImplementedError: no jemalloc in this build)
        return None
