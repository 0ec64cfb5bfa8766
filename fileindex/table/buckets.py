"""Which buckets of a fixed-bucket table a predicate can reach: Paimon's default bucket function, where
a row goes to ``abs(hash(bucket key) % buckets)``, the hash being ``BinaryRow.hashCode`` of the row of
its bucket-key fields (Murmur3 words, seed 42, over the row's bytes).

A predicate fixes the bucket when its top-level conjuncts give every bucket-key column one value (``=``)
or a few (``IN``); anything else, a bucket function other than the default, or key types the BinaryRow
writer here does not lay out, reaches every bucket.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import cast

from fileindex.errors import UsageError
from fileindex.java.binary_row import serialize
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Or, Predicate, conjuncts
from fileindex.table.metadata import Schema
from fileindex.table.names import whole_number
from fileindex.types import DataType

MAX_KEYS = 1024  # combinations of key values worth hashing: past that, every bucket is reachable


def bucket_key(schema: Schema) -> tuple[int, tuple[str, ...]] | None:
    """(bucket count, bucket-key columns) of a fixed-bucket table with the default bucket function, else None."""
    options = schema.options
    count = options.get("bucket", "-1").strip()
    if not whole_number(count) or int(count) <= 0 \
            or options.get("bucket-function.type", "default").lower() != "default":
        return None
    keys = [k.strip() for k in options.get("bucket-key", "").split(",") if k.strip()]
    if not keys:
        keys = [k for k in schema.primary_keys if k not in schema.partition_keys]
    if not keys or any(k not in schema.by_name() for k in keys):
        return None
    return int(count), tuple(keys)


def bucket_of(values: list, types: list[DataType], buckets: int) -> int:
    """The bucket a row with these bucket-key values goes to."""
    from fileindex.java.hash import binary_string_hash_code  # (a key hashed: a fixed-bucket table's only, #54)

    row = serialize(values, types)[4:]  # (the serialized form starts with the arity, not part of the row)
    return abs(binary_string_hash_code(row)) % buckets


def reachable_buckets(predicate: Predicate | None, schema: Schema) -> frozenset[int] | None:
    """The buckets rows satisfying ``predicate`` can be in; None: any."""
    found = bucket_key(schema)
    if predicate is None or found is None:
        return None
    buckets, keys = found
    choices = []
    for key in keys:
        values = _fixed_values(conjuncts(predicate), key)
        if values is None:
            return None
        choices.append(values)
    combinations = 1
    for values in choices:
        combinations *= len(values)
    if combinations > MAX_KEYS:
        return None
    types = [schema.by_name()[k].type for k in keys]
    try:
        return frozenset(bucket_of(list(values), types, buckets) for values in itertools.product(*choices))
    except (UsageError, OverflowError, TypeError, ValueError):
        return None


def _fixed_values(conjuncts: Iterable[Predicate], column: str) -> tuple | None:
    """The values one conjunct allows ``column``: ``=``, ``IN``, or an OR of ``=`` on it (the parser's form of a
    short IN list); nulls are left out: they match nothing."""
    for conjunct in conjuncts:
        leaves = conjunct.children if isinstance(conjunct, Or) else (conjunct,)
        if all(isinstance(leaf, Leaf) and leaf.column == column and leaf.function in (Operator.EQ, Operator.IN)
               for leaf in leaves):
            return tuple(dict.fromkeys(v for leaf in leaves for v in cast(Leaf, leaf).literals if v is not None))
    return None
