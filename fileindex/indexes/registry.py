"""The index types this package implements, by Paimon's identifier (``FileIndexerFactory``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from fileindex import errors
from fileindex.indexes import bitmap, bloom_filter, bsi, range_bitmap
from fileindex.indexes.reader import FileIndexReader


@dataclass(frozen=True)
class IndexType:
    name: str
    options: tuple[str, ...]
    build: Callable[..., bytes]  # (values, data_type, options) -> payload
    reader: Callable[..., FileIndexReader]  # (payload, data_type, *, base_offset) -> reader with .validate()
    when_too_large: str  # what to do instead when the index costs more than it can save (indexes.advice)
    sizing: Callable[..., tuple[str, str]] | None = None  # (payload) -> (verdict, advice) from the body alone


def _bloom_sizing(payload) -> tuple[str, str]:
    from fileindex.indexes.bloom_filter.math import diagnose

    diagnosis = diagnose(payload)
    return diagnosis.verdict, diagnosis.advice


INDEX_TYPES: Mapping[str, IndexType] = {
    bloom_filter.INDEX_TYPE: IndexType(
        bloom_filter.INDEX_TYPE, bloom_filter.OPTIONS, bloom_filter.build, bloom_filter.BloomFilterReader,
        "its size follows items and fpp, not the data: lower items (or raise fpp)", _bloom_sizing,
    ),
    bitmap.INDEX_TYPE: IndexType(
        bitmap.INDEX_TYPE, bitmap.OPTIONS, bitmap.build, bitmap.BitmapReader,
        "a bitmap keeps every distinct value with its rows; on nearly unique values use bloom-filter for = and IN",
    ),
    bsi.INDEX_TYPE: IndexType(
        bsi.INDEX_TYPE, bsi.OPTIONS, bsi.build, bsi.BsiReader,
        "a bsi keeps a bitmap per bit of the values' range; use bloom-filter for = and IN, or no index",
    ),
    range_bitmap.INDEX_TYPE: IndexType(
        range_bitmap.INDEX_TYPE, range_bitmap.OPTIONS, range_bitmap.build, range_bitmap.RangeBitmapReader,
        "a range-bitmap keeps a dictionary of every distinct value; on nearly unique values use bsi for ranges "
        "(integer, decimal, date and timestamp columns), bloom-filter for = and IN, or no index",
    ),
}


def open_body(index: IndexType, body, data_type, *, base_offset: int, column: str, **options) -> FileIndexReader:
    """A reader for one index body decoded as ``data_type``; a type the body cannot have been built
    for is a :class:`SchemaMismatchError`, a decoding failure says the type may be wrong."""
    try:
        return index.reader(body, data_type, base_offset=base_offset, **options)
    except errors.SchemaMismatchError as err:
        raise errors.SchemaMismatchError(f"column {column!r}, {index.name} index: {err.message}",
                                         offset=err.offset, field=err.field) from None
    except errors.UnsupportedTypeError as err:
        raise errors.SchemaMismatchError(f"column {column!r} has a {index.name} index, which cannot be read as "
                                         f"{data_type}: wrong schema? ({err})", offset=base_offset,
                                         field=index.name) from None
    except errors.DecodeError as err:
        raise errors.under_type(err, data_type) from None
