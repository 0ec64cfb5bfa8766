"""The scan's file reads in order on threads (``table_scan._in_order``): the consumer reads a queued file itself
when no thread has started it, instead of waiting on the pool; results stay in order, errors where reached; the
reader threads are kept between scans (``parallel.reader_pool``), a forked child making its own."""
from __future__ import annotations

import concurrent.futures
import os
import threading

import pytest
from conftest import ROOT

from fileindex import parallel
from fileindex.scan import table_scan


class Starved(concurrent.futures.ThreadPoolExecutor):
    """A pool whose threads never get a core (none is ever started): what a loaded machine does for a while."""

    def _adjust_thread_count(self):
        pass


def test_the_consumer_reads_what_no_thread_has_started(monkeypatch):
    monkeypatch.setattr(table_scan, "reader_pool", Starved)
    readers, results = [], []
    consumer = threading.Thread(target=lambda: results.extend(table_scan._in_order(
        lambda item: readers.append(threading.current_thread()) or item * 10, list(range(6)), 2)), daemon=True)
    consumer.start()
    consumer.join(timeout=60)  # (a guard only: a consumer waiting on the starved pool would never return)
    assert not consumer.is_alive() and results == [0, 10, 20, 30, 40, 50]
    assert set(readers) == {consumer}


def test_results_stay_in_order_and_an_error_is_raised_where_the_consumer_reaches_it():
    def read(item):
        if item == 3:
            raise ValueError("file 3")
        return item

    results = table_scan._in_order(read, list(range(6)), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="file 3"):
        next(results)


def test_while_a_thread_reads_the_next_file_the_consumer_reads_a_later_one(monkeypatch):
    monkeypatch.setattr(table_scan, "reader_pool", lambda workers: concurrent.futures.ThreadPoolExecutor(1))
    second_read, readers, results = threading.Event(), {}, []

    def read(item):
        readers[item] = threading.current_thread()
        if item == 0:  # (the one thread's first file ends only once the second is read: by the consumer)
            assert second_read.wait(timeout=60)
        if item == 1:
            second_read.set()
        return item

    consumer = threading.Thread(target=lambda: results.extend(table_scan._in_order(read, list(range(4)), 2)),
                                daemon=True)
    consumer.start()
    consumer.join(timeout=60)  # (a guard only: a consumer blocked on file 0 would never return)
    assert not consumer.is_alive() and results == [0, 1, 2, 3]
    assert readers[0] is not consumer and readers[1] is consumer


def test_reader_threads_are_kept_between_scans_and_a_forked_child_makes_its_own():
    pool = parallel.reader_pool(2)
    assert parallel.reader_pool(2) is pool and pool.submit(threading.get_ident).result() != threading.get_ident()
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # (the parent's threads are not in the child: its own pool reads)
        try:
            own = parallel.reader_pool(2)
            os.write(writing, b"new" if own is not pool and own.submit(lambda: 7).result(timeout=60) == 7 else b"old")
        finally:
            os._exit(0)
    os.close(writing)
    answer = os.read(reading, 8)
    os.close(reading)
    os.waitpid(child, 0)
    assert answer == b"new"


def test_a_closed_stream_leaves_no_read_running():
    """The threads are kept: a read started before the consumer stopped ends before ``close`` returns (a DuckDB
    LIMIT once saw a file opened after its query ended)."""
    consumer, started, release, ended = threading.current_thread(), threading.Event(), threading.Event(), []
    first_on_a_thread = threading.Lock()

    def read(item):
        if item and threading.current_thread() is not consumer and first_on_a_thread.acquire(blocking=False):
            started.set()  # (the stream's consumer is at its first yield now: a thread takes a later file)
            release.wait(timeout=60)
            ended.append(item)
        return item

    stream = table_scan._in_order(read, list(range(8)), 2)
    assert next(stream) == 0
    assert started.wait(timeout=60)
    threading.Timer(0.2, release.set).start()
    stream.close()
    assert len(ended) == 1


def test_reads_run_side_by_side_on_the_threads_and_in_the_consumer(monkeypatch):
    """Each of several reads decodes its file on its own thread (``parallel.reading_side_by_side``), whether a
    pool thread or the consumer runs it; a read alone may use pyarrow's threads."""
    flags = []
    read = lambda item: flags.append(parallel.reading_side_by_side()) or item  # noqa: E731
    assert list(table_scan._in_order(read, list(range(6)), 2)) == list(range(6))
    monkeypatch.setattr(table_scan, "reader_pool", Starved)  # (every read in the consumer)
    assert list(table_scan._in_order(read, list(range(6)), 2)) == list(range(6))
    assert flags == [True] * 12 and not parallel.reading_side_by_side()
    assert list(table_scan._in_order(read, [0], 2)) == [0] and flags[-1] is False


