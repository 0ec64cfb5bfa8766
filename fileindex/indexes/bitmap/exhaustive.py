"""Every distinct value of a data file, looked up as a query looks it up, gives exactly its rows in its
bitmap index, the null bitmap exactly the null rows, and no other key of the dictionary holds a row."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from fileindex.arrow.values import split_nulls
from fileindex.indexes import roaring
from fileindex.indexes.bitmap.keys import string_codes
from fileindex.indexes.exhaustive import Disagreement, Outcome, past_the_end, show, wrong_row_count
from fileindex.types import DataType


def check(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    nulls = reader.visit_is_null().bitmap  # reads the header
    found = wrong_row_count(reader.row_count, row_count)
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
    claims = list(zip(range(len(keys)), reader.rows_of_keys(keys), strict=True)) + [(null_code, nulls)]
    phantoms = reader.entries_except(known)
    claims += [(null_code + 1 + j, rows) for j, (_, rows) in enumerate(phantoms)]
    inside = [roaring.clipped(rows, row_count) for _, rows in claims]
    found += past_the_end(sum(len(rows) - len(kept) for (_, rows), kept in zip(claims, inside, strict=True)), row_count)
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
            return f"{show(phantoms[code - null_code - 1][0])} (a value the data file does not hold)"
        return show(values[int(valid_rows[np.argmax(codes == code)])].as_py())

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
