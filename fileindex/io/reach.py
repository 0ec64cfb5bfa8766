"""How a table or file named by URI is reached when its caller gives no options: what the command line's
``--storage-option`` pairs (or a caller's ``with reaching(...)``) say, for every store opened inside, however deep
in the modules. A context variable: another thread or a later call is never affected."""
from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any


class Reach:
    """What ``reaching`` gives the locations opened within it, and whether a store was reached (opened, or handed
    on to a process that opens it): options given for a command that reaches none went unused."""

    __slots__ = ("options", "filesystem", "reached", "outer")

    def __init__(self, options: Mapping[str, str] | None, filesystem: Any, outer: Reach | None):
        self.options, self.filesystem, self.reached, self.outer = options, filesystem, False, outer


_REACH: ContextVar[Reach | None] = ContextVar("fileindex_store_reach", default=None)


@contextmanager
def reaching(options: Mapping[str, str] | None = None, filesystem: Any = None) -> Iterator[Reach]:
    """Within it, a location without options of its own is reached with ``options`` (Paimon's option keys) or
    ``filesystem`` (a ready pyarrow or fsspec filesystem); it gives the :class:`Reach`, which says afterwards
    whether a store was reached."""
    reach = Reach(options, filesystem, _REACH.get())
    token = _REACH.set(reach)
    try:
        yield reach
    finally:
        _REACH.reset(token)


def current_reach() -> tuple[Mapping[str, str] | None, Any]:
    """(options, filesystem) of the innermost ``reaching`` (None, None outside any)."""
    reach = _REACH.get()
    return (None, None) if reach is None else (reach.options, reach.filesystem)


class StoreOptionsIgnoredWarning(UserWarning):
    """Store options given for a table on local disk (``PaimonTable(path, options=...)``): they reach nothing."""


def options_ignored(given: str, keys: Iterable[str], why: str) -> str:
    """The line that says store options went unused, naming their keys (never a value: often a secret)."""
    return f"{given} {', '.join(keys)} ignored: {why} (they reach s3://, gs://, abfs://, ... locations)"


def warn_options_ignored(options: Mapping[str, str], root: object) -> None:
    """A StoreOptionsIgnoredWarning for ``options`` given to open the local table at ``root``, unless they are the
    command line's ``--storage-option`` pairs (its ``reaching``), which it names once it has run."""
    reach = _REACH.get()
    if reach is not None and reach.options == options:
        return
    warnings.warn(StoreOptionsIgnoredWarning(options_ignored("options", options, f"{root} is on no object store")),
                  stacklevel=3)


def note_store_reached() -> None:
    """A store is reached inside every ``reaching`` around: opened here (``store_file_io``), or its options handed on
    to a process that opens it."""
    reach = _REACH.get()
    while reach is not None:
        reach.reached, reach = True, reach.outer


def read_location(uri: str, limit: int, what: str = "file") -> bytes:
    """The whole of a file named by a store's URI (``s3://``, ``gs://``, ...), reached as :func:`current_reach`
    says; at most ``limit`` bytes."""
    file_io = file_io_at(uri)
    if file_io is None:  # (a file:// URI)
        from fileindex.io.locations import parse_location
        from fileindex.io.local import LOCAL

        return LOCAL.read_bytes(parse_location(uri).key, limit=limit, what=what)
    return file_io.read_bytes(uri, limit=limit, what=what)


def names_a_store(location: str | os.PathLike) -> bool:
    """Whether ``location`` is a store's URI (``s3://``, ``gs://``, ``abfs://``, ``hdfs://``...), not a local path or
    ``file://`` URI: nothing about it can be told without a request (a table there is opened, not looked at)."""
    found = _SCHEME.match(os.fspath(location))  # (also as a Path leaves it: s3:/bucket/key)
    return found is not None and found.group(1).lower() != "file"


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):/")


def file_io_at(uri: str) -> Any:
    """The file access for a store's URI, reached as :func:`current_reach` says."""
    options, filesystem = current_reach()
    return store_file_io(uri, options, filesystem)


def store_file_io(uri: str, options: Mapping[str, str] | None, filesystem: Any = None) -> Any:
    """``file_io_for``: every store's file access is made here, and told to every ``reaching`` around (the
    command line's unused ``--storage-option`` pairs are said); None for a local path."""
    from fileindex.io.arrow_fs import file_io_for

    found = file_io_for(uri, options, filesystem=filesystem)
    if found is not None:
        note_store_reached()
    return found


def open_location(uri: str, what: str = "file") -> Any:
    """A file named by a store's URI opened once for reading (an :class:`~fileindex.io.base.InputFile`), reached
    as :func:`current_reach` says; a missing object is the FileNotFoundError naming it."""
    return file_io_at(uri).open_input(uri, what=what)
