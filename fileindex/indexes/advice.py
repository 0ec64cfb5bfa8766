"""Whether an index pays for itself, for every index type of the registry.

An index is read whenever a query filters on its column, and at best it saves reading its data file:
one larger than the data file costs more than it can ever save (a range-bitmap over unique doubles or
timestamps can be). Each index type says what to use instead (``when_too_large``); one that can judge
its own sizing from the body alone (the bloom filter's ``sizing``: fill, items and fpp) adds that
verdict. The registry holds both (``INDEX_TYPES``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from fileindex.errors import FileIndexError
from fileindex.indexes.registry import INDEX_TYPES

LARGER_THAN_DATA = "larger than its data"


@dataclass(frozen=True)
class IndexAdvice:
    column: str
    index_type: str
    verdict: str  # "ok", LARGER_THAN_DATA, or the type's own ("oversized", "overfull")
    advice: str

    def as_dict(self) -> dict:
        return asdict(self)


def advise(column: str, index_type: str, payload, *, data_bytes: int | None = None,
           options: Mapping[str, str] | None = None) -> IndexAdvice:
    """The advice for one index body (``data_bytes``: the size of the data file it indexes, ``options``: the
    index's options it was built with, when known)."""
    index = INDEX_TYPES.get(index_type)
    if index is None:
        return IndexAdvice(column, index_type, "ok", "")
    verdict, advice = "ok", ""
    if index.sizing is not None:
        try:
            verdict, advice = index.sizing(payload, options)
        except (FileIndexError, ValueError):
            pass  # a malformed body: check and verify report it
    size = len(memoryview(payload))
    if data_bytes is not None and size > data_bytes:
        own = f"; {advice}" if verdict != "ok" else ""
        verdict, advice = LARGER_THAN_DATA, (
            f"{size} bytes of index for a {data_bytes}-byte data file: reading it costs more than skipping the "
            f"file can save; {index.when_too_large}{own}")
    return IndexAdvice(column, index_type, verdict, advice if verdict != "ok" else "")


def advise_container(container, *, data_bytes: int | None = None,
                     options: Mapping[tuple[str, str], Mapping[str, str]] | None = None) -> list[IndexAdvice]:
    """The advice for every non-empty index of a container that is not ``ok`` (``options``: by column and index
    type, those each index was built with, where known: ``BuiltContainer.index_options``)."""
    found = (advise(e.column, e.index_type, container.body(e), data_bytes=data_bytes,
                    options=(options or {}).get((e.column, e.index_type)))
             for e in container if not e.is_empty)
    return [a for a in found if a.verdict != "ok"]
