"""Which Parquet column chunks hold dictionary-encoded data pages only, as the footer says.

pyarrow reads a column of strings or bytes as a dictionary (``read_dictionary``) for the price of its dictionary
pages and indices where every data page is dictionary-encoded, and the dictionary then decodes to strings at the
cost of a take (a third of what building the strings page by page costs). A page a writer wrote PLAIN once its
dictionary filled (arrow-rs, parquet-mr and Arrow C++ after 1 MiB of dictionary) would instead be hashed into a
dictionary string by string: such a chunk is read as strings. A chunk's ``encoding_stats`` count its pages of
each encoding; a writer that leaves them out says it by the chunk's ``encodings`` only where PLAIN is not among
them (a writer of v2 pages lists PLAIN for the dictionary page itself, whether a data page fell back or not).

Either is a claim: a chunk said to be dictionary-only that is not still reads right, only slower.
"""
from __future__ import annotations

from typing import Any

from fileindex.arrow.parquet_pages import Unreadable, decode
from fileindex.arrow.plain_pages import DATA_PAGE, DATA_PAGE_V2, DICTIONARY_ENCODINGS, RLE
from fileindex.generated.parquet_thrift.ttypes import FileMetaData

BIT_PACKED = 4  # parquet.thrift's Encoding (of levels, as RLE is of the columns read here)
LEVEL_ENCODINGS = (RLE, BIT_PACKED)
DictionaryChunks = tuple[tuple[bool, ...], ...]  # per row group, per leaf column in file order


def dictionary_chunks(footer: bytes) -> DictionaryChunks:
    """Per row group, per leaf column: does the chunk hold dictionary-encoded data pages only? ``footer``: the
    file's Thrift FileMetaData; one that does not decode says no chunk is (an empty tuple)."""
    try:
        meta, _ = decode(FileMetaData, footer, len(footer))
    except Unreadable:
        return ()
    return tuple(tuple(chunk.meta_data is not None and dictionary_only(chunk.meta_data)
                       for chunk in group.columns or ()) for group in meta.row_groups or ())


def dictionary_only(meta: Any) -> bool:
    """Is every data page of the chunk (a ColumnMetaData) dictionary-encoded, and is there one?"""
    if meta.encoding_stats is not None:
        data = [stats for stats in meta.encoding_stats if stats.page_type in (DATA_PAGE, DATA_PAGE_V2) and stats.count]
        return bool(data) and all(stats.encoding in DICTIONARY_ENCODINGS for stats in data)
    encodings = meta.encodings or ()
    return any(encoding in DICTIONARY_ENCODINGS for encoding in encodings) and all(
        encoding in DICTIONARY_ENCODINGS or encoding in LEVEL_ENCODINGS for encoding in encodings)
