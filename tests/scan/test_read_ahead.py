"""A stream made ahead on a thread (``scan.read_ahead``): order, errors, the byte budget, and close waiting for
its producer."""
import threading
from functools import partial

import pyarrow as pa
import pytest

from fileindex.scan.read_ahead import ReadAhead


def table(n: int) -> pa.Table:
    return pa.table({"n": pa.array([n] * 100, pa.int64())})


def endless(closed: threading.Event):
    """Tables 0, 1, 2, ... without end; ``closed`` set when the stream is closed."""
    try:
        n = 0
        while True:
            yield table(n)
            n += 1
    finally:
        closed.set()


def test_items_come_out_in_order_and_the_producer_waits_within_its_budget():
    made: list[int] = []

    def produce():
        for n in range(20):
            made.append(n)
            yield table(n)

    taken = []
    for item in ReadAhead(produce, limit=1):  # (a byte: one item held at a time)
        assert len(made) <= len(taken) + 3  # (this one, one held, one made and waiting)
        taken.append(item.column("n")[0].as_py())
    assert taken == list(range(20))


def test_a_producers_error_is_raised_where_the_consumer_reaches_it():
    def produce():
        yield table(0)
        raise ValueError("bad file")

    stream = iter(ReadAhead(produce, 1 << 20))
    assert next(stream).num_rows == 100
    with pytest.raises(ValueError, match="bad file"):
        next(stream)


def test_close_stops_the_producer_and_waits_for_it():
    closed = threading.Event()
    ahead = ReadAhead(partial(endless, closed), 1)
    assert next(iter(ahead)).column("n")[0].as_py() == 0
    ahead.close()
    assert closed.is_set()  # (the producer's stream was closed before close returned)
    assert not [t for t in threading.enumerate() if t.name == "fileindex-read-ahead"]


def test_a_stream_taken_over_goes_on_in_the_consumers_thread_in_order():
    made_by: list[str] = []

    def produce():
        for n in range(6):
            made_by.append(threading.current_thread().name)
            yield table(n)

    ahead = ReadAhead(produce, limit=1)  # (the producer waits at its second item until the consumer takes over)
    taken = [item.column("n")[0].as_py() for item in ahead.take_over()]
    assert taken == list(range(6))
    # the producer made one item or two (the one it was making when taken over, handed on), the consumer the rest
    by_producer = made_by.count("fileindex-read-ahead")
    assert 1 <= by_producer <= 2 and made_by[by_producer:] == [threading.current_thread().name] * (6 - by_producer)
    assert not [t for t in threading.enumerate() if t.name == "fileindex-read-ahead"]


def test_a_stream_taken_over_raises_its_error_and_closes_when_the_consumer_stops():
    closed = threading.Event()

    def failing():
        yield table(0)
        raise ValueError("bad file")

    stream = ReadAhead(failing, 1 << 20).take_over()
    assert next(stream).num_rows == 100
    with pytest.raises(ValueError, match="bad file"):
        next(stream)

    stream = ReadAhead(partial(endless, closed), 1).take_over()
    assert [next(stream).column("n")[0].as_py() for _ in range(5)] == list(range(5))
    stream.close()
    assert closed.is_set()
