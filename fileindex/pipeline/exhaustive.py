"""Exhaustive verification: every row of a data file against what its index says about that row.

Sampled predicates (:mod:`fileindex.pipeline.verify`) find an index that is wrong about the
values they happen to probe; this checks every row, per index type:

* **bloom-filter**: every non-null value tests positive (a false negative drops a row);
* **bitmap**: every distinct value, looked up as a query looks it up, gives exactly its rows, the
  null bitmap exactly the null rows, and no other key of the dictionary holds a row;
* **bsi**: every row decodes (existence bitmaps and slices) to its value, inside its half's
  [min, max] that comparisons short-cut on;
* **range-bitmap**: every row's code decodes through the dictionary to its value, inside the
  header's [min, max], and the dictionary is strictly ascending (lookups binary-search it).

Each check yields :class:`Disagreement` s: the rows that differ, ascending, and what the index
says about each. Spark-free: ``spark verify --exhaustive`` runs it in its tasks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from fileindex.arrow.values import split_nulls
from fileindex.indexes import roaring
from fileindex.indexes.bitmap.keys import string_codes
from fileindex.indexes.range_bitmap.index import sort_keys as range_sort_keys
from fileindex.types import DataType

BLOOM_SAYS = "not in the filter: a query for it answers SKIP"


@dataclass
class Disagreement:
    kind: str  # false negative, wrong rows, wrong value, out of range, row count
    check: str  # what was checked, for the report
    rows: np.ndarray  # the rows that differ, ascending
    says: Callable[[int], str]  # what the index says about the i-th of ``rows``


@dataclass
class Outcome:
    checks: int  # rows (or values) checked
    disagreements: list[Disagreement]


def check_index(index_type: str, reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    """Every row of ``values`` (one column of the data file) against an opened index reader."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    return _CHECKS[index_type](reader, values, data_type, row_count)


def check_empty(values: pa.Array) -> Outcome:
    """An empty index (its writer saw no value) answers SKIP for every value: wrong for any non-null row."""
    rows = np.flatnonzero(np.asarray(values.is_valid(), dtype=bool))
    found = [Disagreement("false negative", "every non-null value", rows,
                          lambda i: "the index is empty: a query for any value answers SKIP")] if len(rows) else []
    return Outcome(len(values), found)


def checkable(index_type: str) -> bool:
    return index_type in _CHECKS


def _row_count(index_rows: int, data_rows: int) -> list[Disagreement]:
    if index_rows == data_rows:
        return []
    return [Disagreement("row count", f"row count: the index has {index_rows} rows, the data file {data_rows}",
                         np.empty(0, dtype=np.int64), lambda i: "")]


def _past_the_end(count: int, row_count: int) -> list[Disagreement]:
    if not count:
        return []
    return [Disagreement("out of range", f"rows in [0, {row_count}): the index holds {count} rows past the end",
                         np.empty(0, dtype=np.int64), lambda i: "")]


# ------------------------------------------------------------------------------------ bloom-filter

