"""Every row's code in a range-bitmap index decodes through the dictionary to its value, inside the
header's [min, max], and the dictionary is strictly ascending (lookups binary-search it)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fileindex.arrow.values import split_nulls
from fileindex.indexes.bitmap.keys import string_codes
from fileindex.indexes.exhaustive import Disagreement, Outcome, past_the_end, show, wrong_row_count
from fileindex.indexes.range_bitmap.keys import sort_keys as range_sort_keys
from fileindex.types import DataType


def check(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    rows, codes, dictionary, low, high, past = reader.decode(row_count)
    found = wrong_row_count(reader.row_count, row_count) + past_the_end(past, row_count)
    kind, size = reader.kind, len(dictionary)
    rows = rows.astype(np.int64)
    held = [k for k in dictionary if k is not None]
    if kind.name == "string":
        valid, data_codes, distinct = string_codes(values, data_type)
        data_keys = distinct.take(pa.array(data_codes)).cast(pa.large_binary())
        index_keys = pa.array(dictionary, type=pa.large_binary())
        out = [c for c, k in enumerate(dictionary) if k is not None and not low <= k <= high]
        disorder = [c for c in range(1, size) if None not in dictionary[c - 1:c + 1]
                    and not dictionary[c - 1] < dictionary[c]]
    else:
        valid, raw = split_nulls(values, data_type, canonical_nan=False)
        data_keys = pa.array(range_sort_keys(kind, raw).astype(np.int64))
        index_keys = pa.array(dictionary, type=pa.int64())
        as_array = np.array([0 if k is None else k for k in dictionary], dtype=np.int64)
        present = np.array([k is not None for k in dictionary], dtype=bool)
        out = np.flatnonzero(present & ((as_array < low) | (as_array > high))).tolist() if held else []
        disorder = (np.flatnonzero(present[1:] & present[:-1] & (np.diff(as_array) <= 0)) + 1).tolist()
    per_row = np.full(row_count, -1, dtype=np.int64)
    per_row[rows] = np.where(codes < size, codes, size).astype(np.int64)
    data_at = np.full(row_count, -1, dtype=np.int64)
    data_at[np.flatnonzero(valid)] = np.arange(int(valid.sum()))
    both = valid & (per_row >= 0) & (per_row < size)
    equal = np.zeros(row_count, dtype=bool)
    if both.any():
        left = index_keys.take(pa.array(per_row[both]))
        right = data_keys.take(pa.array(data_at[both]))
        equal[both] = np.asarray(pc.equal(left, right).fill_null(False), dtype=bool)
    wrong = np.flatnonzero((valid != (per_row >= 0)) | (valid & ~equal))

    def code_text(row: int) -> str:
        code = int(per_row[row])
        if code >= size or dictionary[code] is None:
            return f"code {int(codes[np.searchsorted(rows, row)])}, which the dictionary does not hold"
        return f"code {code}: {show_key(kind, dictionary[code])}"

    def says(i: int) -> str:
        row = int(wrong[i])
        return "null (not in the existence bitmap)" if per_row[row] < 0 else f"decodes to {code_text(row)}"

    if len(wrong):
        found.append(Disagreement("wrong value", "every row decodes to its value", wrong, says))
    for bad_codes, problem, check, text in (
            (out, "out of range", "every value inside the header's [min, max]",
             "outside the header's [min, max] (comparisons short-cut on it)"),
            (disorder, "wrong value", "the dictionary ascending",
             "out of order in the dictionary: a lookup of its value misses it")):
        if bad_codes:
            bad = np.flatnonzero(np.isin(per_row, bad_codes))
            found.append(Disagreement(problem, check, bad, _said(code_text, bad, text)))
    return Outcome(row_count, found)


def _said(code_text: Callable[[int], str], rows: np.ndarray, text: str) -> Callable[[int], str]:
    """What the index says of the i-th of ``rows``: its value, then ``text``."""
    return lambda i: f"{code_text(int(rows[i]))}, {text}"


def show_key(kind, key) -> str:
    """A range-bitmap dictionary key as it reads: the value of an integer kind, the text of a string,
    the IEEE bits of a float (its sort key is an order-preserving transform of them)."""
    if kind.name == "string":
        return show(key)
    if kind.floating:
        return repr(kind.floating.from_bits(kind.floating.compare_order(key)))  # the transform is its own inverse
    return str(key)
