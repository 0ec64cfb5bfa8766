"""Java's ``Predicate.toString`` (``Or([Equal(id, 1), IsNull(name)])``) as this project's predicates.

The shared vectors record each whole-file predicate as Java printed it; conformance and the tests
evaluate exactly that predicate rather than a hand-written restatement of it.
"""
from __future__ import annotations

import re

from fileindex.errors import UsageError
from fileindex.predicate.literals import quote_string
from fileindex.predicate.parser import parse_predicate
from fileindex.predicate.tree import Predicate
from fileindex.types import DataType

COMPARISONS = {"Equal": "=", "NotEqual": "<>", "LessThan": "<", "LessOrEqual": "<=", "GreaterThan": ">",
               "GreaterOrEqual": ">="}


def parse_java_predicate(text: str, schema: dict[str, DataType]) -> Predicate:
    return parse_predicate(java_predicate_sql(text, schema), schema)


def java_predicate_sql(text: str, schema: dict[str, DataType]) -> str:
    """The predicate Java printed as ``text``, in this project's SQL-like syntax."""
    compound = re.fullmatch(r"(And|Or)\(\[(.*)\]\)", text)
    if compound:
        joiner = f" {compound.group(1).upper()} "
        return "(" + joiner.join(java_predicate_sql(part, schema) for part in _split_top_level(compound.group(2))) + ")"
    leaf = re.fullmatch(r"(\w+)\((.*)\)", text)
    if not leaf:
        raise UsageError(f"not a Java predicate: {text!r}")
    function, arguments = leaf.groups()
    column, _, rest = arguments.partition(", ")
    if column not in schema:
        raise UsageError(f"Java predicate {text!r} names column {column!r}, which the schema lacks")
    quoted = f"`{column}`"
    literal = lambda raw: _literal(raw, schema[column])  # noqa: E731
    if function in COMPARISONS:
        return f"{quoted} {COMPARISONS[function]} {literal(rest)}"
    if function in ("IsNull", "IsNotNull"):
        return f"{quoted} IS {'NOT ' if function == 'IsNotNull' else ''}NULL"
    if function == "Between":
        low, high = rest.strip("[]").split(", ")
        return f"{quoted} BETWEEN {literal(low)} AND {literal(high)}"
    if function in ("In", "NotIn"):
        values = ", ".join(literal(v) for v in rest.strip("[]").split(", "))
        return f"{quoted} {'NOT ' if function == 'NotIn' else ''}IN ({values})"
    raise UsageError(f"Java predicate function {function!r} is not supported here ({text!r})")


def _split_top_level(body: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            parts.append(body[start:i].strip())
            start = i + 1
    parts.append(body[start:].strip())
    return parts


def _literal(raw: str, data_type: DataType) -> str:
    if data_type.is_string:
        return quote_string(raw)
    if data_type.is_timestamp:
        return f"TIMESTAMP '{raw.replace('T', ' ')}'"
    return raw
