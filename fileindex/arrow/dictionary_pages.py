"""Chosen rows of a dictionary-encoded Parquet data page of fixed-width numbers, decoded without pyarrow's reader.

pyarrow cannot skip rows within a page: a copy of the page for it decodes every index of the page and the
whole dictionary page into an Arrow array, to take a row or two. Here the page (v1 or v2, ``RLE_DICTIONARY``
or ``PLAIN_DICTIONARY``; required, or optional with no null on the page, as ``plain_pages`` reads levels) is
decompressed, its indices read only up to the last chosen position (``hybrid``), and the chosen entries taken
from the dictionary page's PLAIN values as they lie in its bytes: no Arrow array of the dictionary is built.

A page is checked against its bytes before anything is taken from it: its size before it is decompressed
(at most what ``rows`` indices of 32 bits can take, in the most wasteful runs), its bit width, each run, and
each index against the dictionary's entries. One that is not so is left to pyarrow (None) or, where it cannot
be what it says (a bit width past 32, a run past its bytes, an index past the dictionary), raises Undecodable.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pyarrow as pa

from fileindex.arrow import compute, hybrid
from fileindex.arrow.plain_pages import (
    DICTIONARY_ENCODINGS,
    DICTIONARY_PAGE,
    PLAIN,
    PLAIN_DICTIONARY,
    PlainType,
    Undecodable,
    decompressed,
    encoded_values,
)

# the most bytes a page's indices can take a row: an RLE run of one 4-byte value behind a one-byte header (a
# bit-packed group of 8 values takes a header byte and at most 32 bytes); and the page's bit-width byte
RUN_BYTES_PER_ROW, WIDTH_BYTE = 5, 1
NUMPY_TYPES = {pa.int32(): "<i4", pa.int64(): "<i8", pa.float32(): "<f4", pa.float64(): "<f8"}


def page_indices(header: Any, body: bytes | memoryview, rows: int, optional: bool, codec: pa.Codec | None,
                 positions: np.ndarray | memoryview) -> np.ndarray | None:
    """The dictionary indices (uint32) at ``positions`` (ascending int64, below ``rows``) of a dictionary-encoded
    data page of ``rows`` rows whose header the caller has checked; None for another encoding, a page with nulls
    or levels written otherwise, or one larger than its indices can be. Raises Undecodable for indices that do
    not read."""
    high = WIDTH_BYTE + RUN_BYTES_PER_ROW * rows
    indices = encoded_values(header, body, rows, optional, codec, DICTIONARY_ENCODINGS, WIDTH_BYTE, high)
    if indices is None:
        return None
    runs = memoryview(indices)
    width = runs[0]
    if width > hybrid.MAX_WIDTH:
        raise Undecodable(f"dictionary indices of {width} bits (at most {hybrid.MAX_WIDTH})")
    try:
        return hybrid.take(runs[WIDTH_BYTE:], width, positions)
    except hybrid.BadRun as err:
        raise Undecodable(f"the run at byte {WIDTH_BYTE + err.at} of the page's indices does not fit in them") \
            from None


def dictionary_entries(header: Any, body: bytes | memoryview, plain: PlainType, codec: pa.Codec | None, most: int,
                       needed: int) -> np.ndarray | None:
    """The first ``needed`` entries (numpy, storage type, over the decompressed bytes) of a dictionary page of
    PLAIN fixed-width values whose header the caller has checked, of at most ``most`` entries (a chunk's rows: a
    dictionary of more is not one of its values); None where it is not so (left to pyarrow). Raises Undecodable
    where it holds fewer than ``needed`` (an index past it) or does not decompress as it says. A zstd page is
    decompressed only as far as the entries needed where that is less than half of it (streaming zstd costs
    about twice Arrow's whole-page decompression a byte)."""
    found = header.dictionary_page_header
    if header.type != DICTIONARY_PAGE or found is None or found.encoding not in (PLAIN, PLAIN_DICTIONARY):
        return None
    count = found.num_values
    if count is None or not 0 <= count <= most or header.uncompressed_page_size != count * plain.width:
        return None
    if needed > count:
        raise Undecodable(f"an index of {needed - 1} into a dictionary of {count} entries")
    size = needed * plain.width
    if codec is not None and codec.name == "zstd" and 2 * size < header.uncompressed_page_size:
        values: pa.Buffer | bytes | None = _zstd_prefix(body, size)
    else:
        values = decompressed(body, header.uncompressed_page_size, codec)
    return None if values is None else np.frombuffer(values, NUMPY_TYPES[plain.storage], count=needed)


def _zstd_prefix(body: bytes | memoryview, size: int) -> bytes:
    if sys.version_info >= (3, 14):
        from compression import zstd
    else:
        from backports import zstd
    try:
        found = zstd.ZstdDecompressor().decompress(body, max_length=size)
    except zstd.ZstdError as err:
        raise Undecodable(f"a page that does not decompress: {err}") from None
    if len(found) != size:
        raise Undecodable(f"a page that decompresses to {len(found)} bytes, fewer than {size}")
    return found


def entries_at(entries: np.ndarray, indices: np.ndarray, plain: PlainType) -> pa.Array:
    """The dictionary's ``entries`` at ``indices`` (each below their count), in the storage type."""
    return compute.from_numpy(entries[indices], plain.storage)  # (pa.array of a numpy array imports numpy.ma)
