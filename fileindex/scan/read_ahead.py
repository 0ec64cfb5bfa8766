"""A stream made on a thread of its own ahead of its consumer, held up to a budget of bytes: the producer runs
until the items not yet taken hold ``limit`` bytes, then waits. Buckets of a primary-key table are read ahead
this way: a bucket read ahead costs at most its budget, however large it is. A consumer that reaches a stream
still being made takes it over (:meth:`ReadAhead.take_over`) rather than wait for the thread to make it."""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar


class _Sized(Protocol):
    @property
    def nbytes(self) -> int: ...


T = TypeVar("T", bound=_Sized)


class ReadAhead(Generic[T]):
    """The items of ``produce()`` (Arrow tables or batches), made on a daemon thread started at once, handed over
    in order; the producer's error is raised where the consumer reaches it. :meth:`close` stops the producer (at
    its next item) and waits for it, so nothing it would have read is read after ``close`` returns;
    :meth:`take_over` has the consumer go on with the stream itself."""

    def __init__(self, produce: Callable[[], Iterator[T]], limit: int):
        self._limit = limit
        self._changed = threading.Condition()
        self._items: deque[tuple[T, int]] = deque()  # (an item, its bytes)
        self._held = 0  # bytes of the items not yet taken
        self._ended = False
        self._closed = False
        self._handing = False  # the consumer takes the stream over: the producer stops at its next item
        self._rest: Iterator[T] | None = None  # the stream the producer left to the consumer
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(produce,), name="fileindex-read-ahead", daemon=True)
        self._thread.start()

    def _run(self, produce: Callable[[], Iterator[T]]) -> None:
        items = produce()
        try:
            for item in items:
                if not self._put(item):
                    if not self._closed:
                        self._rest = items  # (taken over: the consumer goes on with it)
                    return
            self._finish(None)
        except BaseException as err:  # (handed to the consumer, raised there)
            self._finish(err)
        finally:
            if self._rest is None:
                _close(items)

    def _put(self, item: T) -> bool:
        """Hand ``item`` on once the items not yet taken hold less than the limit (at once where the consumer
        takes the stream over); False where the consumer closed the stream or takes it over (the producer
        stops)."""
        size = item.nbytes
        with self._changed:
            while self._items and self._held >= self._limit and not self._closed and not self._handing:
                self._changed.wait()
            if self._closed:
                return False
            self._items.append((item, size))
            self._held += size
            self._changed.notify_all()
            return not self._handing

    def _finish(self, error: BaseException | None) -> None:
        with self._changed:
            self._ended, self._error = True, error
            self._changed.notify_all()

    def __iter__(self) -> Iterator[T]:
        while True:
            with self._changed:
                while not self._items and not self._ended:
                    self._changed.wait()
                if not self._items:
                    if self._error is not None:
                        raise self._error
                    return
                item, size = self._items.popleft()
                self._held -= size
                self._changed.notify_all()
            yield item

    def take_over(self) -> Iterator[T]:
        """The stream's items, the rest of it made in the calling thread: the producer stops after the item it
        is making (waited for, and handed on first with those it made before)."""
        with self._changed:
            self._handing = True
            self._changed.notify_all()
        self._thread.join()
        rest, self._rest = self._rest, None
        try:
            while self._items:
                yield self._items.popleft()[0]
            self._held = 0
            if self._error is not None:
                raise self._error
            if rest is not None:
                yield from rest
        finally:
            if rest is not None:
                _close(rest)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join()


def _close(items: Iterator) -> None:
    close = getattr(items, "close", None)
    if close is not None:
        close()
