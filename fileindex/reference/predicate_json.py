"""The structured form of a predicate beside Java's ``toString`` in the vectors (docs/conformance.md).

    {"function": "Or", "children": [<predicate>, <predicate>, ...]}
    {"function": "GreaterOrEqual", "column": "tags🏷[é]", "type": "BIGINT", "literals": [-231566689]}

``function`` is Java's class name (``LeafFunction`` / ``CompoundFunction``), ``column`` the field
(``m[k]`` for map ``m``'s key ``k``), ``type`` that field's Paimon type, ``literals`` in the
datasets' JSON spelling of that type (:mod:`fileindex.reference.vector_format`). Unlike the text,
it reads one way only.
"""
from __future__ import annotations

from collections.abc import Iterator

from fileindex.errors import UsageError
from fileindex.predicate import literals as lit
from fileindex.predicate.java import COMPOUNDS, java_function_names
from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import closest_column
from fileindex.predicate.tree import Leaf, Predicate, PredicateVisitor, visit
from fileindex.reference.vector_format import value_from_json, value_to_json
from fileindex.types import DataType, column_type, parse_type


def predicate_to_json(predicate: Predicate, schema: dict[str, DataType]) -> dict:
    return visit(predicate, _Json(schema))


class _Json(PredicateVisitor[dict]):
    def __init__(self, schema: dict[str, DataType]):
        self.schema = schema

    def leaf(self, leaf: Leaf) -> dict:
        data_type = column_type(self.schema, leaf.column)
        if data_type is None:
            raise UsageError(f"column {leaf.column!r} is not in the schema"
                             f"{closest_column(leaf.column, list(self.schema))}")
        return {"function": leaf.function.java_name, "column": leaf.column, "type": str(data_type),
                "literals": [value_to_json(v, data_type) for v in leaf.literals]}

    def and_(self, children: Iterator[dict]) -> dict:
        return {"function": "And", "children": list(children)}

    def or_(self, children: Iterator[dict]) -> dict:
        return {"function": "Or", "children": list(children)}


def predicate_from_json(form, schema: dict[str, DataType], where: str = "java_predicate") -> Predicate:
    """The predicate ``form`` describes; a UsageError naming the part (``where``) that is wrong."""
    if not isinstance(form, dict) or not isinstance(form.get("function"), str):
        raise UsageError(f"{where}: expected an object with a \"function\", found {form!r}")
    function = form["function"]
    if function in COMPOUNDS:
        children = form.get("children")
        if not isinstance(children, list) or len(children) < 2:
            raise UsageError(f"{where}: {function} takes a list of two or more \"children\"")
        return COMPOUNDS[function](tuple(predicate_from_json(c, schema, f"{where}.children[{i}]")
                                         for i, c in enumerate(children)))
    operator = Operator.from_java_name(function)
    if operator is None:
        raise UsageError(f"{where}: unknown function {function!r} (one of {java_function_names()})")
    column, literals = form.get("column"), form.get("literals", [])
    if not isinstance(column, str) or (data_type := column_type(schema, column)) is None:
        known = closest_column(column, list(schema)) if isinstance(column, str) else f" ({', '.join(schema)})"
        raise UsageError(f"{where}: column {column!r} is not in the schema{known}")
    declared = form.get("type")
    try:
        same_type = declared is not None and str(parse_type(declared)) == str(data_type)
    except (UsageError, TypeError):
        same_type = False
    if not same_type:
        raise UsageError(f"{where}: type {declared!r} is not the type of column {column!r}, {data_type}")
    wanted = operator.arity
    if not isinstance(literals, list) or (wanted is not None and len(literals) != wanted):
        takes = {0: "no literal", 1: "one literal", 2: "two literals", None: "literals"}[wanted]
        raise UsageError(f"{where}: {function} takes {takes} in a list, found {literals!r}")
    values = []
    for i, raw in enumerate(literals):
        try:
            values.append(lit.convert(value_from_json(raw, data_type), data_type, column))
        except (UsageError, ValueError, TypeError, KeyError) as err:
            raise UsageError(f"{where}.literals[{i}]: {raw!r} is not a {data_type} literal ({err})") from None
    return Leaf(operator, column, tuple(values))
