"""The scan's file reads in order on threads (``table_scan._in_order``): the consumer reads a queued file itself
when no thread has started it, instead of waiting on the pool; results stay in order, errors where reached; the
reader threads are kept between scans (``parallel.reader_pool``), a forked child making its own."""
from __future__ import annotations

import concurrent.futures
import os
import threading

import pytest

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
