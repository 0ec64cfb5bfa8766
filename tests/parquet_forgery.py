"""Parquet files whose offset indexes lie, for the tests of page reads (``fileindex.arrow.parquet_pages``), and
whose page headers lie (``with_page_header``).

The footer is decoded with the classes page reads use, each column chunk's offset index replaced by the one
an edit makes (appended after the pages), and the footer written back: what those classes do not declare
(statistics, key-value metadata, the column indexes' places) is left out, so compare a forged file's page
reads with pyarrow's whole reads of the same forged file.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fileindex.arrow import parquet_pages
from fileindex.arrow.data_files import DataFileError, DataFileReader
from fileindex.arrow.parquet_pages import decode, encode
from fileindex.generated.parquet_thrift.ttypes import ColumnIndex, FileMetaData, OffsetIndex, PageHeader, PageLocation

Edit = Callable[[int, int, list[PageLocation]], list[PageLocation] | None]


def footer_of(data: bytes) -> tuple[FileMetaData, int]:
    """A Parquet file's footer decoded, and where it starts."""
    length = int.from_bytes(data[-8:-4], "little")
    return decode(FileMetaData, data[-8 - length:-8], length)[0], len(data) - 8 - length


def locations(data: bytes, group: int, leaf: int) -> list[PageLocation]:
    chunk = footer_of(data)[0].row_groups[group].columns[leaf]
    index = data[chunk.offset_index_offset:chunk.offset_index_offset + chunk.offset_index_length]
    return decode(OffsetIndex, index, len(index))[0].page_locations


def with_offset_indexes(path: Path, edit: Edit) -> None:
    """``path`` rewritten with each column chunk's page locations replaced by ``edit(group, leaf, locations)``
    (None: the offset index left as it is)."""
    data = path.read_bytes()
    meta, footer_at = footer_of(data)
    body = bytearray(data[:footer_at])
    for group, row_group in enumerate(meta.row_groups):
        for leaf, chunk in enumerate(row_group.columns):
            pages = edit(group, leaf, locations(data, group, leaf))
            if pages is None:
                continue
            index = encode(OffsetIndex(page_locations=pages))
            chunk.offset_index_offset, chunk.offset_index_length = len(body), len(index)
            body += index
    footer = encode(meta)
    path.write_bytes(bytes(body) + footer + len(footer).to_bytes(4, "little") + b"PAR1")


def with_footer(path: Path, edit: Callable[[FileMetaData], None]) -> None:
    """``path`` rewritten with its footer changed in place by ``edit``."""
    data = path.read_bytes()
    meta, footer_at = footer_of(data)
    edit(meta)
    footer = encode(meta)
    path.write_bytes(data[:footer_at] + footer + len(footer).to_bytes(4, "little") + b"PAR1")


def raw_offset_index(path: Path, group: int, leaf: int, index: bytes) -> None:
    """``path`` rewritten with one chunk's offset index replaced by ``index`` as given (bytes, undecoded)."""
    data = path.read_bytes()
    meta, footer_at = footer_of(data)
    chunk = meta.row_groups[group].columns[leaf]
    chunk.offset_index_offset, chunk.offset_index_length = footer_at, len(index)
    footer = encode(meta)
    path.write_bytes(data[:footer_at] + index + footer + len(footer).to_bytes(4, "little") + b"PAR1")


def with_column_index(path: Path, group: int, leaf: int, edit: Callable[[ColumnIndex], ColumnIndex]) -> None:
    """``path`` rewritten with one chunk's column index replaced by ``edit(index)`` (appended after the pages)."""
    data = path.read_bytes()
    meta, footer_at = footer_of(data)
    chunk = meta.row_groups[group].columns[leaf]
    raw = data[chunk.column_index_offset:chunk.column_index_offset + chunk.column_index_length]
    index = encode(edit(decode(ColumnIndex, raw, len(raw))[0]))
    chunk.column_index_offset, chunk.column_index_length = footer_at, len(index)
    footer = encode(meta)
    path.write_bytes(data[:footer_at] + index + footer + len(footer).to_bytes(4, "little") + b"PAR1")


def with_page_header(path: Path, group: int, leaf: int, page: int, edit: Callable[[PageHeader], None]) -> None:
    """``path`` rewritten with the header of one chunk's page ``page`` (0: its first, the dictionary page where it
    has one) changed in place by ``edit``, which must leave the header's length as it was (a count of the same
    number of varint bytes). The header's bytes are patched where its encoding changed, so what the classes here
    do not declare (an empty statistics struct) stays."""
    data = bytearray(path.read_bytes())
    meta = footer_of(bytes(data))[0].row_groups[group].columns[leaf].meta_data
    at = meta.dictionary_page_offset or meta.data_page_offset
    for _ in range(page):
        header, length = decode(PageHeader, bytes(data[at:at + 1024]), 1024)
        at += length + header.compressed_page_size
    header, length = decode(PageHeader, bytes(data[at:at + 1024]), 1024)
    before = encode(header)
    edit(header)
    after = encode(header)
    assert len(before) == len(after), "an edit that changes the header's length"
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert data[at:at + changed[-1] + 1] == before[:changed[-1] + 1], "a header with other fields before the edit"
    data[at:at + changed[-1] + 1] = after[:changed[-1] + 1]
    path.write_bytes(bytes(data))


def data_page(path: Path, page: int) -> tuple[bytearray, int, int, int, parquet_pages.PageTable]:
    """(the file's bytes, to edit; where data page ``page`` of row group 0's first column starts, its header's length
    and its size; the chunk's page table)."""
    footer = parquet_pages.PagedFooter.read(str(path))
    with open(path, "rb") as file:
        pages = footer.pages(file.fileno(), 0, 0)
    at, size = pages.offsets[page], pages.sizes[page]
    data = bytearray(path.read_bytes())
    _, taken = decode(PageHeader, bytes(data[at:at + size]), size)
    return data, at, taken, size, pages


def read_of_a_damaged_page(path: Path, rows, page: int, at: int) -> None:
    """Column ``a``'s ``rows`` of a file whose data page ``page`` (at byte ``at``) is damaged behind a header that
    checks out: a reader's read is the typed error of the whole group's read by pyarrow (the page is refused here
    first), or its values; a page read refuses the page, naming it."""
    try:
        got = DataFileReader(path).read_rows(rows, ["a"])
    except DataFileError as err:
        assert str(path) in str(err)
    else:
        assert got.equals(pq.read_table(path).take(rows))
    with pytest.raises(parquet_pages.Unreadable, match=f"page {page} at {at}"):
        parquet_pages.read_rows(str(path), parquet_pages.PagedFooter.read(str(path)), 0, rows, ["a"])
