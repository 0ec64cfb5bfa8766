"""The index types this package implements, by Paimon's identifier (``FileIndexerFactory``): the only
place that names them. Each package declares its :class:`IndexType` (``INDEX``: writer, reader, checks
and capabilities); adding a type is a spec, a package and one line here.

The registry knows the names; a type's package is imported when its entry is first read, and the package
imports its reader, writer and checks when they are first called (``fileindex.lazy``), so planning a
table with bloom filters never imports the bitmap checker or the range bitmap."""
from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from fileindex import errors
from fileindex.indexes.index_type import FilterSizing, IndexType
from fileindex.indexes.reader import EmptyFileIndexReader, FileIndexReader
from fileindex.types import DataType

if TYPE_CHECKING:
    from fileindex.container.file import FileIndexContainer
    from fileindex.container.head import IndexEntry
    from fileindex.indexes.invariants import BodyFacts

PACKAGES = {  # Paimon's identifier -> the package declaring its INDEX
    "bloom-filter": "fileindex.indexes.bloom_filter",
    "bitmap": "fileindex.indexes.bitmap",
    "bsi": "fileindex.indexes.bsi",
    "range-bitmap": "fileindex.indexes.range_bitmap",
}


class IndexTypes(MutableMapping[str, IndexType]):
    """Identifier → :class:`IndexType`, in registration order; a package is imported when its type is
    first looked up (``in``, ``len`` and iterating over the names import nothing). A type registered
    with ``INDEX_TYPES[name] = index`` (the tests' toy type) is kept as given."""

    def __init__(self, packages: dict[str, str]):
        self._packages: dict[str, str | None] = dict(packages)
        self._loaded: dict[str, IndexType] = {}

    def __getitem__(self, name: str) -> IndexType:
        found = self._loaded.get(name)
        if found is None:
            package = self._packages[name]
            assert package is not None, f"{name!r}: registered without a package, and not loaded"
            found = self._loaded[name] = importlib.import_module(package).INDEX
        return found

    def __setitem__(self, name: str, index: IndexType) -> None:
        self._packages.setdefault(name, None)
        self._loaded[name] = index

    def __delitem__(self, name: str) -> None:
        del self._packages[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._packages)

    def __len__(self) -> int:
        return len(self._packages)

    def __contains__(self, name: object) -> bool:
        return name in self._packages


INDEX_TYPES = IndexTypes(PACKAGES)

__all__ = ["INDEX_TYPES", "IndexType", "FilterSizing", "EmptyFileIndexReader", "open_entry", "open_body", "check_body",
           "body_failure", "recorded_row_count"]


def index_types_taking(data_type: DataType) -> list[str]:
    """The index types whose writer takes a column of ``data_type`` (under their default options)."""
    takers = []
    for name in INDEX_TYPES:
        check = INDEX_TYPES[name].check_writable
        try:
            if check is not None:
                check(data_type, {})
        except errors.UsageError:
            continue
        takers.append(name)
    return takers


def refused_type(err: errors.UnsupportedTypeError, data_type: DataType | None) -> str:
    """A writer's refusal of a column type, with the index types that take that type named."""
    if data_type is None:
        return str(err)
    takers = index_types_taking(data_type)
    shown = " or ".join(takers) if len(takers) < 3 else f"{', '.join(takers[:-1])} or {takers[-1]}"
    which = f"{shown} take" if len(takers) > 1 else f"{shown} takes" if takers else "no index takes"
    return f"{err}; {which} a column of type {data_type}"