def test_a_read_side_by_side_keeps_its_columns_off_pyarrows_threads(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fileindex.arrow import data_files
    from fileindex.arrow.parquet_file import ParquetFile

    path = tmp_path / "part.parquet"
    pq.write_table(pa.table({"a": list(range(100)), "b": [str(n) for n in range(100)]}), path, row_group_size=40)
    asked = []
    for method in ("read", "read_row_group"):
        original = getattr(ParquetFile, method)
        monkeypatch.setattr(ParquetFile, method, lambda self, *args, original=original, **kwargs: asked.append(
            kwargs.get("use_threads", True)) or original(self, *args, **kwargs))

    def reads():
        reader = data_files.DataFileReader(str(path))
        whole, some = reader.read(["a", "b"]), reader.read_rows(pa.array([1, 50, 99]), ["a", "b"])
        assert whole.num_rows == 100 and some.column("a").to_pylist() == [1, 50, 99]
        return asked.copy()

    alone = reads()
    asked.clear()
    with parallel.side_by_side():
        beside = reads()
    assert alone and all(alone) and beside and not any(beside)


def test_reads_queued_hold_at_most_the_budget_of_their_weight(monkeypatch):
    """A table on a store queues reads by the bytes of their files: at most ``budget`` queued, one at least."""
    submitted = []

    class Recording(concurrent.futures.ThreadPoolExecutor):
        def submit(self, fn, *args):
            submitted.append(args[0])
            return super().submit(fn, *args)

    monkeypatch.setattr(table_scan, "reader_pool", lambda workers: Recording(workers))
    consumed = []
    for result in table_scan._in_order(lambda item: item, list(range(10)), 4, weight=lambda item: 10, budget=25):
        consumed.append(result)
        assert len(submitted) - len(consumed) <= 2  # (two reads of 10 within 25; eight without the budget)
    assert consumed == list(range(10))
    submitted.clear()
    assert list(table_scan._in_order(lambda item: item, [0, 1], 4, weight=lambda item: 100, budget=25)) == [0, 1]
    assert submitted == [0, 1]  # (one read over the budget still goes: one at least)


def test_a_file_of_unknown_size_weighs_a_reader_threads_share_of_the_budget():
    from types import SimpleNamespace

    def read_of(size):
        return SimpleNamespace(task=SimpleNamespace(entry=SimpleNamespace(file_size=size)))

    share = table_scan.STORE_BYTES_IN_FLIGHT // table_scan.STORE_READERS
    assert table_scan._file_bytes(read_of(5 << 20)) == 5 << 20
    assert table_scan._file_bytes(read_of(None)) == share and share > 0
    assert table_scan._file_bytes(SimpleNamespace(task=None)) == share


TWO_FILES = ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap_alter_table.db" / \
    "append_with_bitmap_alter_table"


class FirstFileWatched:
    """``TableScan._read_file`` watched on a table of two files: whether the second file's read started while the
    first was being read (the first waits ``first_waits`` seconds for it, or, None, asserts it starts), and the
    threads other than the consumer that read."""

    def __init__(self, monkeypatch, first_waits: float | None):
        consumer, self.threads = threading.current_thread(), set()
        self.second_started, self.second_during_first = threading.Event(), False
        original = table_scan.TableScan._read_file

        def read_file(scan, item):
            if threading.current_thread() is not consumer:
                self.threads.add(threading.current_thread())
            if self.second_started.is_set() or item is not scan.plan()[0]:
                self.second_started.set()
            elif first_waits is None:
                assert self.second_started.wait(timeout=60)  # (a guard only: a whole read starts it at once)
                self.second_during_first = True
            else:
                self.second_during_first = self.second_started.wait(timeout=first_waits)
            return original(scan, item)

        monkeypatch.setattr(table_scan.TableScan, "_read_file", read_file)
        monkeypatch.setattr(table_scan, "threads", lambda: 2)  # (two cores, wherever the tests run)


def two_files_scan():
    from fileindex import PaimonTable

    scan = PaimonTable(str(TWO_FILES)).scan()
    assert [item.read for item in scan.plan()] == ["all", "all"]
    return scan


def test_a_streamed_scan_reads_one_file_ahead_on_one_thread(monkeypatch):
    """#54: each thread reading grows its own heap in pyarrow's pool, and each file in flight is held: a streamed
    read starts a file only once the consumer has the one before, on one reader thread."""
    whole = two_files_scan().to_arrow()
    watched = FirstFileWatched(monkeypatch, first_waits=0.5)
    streamed = two_files_scan().to_batches().read_all()
    assert streamed.equals(whole) and watched.second_started.is_set()
    assert not watched.second_during_first and len(watched.threads) <= 1


def test_a_whole_read_keeps_every_reader_thread_busy(monkeypatch):
    whole = two_files_scan().to_arrow()
    watched = FirstFileWatched(monkeypatch, first_waits=None)  # (the first file ends only once the second began)
    assert two_files_scan().to_arrow().equals(whole) and watched.second_during_first


def test_the_read_window_of_a_stream_and_of_a_whole_read(monkeypatch):
    monkeypatch.setattr(table_scan, "threads", lambda: 4)
    assert table_scan.read_window(streamed=True) == (1, 1) and table_scan.read_window(streamed=False) == (4, 8)
    monkeypatch.setattr(table_scan, "threads", lambda: 1)
    assert table_scan.read_window(streamed=True) == table_scan.read_window(streamed=False) == (0, 0)


def test_a_stream_released_early_leaves_no_read_running(monkeypatch):
    """docs/guide/reading.md: a stream stopped early ends its reads when the reader is released (``del``); the
    file read ahead is waited for, never left running."""
    started, ended = [], []
    original = table_scan.TableScan._read_file

    def read_file(scan, item):
        started.append(item)
        if len(started) > 1:  # (the file read ahead is still being read when the reader goes)
            threading.Event().wait(0.3)
        try:
            return original(scan, item)
        finally:
            ended.append(item)

    monkeypatch.setattr(table_scan.TableScan, "_read_file", read_file)
    monkeypatch.setattr(table_scan, "threads", lambda: 2)
    reader = two_files_scan().to_batches()
    assert reader.read_next_batch().num_rows
    del reader
    assert len(ended) == len(started) >= 1
