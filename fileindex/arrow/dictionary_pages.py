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

from typing import Any

import numpy as np
import pyarrow as pa

from fileindex.arrow import hybrid
from fileindex.arrow.plain_pages import PLAIN, PlainType, Undecodable, decompressed, encoded_values

PLAIN_DICTIONARY, RLE_DICTIONARY = 2, 8  # parquet.thrift's Encoding
DICTIONARY_PAGE = 2  # PageType
# the most bytes a page's indices can take a row: an RLE run of one 4-byte value behind a one-byte header (a
# bit-packed group of 8 values takes a header byte and at most 32 bytes); and the page's bit-width byte
RUN_BYTES_PER_ROW, WIDTH_BYTE = 5, 1
NUMPY_TYPES = {pa.int32(): "<i4", pa.int64(): "<i8", pa.float32(): "<f4", pa.float64(): "<f8"}


def dictionary_entries(header: Any, body: bytes, plain: PlainType, codec: pa.Codec | None,
                       most: int) -> np.ndarray | None:
    """The entries (numpy, storage type, over the decompressed page's bytes) of a dictionary page of PLAIN
    fixed-width values whose header the caller has checked, of at most ``most`` entries (a chunk's rows: a
    dictionary of more is not one of its values); None where it is not so (left to pyarrow)."""
    found = header.dictionary_page_header
    if header.type != DICTIONARY_PAGE or found is None or found.encoding not in (PLAIN, PLAIN_DICTIONARY):
        return None
    count = found.num_values
    if count is None or not 0 <= count <= most or header.uncompressed_page_size != count * plain.width:
        return None
    values = decompressed(body, header.uncompressed_page_size, codec)
    return None if values is None else np.frombuffer(values, NUMPY_TYPES[plain.storage])


def page_rows(header: Any, body: bytes, rows: int, plain: PlainType, codec: pa.Codec | None,
              positions: np.ndarray | memoryview, entries: np.ndarray) -> pa.Array | None:
    """The values (storage type) at ``positions`` (ascending int64, below ``rows``) of a dictionary-encoded data
    page of ``rows`` rows whose header the caller has checked, from the dictionary's ``entries``; None for another
    encoding, a page with nulls or levels written otherwise, or one larger than its indices can be. Raises
    Undecodable for indices that do not read or name no entry."""
    high = WIDTH_BYTE + RUN_BYTES_PER_ROW * rows
    indices = encoded_values(header, body, rows, plain.optional, codec, (PLAIN_DICTIONARY, RLE_DICTIONARY),
                             WIDTH_BYTE, high)
    if indices is None:
        return None
    runs = memoryview(indices)
    width = runs[0]
    if width > hybrid.MAX_WIDTH:
        raise Undecodable(f"dictionary indices of {width} bits (at most {hybrid.MAX_WIDTH})")
    try:
        taken = hybrid.take(runs[WIDTH_BYTE:], width, positions)
    except hybrid.BadRun as err:
        raise Undecodable(f"the run at byte {WIDTH_BYTE + err.at} of the page's indices does not fit in them") \
            from None
    if len(taken) and int(taken.max()) >= len(entries):
        raise Undecodable(f"an index of {int(taken.max())} into a dictionary of {len(entries)} entries")
    return pa.array(entries[taken], plain.storage)
