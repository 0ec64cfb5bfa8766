"""The scan's file reads in order on threads (``table_scan._in_order``): the consumer reads the next file itself
when no thread has started it, instead of waiting on the pool; results stay in order, errors where reached."""
from __future__ import annotations

import concurrent.futures
import threading

import pytest

from fileindex.scan import table_scan


class Starved(concurrent.futures.ThreadPoolExecutor):
    """A pool whose threads never get a core (none is ever started): what a loaded machine does for a while."""

    def _adjust_thread_count(self):
        pass


def test_the_consumer_reads_what_no_thread_has_started(monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ThreadPoolExecutor", Starved)
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
