"""The scan's file reads in order on threads (``table_scan._in_order``): the consumer reads a file itself
when no thread has started it, instead of waiting on the pool; results stay in order, errors where reached."""
from __future__ import annotations

import threading

import pytest

from fileindex.scan import table_scan


@pytest.fixture
def two_free(monkeypatch):
    monkeypatch.setattr(table_scan, "free_threads", lambda: 2)


def test_the_consumer_reads_what_no_thread_has_started_while_the_threads_are_busy(two_free):
    released = threading.Event()
    readers: dict[int, threading.Thread] = {}

    def read(item):
        readers[item] = threading.current_thread()
        if item < 2:  # the two threads hold the first two files until a third file has been read
            released.wait(timeout=30)  # (a guard against a hang only: the helping consumer releases them at once)
        elif item == 2:
            released.set()
        return item * 10

    assert list(table_scan._in_order(read, list(range(6)), 2)) == [0, 10, 20, 30, 40, 50]
    assert readers[2] is threading.current_thread()  # no thread could start it: the consumer read it
    assert readers[0] is not threading.current_thread() and readers[1] is not threading.current_thread()


def test_an_error_of_a_file_read_here_is_raised_where_the_consumer_reaches_it(two_free):
    def read(item):
        if item == 3:
            raise ValueError("file 3")
        return item

    results = table_scan._in_order(read, list(range(6)), 2)
    assert [next(results) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="file 3"):
        next(results)


def test_on_a_busy_machine_the_files_are_read_in_the_consumer_alone(monkeypatch):
    monkeypatch.setattr(table_scan, "free_threads", lambda: 1)
    readers = []
    results = list(table_scan._in_order(lambda item: readers.append(threading.current_thread()) or item,
                                        list(range(4)), 4))
    assert results == [0, 1, 2, 3] and set(readers) == {threading.current_thread()}
