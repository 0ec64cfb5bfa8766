"""The rows of a Parquet data file whose pages' column indexes admit a predicate, so a selective read decodes
its predicate's columns only on those pages.

A column index claims each page's min, max and null count (``parquet_pages.page_bounds``), as a row group's
statistics do for the group: a page whose bounds rule out every comparison holds no matching row. The pages of
the predicate's columns are tested as a file's statistics are (``table.statistics``: integers and dates by value,
FLOAT and DOUBLE as Paimon compares them, a NaN admitted whatever the bounds, VARCHAR by its UTF-8 bytes, VARBINARY
by its bytes); where the columns' pages start at different rows, each run of rows under the same pages is tested.
A page's bounds of another type, a string bound cut inside a character that cannot be read as a bound, a column
whose file holds it under another type, and a group without a usable column index admit every row.
"""
from __future__ import annotations

import bisect
import itertools
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from fileindex.arrow import compute, scalars
from fileindex.lazy import numpy as np
from fileindex.predicate.tree import Predicate
from fileindex.table.statistics import FLOATING, INTEGERS, KnownBounds, ordered_bounds
from fileindex.types import DataType

if TYPE_CHECKING:
    from fileindex.arrow.data_files import DataFileReader

KINDS = {**{root: "integer" for root in INTEGERS if root != "TIME"}, **{root: "floating" for root in FLOATING},
         "VARCHAR": "bytes", "VARBINARY": "bytes", "BINARY": "bytes"}
# the pages admitted must hold under this share of the rows to be read alone (else the file is read as before)
ADMITTED_SHARE = 0.5
UTF8_TAIL = 3  # the bytes of a character a minimum may have been cut in after its first


def admitted_rows(reader: DataFileReader, columns: dict[str, tuple[str, DataType]], predicate: Predicate,
                  rows: pa.Int64Array | None) -> pa.Int64Array | None:
    """Of ``rows`` (ascending; None: every row), those on pages whose bounds may satisfy ``predicate``, where
    they are under ``ADMITTED_SHARE`` of the rows; None where not (read ``rows``). ``columns``: the
    predicate's columns (table name -> the file's name for it, the type of its values in the file)."""
    if reader.group_rows is None or reader.format != "parquet" or not columns:
        return None
    spans: list[tuple[int, int]] = []  # admitted rows of the file, [start, end)
    start = 0
    for group, group_rows in enumerate(reader.group_rows):
        spans.extend((start + low, start + high) for low, high in group_spans(reader, group, columns, predicate))
        start += group_rows
    covered = sum(high - low for low, high in spans)
    # (numpy, imported by the first narrowing, only where a page is ruled out: see fileindex.cli.unimported)
    if covered == start or rows is None and covered >= ADMITTED_SHARE * start:
        return None
    return _within(spans, rows, start if rows is None else len(rows))


def _within(spans: list[tuple[int, int]], rows: pa.Int64Array | None, total: int) -> pa.Int64Array | None:
    if not spans:
        return scalars.array([], pa.int64())
    starts = np.array([low for low, _ in spans], dtype=np.int64)
    ends = np.array([high for _, high in spans], dtype=np.int64)
    if rows is None:
        found = np.repeat(starts - np.concatenate(([0], np.cumsum(ends - starts)[:-1])), ends - starts) \
            + np.arange(int((ends - starts).sum()), dtype=np.int64)
    else:
        view = rows.to_numpy(zero_copy_only=False)
        at = np.searchsorted(starts, view, "right") - 1
        found = view[(at >= 0) & (view < ends[np.maximum(at, 0)])]
        if len(found) >= ADMITTED_SHARE * total:
            return None
    return compute.int64_array(found)


def group_spans(reader: DataFileReader, group: int, columns: dict[str, tuple[str, DataType]],
                 predicate: Predicate) -> list[tuple[int, int]]:
    """The row spans of a row group (from its first row, ascending) that may hold a match: the runs of rows under
    the same page of each column with usable bounds, those whose pages' bounds may satisfy ``predicate`` (the
    whole group where no column has usable bounds). ``columns`` as :func:`admitted_rows` takes them."""
    rows = reader.group_rows[group]  # type: ignore[index]
    keyed = {name: pages for name, (stored, data_type) in columns.items()
             if (pages := _page_keys(reader, stored, group, data_type)) is not None}
    if not keyed:
        return [(0, rows)]
    cuts = sorted({first for firsts, _ in keyed.values() for first in firsts})
    spans: list[tuple[int, int]] = []
    statistics = KnownBounds({}, 0)  # (one, its bounds replaced run by run)
    for low, high in itertools.pairwise(cuts):
        bounds = statistics.columns = {}
        for name, (firsts, keys) in keyed.items():
            page = bisect.bisect_right(firsts, low) - 1
            key_low, key_high, nulls, data_type = keys[page]
            # (a page of nulls only: every row of the run is null; of some nulls: not known how many are in it)
            bounds[name] = key_low, key_high, high - low if nulls is True else nulls, data_type
        statistics.row_count = high - low
        if statistics.may_match(predicate):
            if spans and spans[-1][1] == low:
                spans[-1] = (spans[-1][0], high)
            else:
                spans.append((low, high))
    return spans


def _page_keys(reader: DataFileReader, stored: str, group: int,
               data_type: DataType) -> tuple[tuple[int, ...], list[tuple]] | None:
    """The column's pages in the group (where their rows start, the group's rows after the last) and each page's
    (low key, high key, nulls, type) as ``Statistics.column`` gives them, nulls True for a page of nulls only,
    0 for one without a null, else None; None where the column has no usable bounds."""
    kind = KINDS.get(data_type.root)
    pages = reader.page_bounds(stored, group) if kind is not None else None
    if pages is None or pages.kind != kind:
        return None
    found = pages.memo.get(data_type)  # (made once per footer and type)
    if found is None:
        keys: list[tuple] = []
        for low, high, nulls in pages.bounds:
            if low is None:
                keys.append((None, None, True, data_type))
            else:
                keys.append((*_keys(low, high, data_type), 0 if nulls == 0 else None, data_type))
        found = pages.memo[data_type] = (pages.firsts, keys)
    return found


def _keys(low: Any, high: Any, data_type: DataType) -> tuple[Any, Any]:
    """A page's bounds as keys ordered as the type's values compare (None: unknown)."""
    if data_type.root in FLOATING:
        return ordered_bounds(low, high, data_type)
    if data_type.root == "VARCHAR":
        return _utf8_minimum(low), _utf8_maximum(high)
    return low, high


def _utf8_minimum(value: bytes) -> str | None:
    """A minimum's bytes as a string: one cut inside a character loses that character's bytes (a shorter prefix
    is a lower bound still)."""
    for cut in range(min(UTF8_TAIL, len(value)) + 1):
        try:
            return value[:len(value) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return None


def _utf8_maximum(value: bytes) -> str | None:
    """A maximum's bytes as a string, where they are UTF-8 (a maximum rounded up inside a character is not known
    to bound the strings above it as characters compare)."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return None
