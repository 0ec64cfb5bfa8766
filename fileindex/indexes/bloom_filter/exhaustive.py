"""Every non-null value of a data file tests positive in its bloom filter (a false negative drops a
row)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from fileindex.indexes.exhaustive import Disagreement, Outcome
from fileindex.types import DataType

BLOOM_SAYS = "not in the filter: a query for it answers SKIP"


def check(reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    rows = np.flatnonzero(np.asarray(values.is_valid(), dtype=bool))
    if not len(rows):
        return Outcome(0, [])
    found = reader.might_contain_column(values)
    missed = rows[~found]
    return Outcome(len(rows), [Disagreement("false negative", "every non-null value tests positive", missed,
                                            lambda i: BLOOM_SAYS)] if len(missed) else [])
