"""The index types this package implements, by Paimon's identifier (``FileIndexerFactory``)."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Mapping

from fileindex import errors
from fileindex.indexes import bitmap, bloom_filter, bsi, range_bitmap
from fileindex.indexes.bitmap import check as bitmap_check
from fileindex.indexes.bloom_filter import check as bloom_filter_check
from fileindex.indexes.bsi import check as bsi_check
from fileindex.indexes.invariants import BodyFacts
from fileindex.indexes.range_bitmap import check as range_bitmap_check
from fileindex.indexes.reader import FileIndexReader


@dataclass(frozen=True)
class IndexType:
    name: str
    options: tuple[str, ...]
    build: Callable[..., bytes]  # (values, data_type, options) -> payload
    reader: Callable[..., FileIndexReader]  # (payload, data_type, *, base_offset) -> reader with .validate()
    # (payload, data_type, *, base_offset, distinct) -> BodyFacts; raises the first broken invariant
    check: Callable[..., BodyFacts]
    check_needs_type: bool = True  # False: the deep check runs without the column's type


INDEX_TYPES: Mapping[str, IndexType] = {
    bloom_filter.INDEX_TYPE: IndexType(
        bloom_filter.INDEX_TYPE, bloom_filter.OPTIONS, bloom_filter.build, bloom_filter.BloomFilterReader,
        bloom_filter_check.check, check_needs_type=False,
    ),
    bitmap.INDEX_TYPE: IndexType(bitmap.INDEX_TYPE, bitmap.OPTIONS, bitmap.build, bitmap.BitmapReader,
                                 bitmap_check.check),
    bsi.INDEX_TYPE: IndexType(bsi.INDEX_TYPE, bsi.OPTIONS, bsi.build, bsi.BsiReader, bsi_check.check),
    range_bitmap.INDEX_TYPE: IndexType(range_bitmap.INDEX_TYPE, range_bitmap.OPTIONS, range_bitmap.build,
                                       range_bitmap.RangeBitmapReader, range_bitmap_check.check),
}


def open_body(index: IndexType, body, data_type, *, base_offset: int, column: str, **options) -> FileIndexReader:
    """A reader for one index body decoded as ``data_type``; a type the body cannot have been built
    for is a :class:`SchemaMismatchError`, a decoding failure says the type may be wrong."""
    with _as_column(index, column, data_type, base_offset):
        return index.reader(body, data_type, base_offset=base_offset, **options)


def check_body(index: IndexType, body, data_type, *, base_offset: int, column: str,
               distinct: int | None = None) -> BodyFacts:
    """Decode one body in full and prove the invariants its layout implies (``fileindex check``);
    errors as :func:`open_body` gives them, and :class:`~fileindex.errors.InvariantError`."""
    with _as_column(index, column, data_type, base_offset):
        return index.check(body, data_type, base_offset=base_offset, distinct=distinct)


@contextmanager
def _as_column(index: IndexType, column: str, data_type, base_offset: int):
    try:
        yield
    except errors.SchemaMismatchError as err:
        raise errors.SchemaMismatchError(f"column {column!r}, {index.name} index: {err.message}",
                                         offset=err.offset, field=err.field) from None
    except errors.UnsupportedTypeError as err:
        raise errors.SchemaMismatchError(f"column {column!r} has a {index.name} index, which cannot be read as "
                                         f"{data_type}: wrong schema? ({err})", offset=base_offset,
                                         field=index.name) from None
    except errors.InvariantError as err:
        raise errors.InvariantError(f"column {column!r}, {index.name} index: {err.message}", offset=err.offset,
                                    field=err.field) from None
    except errors.DecodeError as err:
        if data_type is None:
            raise
        raise errors.under_type(err, data_type) from None


def index_package(index_type: str):
    """The package of an index type, for what it declares beside its writer and reader: ``WHEN_TOO_LARGE``
    (what to use instead when it costs more than it can save) and, optionally, ``sizing(payload) ->
    (verdict, advice)`` judged from the body alone (``fileindex.indexes.advice``)."""
    return _PACKAGES.get(index_type)


_PACKAGES = {package.INDEX_TYPE: package for package in (bloom_filter, bitmap, bsi, range_bitmap)}