def _bloom(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    rows = np.flatnonzero(np.asarray(values.is_valid(), dtype=bool))
    if not len(rows):
        return Outcome(0, [])
    found = reader.might_contain_column(values)
    missed = rows[~found]
    return Outcome(len(rows), [Disagreement("false negative", "every non-null value tests positive", missed,
                                            lambda i: BLOOM_SAYS)] if len(missed) else [])


# ------------------------------------------------------------------------------------ bitmap

def _bitmap(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    nulls = reader.visit_is_null().bitmap  # reads the header
    found = _row_count(reader.row_count, row_count)
    if reader.kind.name == "string":
        valid, codes, dictionary = string_codes(values, data_type)
        keys = dictionary.to_pylist()
    else:
        valid, raw = split_nulls(values, data_type)
        distinct, codes = np.unique(raw, return_inverse=True)
        keys = [bool(k) for k in distinct.tolist()] if reader.kind.name == "boolean" else distinct.tolist()
    valid_rows = np.flatnonzero(valid)
    null_code, known = len(keys), set(keys)
    expected = np.full(row_count, null_code, dtype=np.int64)
    expected[valid_rows] = codes
    # every data value looked up as a query does, the null bitmap, then keys the data lacks
    claims = list(zip(range(len(keys)), reader.rows_of_keys(keys))) + [(null_code, nulls)]
    phantoms = reader.entries_except(known)
    claims += [(null_code + 1 + j, rows) for j, (_, rows) in enumerate(phantoms)]
    inside = [roaring.clipped(rows, row_count) for _, rows in claims]
    found += _past_the_end(sum(len(rows) - len(kept) for (_, rows), kept in zip(claims, inside)), row_count)
    claimed_rows, counts = roaring.rows_arrays(inside)
    claimed_codes = np.repeat(np.array([code for code, _ in claims], dtype=np.int64), counts)
    holders = np.bincount(claimed_rows, minlength=row_count)
    assigned = np.full(row_count, -1, dtype=np.int64)
    assigned[claimed_rows] = claimed_codes
    wrong = np.flatnonzero((holders != 1) | (assigned != expected))

    def label(code: int) -> str:
        if code == null_code:
            return "null"
        if code > null_code:
            return f"{_show(phantoms[code - null_code - 1][0])} (a value the data file does not hold)"
        return _show(values[int(valid_rows[np.argmax(codes == code)])].as_py())

    def says(i: int) -> str:
        row = int(wrong[i])
        if holders[row] == 0:
            return "no bitmap holds it (neither its value's nor the null bitmap)"
        if holders[row] > 1:
            held = sorted(int(c) for c in claimed_codes[claimed_rows == row])
            return "held by the bitmaps of " + ", ".join(label(c) for c in held)
        return f"held by the bitmap of {label(int(assigned[row]))}"

    if len(wrong):
        found.append(Disagreement("wrong rows", "each value's rows and the null rows", wrong, says))
    return Outcome(row_count, found)


# ------------------------------------------------------------------------------------ bsi

def _bsi(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    found = _row_count(reader.row_count, row_count)
    valid, keys = split_nulls(values, data_type)
    expected = np.zeros(row_count, dtype=np.int64)
    expected[np.flatnonzero(valid)] = keys
    decoded = np.zeros(row_count, dtype=np.int64)
    holders = np.zeros(row_count, dtype=np.int64)
    outside: list[np.ndarray] = []
    for sign, (low, high, rows, magnitudes, past) in zip((1, -1), reader.decode(row_count)):
        found += _past_the_end(past, row_count)
        rows = rows.astype(np.int64)
        holders[rows] += 1
        decoded[rows] = sign * magnitudes.view(np.int64)
        outside.append(rows[(magnitudes > np.uint64(high)) | (magnitudes < np.uint64(max(low, 0)))])
    has_value = holders > 0
    wrong = np.flatnonzero((holders > 1) | (has_value != valid)
                           | (has_value & (decoded != expected)))

    def says(i: int) -> str:
        row = int(wrong[i])
        if holders[row] > 1:
            return "in both halves' existence bitmaps"
        return f"decodes to {int(decoded[row])}" if holders[row] else "null (in neither existence bitmap)"

    if len(wrong):
        found.append(Disagreement("wrong value", "every row decodes to its value", wrong, says))
    bad = np.unique(np.concatenate(outside))
    if len(bad):
        found.append(Disagreement("out of range", "every value inside its half's [min, max]", bad,
                                  lambda i: f"decodes to {int(decoded[int(bad[i])])}, outside the [min, max] "
                                            "its half declares (comparisons short-cut on it)"))
    return Outcome(row_count, found)


# ------------------------------------------------------------------------------------ range-bitmap

def _range_bitmap(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    rows, codes, dictionary, low, high, past = reader.decode(row_count)
    found = _row_count(reader.row_count, row_count) + _past_the_end(past, row_count)
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
        return f"code {code}: {_show_key(kind, dictionary[code])}"

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
            found.append(Disagreement(problem, check, bad,
                                      lambda i, bad=bad, text=text: f"{code_text(int(bad[i]))}, {text}"))
    return Outcome(row_count, found)


# ------------------------------------------------------------------------------------ shared

def _show(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value).decode("utf-8", "replace"))
    return repr(value) if isinstance(value, str) else str(value)


def _show_key(kind, key) -> str:
    """A range-bitmap dictionary key as it reads: the value of an integer kind, the text of a string,
    the IEEE bits of a float (its sort key is an order-preserving transform of them)."""
    if kind.name == "string":
        return _show(key)
    if kind.floating:
        return repr(kind.floating.from_bits(kind.floating.compare_order(key)))  # the transform is its own inverse
    return str(key)


_CHECKS = {"bloom-filter": _bloom, "bitmap": _bitmap, "bsi": _bsi, "range-bitmap": _range_bitmap}
