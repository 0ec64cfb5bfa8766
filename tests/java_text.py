"""Java's ``Predicate.toString``, written from this project's predicates (the tests' formatter).

``LeafPredicate.toString``: ``Function(field)`` without literals or when the one literal prints
empty, ``Function(field, literal)`` for one, ``Function(field, [a, b])`` (``List.toString``) for
several; ``CompoundPredicate``: ``And([child, child])``. Literals print as Paimon's internal
values do: ``BinaryString`` as its text, ``Timestamp`` as ``LocalDateTime``, ``Decimal`` as a plain
string, DATE and TIME as Java ints, floats as ``Float`` / ``Double.toString``, null as ``null``.
"""
from __future__ import annotations

import decimal

from fileindex.java.text import java_float_text, local_date_time_text
from fileindex.predicate.tree import And, Leaf, Predicate
from fileindex.types import DataType, column_type
from fileindex.values import Timestamp


def java_to_string(predicate: Predicate, schema: dict[str, DataType]) -> str:
    if not isinstance(predicate, Leaf):
        return f"{'And' if isinstance(predicate, And) else 'Or'}([" + \
            ", ".join(java_to_string(c, schema) for c in predicate.children) + "])"
    data_type = column_type(schema, predicate.column)
    values = [java_literal_text(v, data_type) for v in predicate.literals]
    text = "" if not values else values[0] if len(values) == 1 else "[" + ", ".join(values) + "]"
    function = predicate.function.java_name
    return f"{function}({predicate.column})" if not text else f"{function}({predicate.column}, {text})"


def java_literal_text(value, data_type: DataType) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if data_type.root in ("FLOAT", "DOUBLE"):
        return java_float_text(value, single=data_type.root == "FLOAT")
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, Timestamp):
        return local_date_time_text(value)
    return str(value)
