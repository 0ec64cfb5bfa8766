"""Aggregation of many keys at once: a field's aggregate function applied record by record, as Java applies it
(``AggregateMergeFunction`` over ``FieldAggregator``), but to the j-th record of every key in one numpy step.
A key's records arrive in sequence order; step j folds each key's j-th record into its accumulator, so the
arithmetic happens in Java's order, in the column's own width (int32 wraps like Java's int, float32 rounds
like Java's float).

Functions that pick a record (primary-key, last_value, last_non_null_value, first_value,
first_non_null_value) track the record's position and work for every type; sum, product, min, max, bool_and
and bool_or compute on the values of integer, floating-point, boolean, date and time columns. Anything else
(listagg, min or max of strings, an integer product's retraction) is not done here: :func:`aggregate_keys`
answers None and the caller merges that field key by key (``functions.KeyMerger``).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pyarrow as pa

from fileindex.java_numbers import DOUBLE, FLOAT
from fileindex.merge.aggregators import make_aggregator
from fileindex.merge.spec import Aggregate
from fileindex.types import DataType
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
else:
    compute = LazyModule("fileindex.arrow.compute")

PICKS = ("primary-key", "last_value", "last_non_null_value", "first_value", "first_non_null_value",
         "first_not_null_value")
RETRACTS = ("primary-key", "last_value", "last_non_null_value", "sum", "product")  # functions with a retract


class _Keys:
    """The records of the keys being aggregated: ``starts`` and ``sizes`` of each key's records (in sequence
    order), ``add`` whether each record is not a retraction."""

    def __init__(self, starts: np.ndarray, sizes: np.ndarray, add: np.ndarray):
        self.starts, self.sizes, self.add = starts, sizes, add

    def steps(self):
        """(the keys with a j-th record, the position of that record), for j = 0, 1, ..."""
        for j in range(int(self.sizes.max()) if len(self.sizes) else 0):
            keys = np.flatnonzero(self.sizes > j)
            yield keys, self.starts[keys] + j


def aggregate_keys(aggregate: Aggregate, data_type: DataType, column: pa.Array, starts: np.ndarray,
                   sizes: np.ndarray, add: np.ndarray) -> pa.Array | None:
    """One field's aggregate of each key (``column`` holds the keys' records one key after another), or None
    where it is not done here. A retraction the function has no inverse for raises Java's error."""
    function = aggregate.function
    keys = _Keys(starts, sizes, add)
    retracting = not aggregate.ignore_retract and not add.all()
    if retracting and function not in RETRACTS:
        make_aggregator(function, data_type).retract(None, None)  # raises Java's error
    valid = compute.to_numpy(compute.call("is_valid", column))
    if function in PICKS:
        chosen = _pick(function, keys, valid, aggregate.ignore_retract)
        return compute.call("take", column, compute.from_numpy(np.maximum(chosen, 0), pa.int64(), mask=chosen < 0))
    storage = _storage(column)
    if storage is None or (function == "product" and retracting and pa.types.is_integer(storage.type)):
        return None
    step = _STEPS.get(function)
    if step is None:
        return None
    blank = pa.scalar(False if pa.types.is_boolean(storage.type) else 0, type=storage.type)
    values = compute.to_numpy(compute.call("coalesce", storage, blank))
    result, known = _fold(step(data_type), keys, values, valid, aggregate.ignore_retract)
    return compute.from_numpy(result, storage.type, mask=~known).cast(column.type)


def _storage(column: pa.Array) -> pa.Array | None:
    """The column as numbers numpy computes on in the field's width (temporal types as their integers)."""
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        return column
    if pa.types.is_date32(kind) or pa.types.is_time32(kind):
        return column.cast(pa.int32())
    if pa.types.is_timestamp(kind) or pa.types.is_time64(kind) or pa.types.is_date64(kind):
        return column.cast(pa.int64())
    return None


def _pick(function: str, keys: _Keys, valid: np.ndarray, ignore_retract: bool) -> np.ndarray:
    """The position of the record whose value each key keeps (-1: null)."""
    chosen = np.full(len(keys.starts), -1, dtype=np.int64)
    started = np.zeros(len(keys.starts), dtype=bool)
    first = function.startswith("first")
    non_null = function in ("last_non_null_value", "first_non_null_value", "first_not_null_value")
    for which, rows in keys.steps():
        add = keys.add[rows]
        counts = valid[rows] if non_null else np.ones(len(rows), dtype=bool)
        if first:
            take = add & counts & ~started[which]
            chosen[which[take]] = rows[take]
            started[which[take]] = True
            continue
        chosen[which[add & counts]] = rows[add & counts]
        if function == "primary-key" and not ignore_retract:
            chosen[which[~add]] = rows[~add]
        elif not ignore_retract:
            chosen[which[~add & counts]] = -1  # (last_value: any retraction; last_non_null_value: a non-null one)
    return chosen


if TYPE_CHECKING:  # (an alias naming np.ndarray at import would import numpy)
    # (accumulator, or None: nothing yet; values; whether they retract) -> the new accumulator
    Step = Callable[[np.ndarray | None, np.ndarray, bool], np.ndarray]


def _fold(step: Step, keys: _Keys, values: np.ndarray, valid: np.ndarray,
          ignore_retract: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each key's accumulator after its records, folded in order: a null value leaves it (as every function
    here does), a first value starts it (a first retraction: ``step`` from nothing)."""
    acc = np.zeros(len(keys.starts), dtype=values.dtype)
    known = np.zeros(len(keys.starts), dtype=bool)
    for which, rows in keys.steps():
        for retract in (False, True):
            use = valid[rows] & (keys.add[rows] != retract)
            if retract and ignore_retract or not use.any():
                continue
            target, value = which[use], values[rows[use]]
            had = known[target]
            folded = step(acc[target], value, retract)
            fresh = step(None, value, retract) if retract else value
            acc[target] = np.where(had, folded, fresh)
            known[target] = True
    return acc, known


def _sum(data_type: DataType) -> Step:
    def step(acc, value, retract):
        with np.errstate(all="ignore"):  # (integers wrap, floats overflow to infinity, as in Java)
            if acc is None:
                return -value
            return acc - value if retract else acc + value
    return step


def _product(data_type: DataType) -> Step:
    def step(acc, value, retract):
        with np.errstate(all="ignore"):
            if acc is None:  # (a retraction from nothing keeps the value: Java's FieldProductAgg)
                return value
            return acc / value if retract else acc * value
    return step


def _extreme(keep_smaller: bool) -> Callable[[DataType], Step]:
    def make(data_type: DataType) -> Step:
        order = _order(data_type)

        def step(acc, value, retract):
            smaller = order(acc) < order(value)
            return np.where(smaller, acc, value) if keep_smaller else np.where(smaller, value, acc)
        return step
    return make


def _order(data_type: DataType) -> Callable[[np.ndarray], np.ndarray]:
    """Values as ``InternalRowUtils.compare`` orders them (FLOAT and DOUBLE by ``Float.compare``)."""
    bits = {"FLOAT": FLOAT, "DOUBLE": DOUBLE}.get(data_type.root)
    if bits is None:
        return lambda values: values
    return lambda values: bits.compare_order(bits.bits_array(values))


def _boolean(conjunction: bool) -> Callable[[DataType], Step]:
    def make(data_type: DataType) -> Step:
        return lambda acc, value, retract: (acc & value) if conjunction else (acc | value)
    return make


_STEPS: dict[str, Callable[[DataType], Step]] = {
    "sum": _sum, "product": _product, "min": _extreme(True), "max": _extreme(False),
    "bool_and": _boolean(True), "bool_or": _boolean(False),
}
