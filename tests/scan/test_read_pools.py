"""Which memory pool a scan's rows come from (``arrow/pools.py``): a whole read (``to_arrow``) keeps its rows in the
C library's allocator, whose freed pages the next read reuses, filtered or not; a streamed read, and a process that
chose its pool (``ARROW_DEFAULT_MEMORY_POOL``), keep pyarrow's default; the choice is the reading thread's alone."""
from __future__ import annotations

import gc
import threading

import pyarrow as pa
from drawn_predicates import TABLES

from fileindex import PaimonTable
from fileindex.arrow import pools

PARQUET = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"


def system_bytes() -> int:
    gc.collect()  # (a kept table another test dropped is freed before counting, not during)
    return pa.system_memory_pool().bytes_allocated()


def test_a_whole_read_holds_its_rows_in_the_c_allocators_pool():
    before = system_bytes()
    rows = PaimonTable(PARQUET).scan().to_arrow()
    assert rows.num_rows and system_bytes() - before >= rows.nbytes


def test_a_filtered_whole_read_holds_its_rows_there_too():
    before = system_bytes()
    rows = PaimonTable(PARQUET).scan("f1 > 10").to_arrow()
    assert rows.num_rows and system_bytes() - before >= rows.nbytes


def test_a_streamed_read_keeps_pyarrows_pool():
    before = system_bytes()
    batches = list(PaimonTable(PARQUET).scan().to_batches())
    assert sum(batch.num_rows for batch in batches) and system_bytes() <= before


def test_a_process_that_chose_its_pool_keeps_it(monkeypatch):
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
    before = system_bytes()
    rows = PaimonTable(PARQUET).scan().to_arrow()
    assert rows.num_rows and system_bytes() <= before


def test_kept_is_the_threads_own_and_ends_with_the_block():
    seen = []
    with pools.kept():
        inside = pools.current()
        other = threading.Thread(target=lambda: seen.append(pools.current()))
        other.start()
        other.join()
    assert inside is not None and inside.backend_name == "system"
    assert seen == [None] and pools.current() is None
