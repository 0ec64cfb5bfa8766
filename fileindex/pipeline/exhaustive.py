"""Exhaustive verification: every row of a data file against what its index says about that row.

Sampled predicates (:mod:`fileindex.pipeline.verify`) find an index that is wrong about the
values they happen to probe; this checks every row, with each index type's own check (its
``exhaustive`` in the registry), e.g.:

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

import numpy as np
import pyarrow as pa

from fileindex.errors import UsageError
from fileindex.indexes.exhaustive import Disagreement, Outcome
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.types import DataType

__all__ = ["Disagreement", "Outcome", "check_index", "check_empty", "checkable"]


def check_index(index_type: str, reader, values: pa.Array, data_type: DataType, row_count: int) -> Outcome:
    """Every row of ``values`` (one column of the data file) against an opened index reader."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    exhaustive = INDEX_TYPES[index_type].exhaustive
    if exhaustive is None:
        raise UsageError(f"{index_type} indexes have no exhaustive check (see checkable)")
    return exhaustive(reader, values, data_type, row_count)


def check_empty(values: pa.Array) -> Outcome:
    """An empty index (its writer saw no value) answers SKIP for every value: wrong for any non-null row."""
    rows = np.flatnonzero(np.asarray(values.is_valid(), dtype=bool))
    found = [Disagreement("false negative", "every non-null value", rows,
                          lambda i: "the index is empty: a query for any value answers SKIP")] if len(rows) else []
    return Outcome(len(values), found)


def checkable(index_type: str) -> bool:
    index = INDEX_TYPES.get(index_type)
    return index is not None and index.exhaustive is not None
