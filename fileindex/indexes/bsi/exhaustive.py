"""Every row of a data file decodes from its bsi index (existence bitmaps and slices) to its value,
inside its half's [min, max] that comparisons short-cut on."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from fileindex.arrow.values import split_nulls
from fileindex.indexes.exhaustive import Disagreement, Outcome, past_the_end, wrong_row_count
from fileindex.types import DataType


def check(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    found = wrong_row_count(reader.row_count, row_count)
    valid, keys = split_nulls(values, data_type)
    expected = np.zeros(row_count, dtype=np.int64)
    expected[np.flatnonzero(valid)] = keys
    decoded = np.zeros(row_count, dtype=np.int64)
    holders = np.zeros(row_count, dtype=np.int64)
    outside: list[np.ndarray] = []
    for sign, (low, high, rows, magnitudes, past) in zip((1, -1), reader.decode(row_count), strict=True):
        found += past_the_end(past, row_count)
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
