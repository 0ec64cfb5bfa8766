"""The points a table write passes, where a test can stop it: a test-only seam, not a parameter.

``reached(stage)`` is called as a rewrite passes each :class:`Stage` and does nothing unless a test
watches (``with watching(callback): ...``): the callback then runs there, to raise, kill the process,
commit concurrently or time the stage. While it runs nothing is watched, so a write it starts itself
passes its stages unwatched. The watcher is a context variable: another thread or a later call is
never affected.
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Stage(enum.Enum):
    SIDECARS = "sidecars"  # before the first new index file is written
    MANIFESTS = "manifests"  # before the new manifests and manifest lists
    SNAPSHOT = "snapshot"  # before the new snapshot is linked (the commit point)
    LATEST = "latest"  # after the link, before the LATEST hint


_watcher: ContextVar[Callable[[Stage], None] | None] = ContextVar("fileindex_table_stage_watcher", default=None)


def reached(stage: Stage) -> None:
    callback = _watcher.get()
    if callback is None:
        return
    token = _watcher.set(None)
    try:
        callback(stage)
    finally:
        _watcher.reset(token)


@contextmanager
def watching(callback: Callable[[Stage], None]) -> Iterator[None]:
    """Run ``callback(stage)`` at every stage the writes inside this block reach (tests and benchmarks only)."""
    token = _watcher.set(callback)
    try:
        yield
    finally:
        _watcher.reset(token)