def open_entry(container: FileIndexContainer, entry: IndexEntry, data_type: DataType | None, *,
               extended: bool = False) -> FileIndexReader | None:
    """The reader of one entry of ``container``, its body decoded as ``data_type``: an empty entry's is an
    :class:`EmptyFileIndexReader`; None for an index type this package does not implement. ``extended``:
    the bitmap index's range answers, where the type has them. Errors as :func:`open_body` gives them."""
    if entry.is_empty:
        return EmptyFileIndexReader()
    index = INDEX_TYPES.get(entry.index_type)
    if index is None:
        return None
    options: dict = {"extended": True} if extended and index.extended else {}
    partial = getattr(container, "partial_body", None) if index.reads_by_parts else None
    body = partial(entry) if partial is not None else None
    if body is not None:  # (a large body on a store: the reader fetches the parts it needs)
        return open_body(index, body.buffer, data_type, base_offset=entry.start, column=entry.column,
                         fetch=body.fetch, **options)
    return open_body(index, container.body(entry), data_type, base_offset=entry.start, column=entry.column,
                     **options)


def open_body(index: IndexType, body, data_type, *, base_offset: int, column: str, **options) -> FileIndexReader:
    """A reader for one index body decoded as ``data_type``; a type the body cannot have been built
    for is a :class:`SchemaMismatchError`, a decoding failure says the type may be wrong."""
    with _as_column(index, body, column, data_type, base_offset):
        return index.reader(body, data_type, base_offset=base_offset, **options)


def check_body(index: IndexType, body, data_type, *, base_offset: int, column: str,
               distinct: int | None = None) -> BodyFacts:
    """Decode one body in full and prove the invariants its layout implies (``fileindex check``);
    errors as :func:`open_body` gives them, and :class:`~fileindex.errors.InvariantError`."""
    with _as_column(index, body, column, data_type, base_offset):
        return index.check(body, data_type, base_offset=base_offset, distinct=distinct)


def body_failure(container: FileIndexContainer, entry: IndexEntry, data_type: DataType | None,
                 err: errors.DecodeError) -> errors.FileIndexError:
    """The error to report for ``err``, met reading ``entry``'s body as ``data_type`` after it opened (bodies
    decode lazily), as :func:`open_body` would report it."""
    index = INDEX_TYPES.get(entry.index_type)
    if index is None:
        return err
    return _explained(index, container.body(entry), entry.column, data_type, err)


@contextmanager
def _as_column(index: IndexType, body, column: str, data_type, base_offset: int):
    try:
        yield
    except (errors.DecodeError, errors.UnsupportedTypeError) as err:
        explained = _explained(index, body, column, data_type, err)
        if explained is err:
            raise
        raise explained from None


def _explained(index: IndexType, body, column: str, data_type,
               err: errors.DecodeError | errors.UnsupportedTypeError) -> errors.FileIndexError:
    """``err`` named by its column; one that another column type would not raise is a schema misfit."""
    from fileindex.indexes.type_fit import misfit  # only a failure asks whether another column type fits

    found = None if data_type is None else misfit(index, body, column, data_type, err)
    if found is not None:
        return found
    if isinstance(err, errors.SchemaMismatchError):
        return errors.SchemaMismatchError(f"column {column!r}, {index.name} index: {err.message}",
                                          offset=err.offset, field=err.field)
    if isinstance(err, errors.InvariantError):
        return errors.InvariantError(f"column {column!r}, {index.name} index: {err.message}", offset=err.offset,
                                     field=err.field)
    if data_type is None or isinstance(err, errors.UsageError):
        return err
    return errors.under_type(err, data_type)

def recorded_row_count(container: FileIndexContainer) -> int | None:
    """The rows of the data file as the container's bodies record them (bitmap, bsi, range-bitmap; the
    largest where they disagree, so that no row a body counts is dropped); None when no body records one. Found
    once per container (the same bytes record the same count)."""
    if container.recorded_rows is not None:
        return container.recorded_rows[0]
    counts = []
    for entry in container:
        located = INDEX_TYPES[entry.index_type].row_count_at if entry.index_type in INDEX_TYPES else None
        body = None if located is None else container.body(entry)
        if body is not None and located is not None and len(body) >= located[0] + 4:
            counts.append(int.from_bytes(body[located[0]:located[0] + 4], "big", signed=True))
    container.recorded_rows = (max(counts) if counts and max(counts) >= 0 else None,)
    return container.recorded_rows[0]
