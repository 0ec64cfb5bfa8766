"""A predicate tree built in code, typed as a parsed one: each literal converted to its column's type by the one
literal conversion the text goes through (:func:`fileindex.predicate.literals.convert`), so a ``Leaf`` holding
``datetime.date(2024, 1, 1)``, ``Decimal('12.5')`` or ``20240101`` against a DATE is what the text gives, or is
refused with the conversion's message."""
from __future__ import annotations

from fileindex.errors import UsageError
from fileindex.predicate import literals as lit
from fileindex.predicate.parser import closest_column
from fileindex.predicate.tree import Leaf, LeafRewrite, Predicate, visit
from fileindex.types import DataType, column_type


def typed_predicate(predicate: Predicate, schema: dict[str, DataType]) -> Predicate:
    """``predicate`` with every literal a value of its column's type in ``schema`` (a parsed predicate comes back
    equal); a UsageError for a column not in ``schema`` or a literal that does not fit, and for what is no
    predicate tree."""
    try:
        return visit(predicate, _Typed(schema))
    except TypeError:
        raise UsageError(f"{predicate!r} is not a predicate: give its text, or a tree of Leaf, And and Or "
                         "(fileindex.predicate.tree)") from None


class _Typed(LeafRewrite):
    def __init__(self, schema: dict[str, DataType]):
        self.schema = schema

    def leaf(self, leaf: Leaf) -> Predicate:
        data_type = column_type(self.schema, leaf.column) if isinstance(leaf.column, str) else None
        if data_type is None:
            raise UsageError(f"unknown column {leaf.column!r}{closest_column(str(leaf.column), list(self.schema))}")
        literals = tuple(lit.convert(value, data_type, leaf.column) for value in leaf.literals)
        return Leaf(leaf.function, leaf.column, literals)
