"""How a table or file named by URI is reached when its caller gives no options: what the command line's
``--storage-option`` pairs (or a caller's ``with reaching(...)``) say, for every store opened inside, however deep
in the modules. A context variable: another thread or a later call is never affected."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_REACH: ContextVar[tuple[Mapping[str, str] | None, Any]] = ContextVar("fileindex_store_reach", default=(None, None))


@contextmanager
def reaching(options: Mapping[str, str] | None = None, filesystem: Any = None) -> Iterator[None]:
    """Within it, a location without options of its own is reached with ``options`` (Paimon's option keys) or
    ``filesystem`` (a ready pyarrow or fsspec filesystem)."""
    token = _REACH.set((options, filesystem))
    try:
        yield
    finally:
        _REACH.reset(token)


def current_reach() -> tuple[Mapping[str, str] | None, Any]:
    """(options, filesystem) of the innermost ``reaching`` (None, None outside any)."""
    return _REACH.get()


def read_location(uri: str, limit: int, what: str = "file") -> bytes:
    """The whole of a file named by a store's URI (``s3://``, ``gs://``, ...), reached as :func:`current_reach`
    says; at most ``limit`` bytes."""
    from fileindex.io.arrow_fs import file_io_for

    options, filesystem = current_reach()
    file_io = file_io_for(uri, options, filesystem=filesystem)
    if file_io is None:  # (a file:// URI)
        from fileindex.io.locations import parse_location
        from fileindex.io.local import LOCAL

        return LOCAL.read_bytes(parse_location(uri).key, limit=limit, what=what)
    return file_io.read_bytes(uri, limit=limit, what=what)
