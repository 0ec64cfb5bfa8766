"""The index types this package implements, by Paimon's identifier (``FileIndexerFactory``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from . import bitmap, bloom_filter, bsi, range_bitmap
from .reader import FileIndexReader


@dataclass(frozen=True)
class IndexType:
    name: str
    options: tuple[str, ...]
    build: Callable[..., bytes]  # (values, data_type, options) -> payload
    reader: Callable[..., FileIndexReader]  # (payload, data_type, *, base_offset) -> reader with .validate()


INDEX_TYPES: Mapping[str, IndexType] = {
    bloom_filter.INDEX_TYPE: IndexType(
        bloom_filter.INDEX_TYPE, bloom_filter.OPTIONS, bloom_filter.build, bloom_filter.BloomFilterReader
    ),
    bitmap.INDEX_TYPE: IndexType(bitmap.INDEX_TYPE, bitmap.OPTIONS, bitmap.build, bitmap.BitmapReader),
    bsi.INDEX_TYPE: IndexType(bsi.INDEX_TYPE, bsi.OPTIONS, bsi.build, bsi.BsiReader),
    range_bitmap.INDEX_TYPE: IndexType(range_bitmap.INDEX_TYPE, range_bitmap.OPTIONS, range_bitmap.build,
                                       range_bitmap.RangeBitmapReader),
}
