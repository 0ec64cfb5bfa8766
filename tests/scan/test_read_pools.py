"""Which memory pool a scan's rows come from (``arrow/pools.py``): Arrow's own jemalloc, whose freed pages the
next read reuses, for whole and streamed reads alike; a process that chose its pool keeps it."""
from __future__ import annotations

import gc

import pyarrow as pa
import pytest
from drawn_predicates import TABLES

from fileindex import PaimonTable
from fileindex.arrow import pools

PARQUET = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"

try:
    JEMALLOC = pa.jemalloc_memory_pool()
except NotImplementedError:
    JEMALLOC = None
needs_jemalloc = pytest.mark.skipif(JEMALLOC is None or pa.default_memory_pool().backend_name != "mimalloc",
                                    reason="a pyarrow without jemalloc, or a process that chose its pool")


def jemalloc_bytes() -> int:
    gc.collect()  # (a table another test dropped is freed before counting, not during)
    assert JEMALLOC is not None
    return JEMALLOC.bytes_allocated()


@pytest.fixture
def chosen_afresh():
    """``pools.reads`` chosen again under the test's environment, and again after it."""
    pools.reads.cache_clear()
    yield
    pools.reads.cache_clear()


@needs_jemalloc
def test_a_whole_read_holds_its_rows_in_arrows_jemalloc():
    before = jemalloc_bytes()
    rows = PaimonTable(PARQUET).scan().to_arrow()
    assert rows.num_rows and jemalloc_bytes() - before >= rows.nbytes


@needs_jemalloc
def test_a_filtered_read_holds_its_rows_there_too():
    before = jemalloc_bytes()
    rows = PaimonTable(PARQUET).scan("f1 > 0").to_arrow()
    assert rows.num_rows and jemalloc_bytes() - before >= rows.nbytes


@needs_jemalloc
def test_a_streamed_read_holds_its_batches_there():
    before = jemalloc_bytes()
    batches = list(PaimonTable(PARQUET).scan().to_batches())
    assert sum(batch.num_rows for batch in batches) and jemalloc_bytes() - before >= sum(b.nbytes for b in batches)


@needs_jemalloc
def test_a_process_that_chose_its_pool_keeps_it(monkeypatch, chosen_afresh):
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
    before = jemalloc_bytes()
    rows = PaimonTable(PARQUET).scan().to_arrow()
    assert rows.num_rows and jemalloc_bytes() == before and pools.reads() is None


def test_a_default_pool_set_by_the_process_is_kept(monkeypatch, chosen_afresh):
    monkeypatch.setattr(pa, "default_memory_pool", pa.system_memory_pool)
    assert pools.reads() is None
