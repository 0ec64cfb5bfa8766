"""Removing a folder that processes a command started may still be writing into. On Ctrl-C those processes (a
Spark job's workers) go on writing until they are ended, so a folder removed at once refills as it is removed
("Directory not empty"). While the command line handles an interrupt (``fileindex.cli.interrupts``), such a
removal waits until it has ended the processes the command started; anywhere else it happens at once."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

_deferred: list[Callable[[], None]] | None = None  # a list while the command line would run them after an interrupt


def remove_folder(path: str | Path) -> None:
    """Remove ``path`` and all it holds: now, or while an interrupt ends the command line, once the processes the
    command started have ended."""
    import shutil  # (not loaded by the command line's start)

    remove = partial(shutil.rmtree, path, ignore_errors=True)
    if _deferred is not None and isinstance(sys.exc_info()[1], KeyboardInterrupt):
        _deferred.append(remove)
    else:
        remove()


@contextmanager
def deferring(active: bool = True) -> Iterator[list[Callable[[], None]]]:
    """Within it (``active``), removals during an interrupt are collected in the list it gives, for the caller to
    run once it has ended the processes the command started."""
    global _deferred
    if not active:
        yield []
        return
    previous, _deferred = _deferred, []
    try:
        yield _deferred
    finally:
        _deferred = previous
