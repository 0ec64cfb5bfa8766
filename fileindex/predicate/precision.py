"""A leaf whose literal is finer than its column's type, as the same condition on literals the column holds.

Indexes key a literal as the column's type does, rounding a TIMESTAMP(3) literal to its millisecond (micros
for precision up to 6) and a DECIMAL(p, s) literal to s places, so ``ts < '…00.0005'`` would be answered as
``ts < '…00.000'`` (Java does: it leaves out the rows at ``'…00.000'``, which match). No value of the column
equals such a literal x, and with ⌊x⌋ the largest value it holds below x (``fileindex.values.held_floor``):

* ``= x`` matches no row; ``<> x`` every non-null row; IN and NOT IN drop x;
* ``< x`` and ``<= x`` are ``<= ⌊x⌋``; ``> x`` and ``>= x`` are ``> ⌊x⌋``; BETWEEN takes both bounds so.

NOT BETWEEN stays as it is: no index answers it with rows.
"""
from __future__ import annotations

from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, Predicate, and_, or_
from fileindex.types import DataType
from fileindex.values import held_exactly, held_floor

NOTHING = or_()  # the empty OR: no row

_BELOW = {Operator.LT: Operator.LTE, Operator.LTE: Operator.LTE, Operator.GT: Operator.GT, Operator.GTE: Operator.GT}


def at_column_precision(leaf: Leaf, data_type: DataType | None) -> Predicate:
    """``leaf`` itself where the column holds each of its literals (or a null), else the predicate above."""
    if data_type is None or not (data_type.is_timestamp or data_type.root == "DECIMAL") or all(
            literal is None or held_exactly(literal, data_type) for literal in leaf.literals):
        return leaf
    function, column, literals = leaf.function, leaf.column, leaf.literals
    if function is Operator.EQ:
        return NOTHING
    if function is Operator.NEQ:
        return Leaf(Operator.IS_NOT_NULL, column)
    if function in _BELOW:
        return Leaf(_BELOW[function], column, (held_floor(literals[0], data_type),))
    held = tuple(literal for literal in literals if literal is None or held_exactly(literal, data_type))
    if function is Operator.IN:
        return Leaf(function, column, held) if held else NOTHING
    if function is Operator.NOT_IN:
        return Leaf(function, column, held) if held else Leaf(Operator.IS_NOT_NULL, column)
    if function is Operator.BETWEEN and None not in literals:
        low, high = literals
        return and_(Leaf(Operator.GTE if held_exactly(low, data_type) else Operator.GT, column,
                         (held_floor(low, data_type),)),
                    Leaf(Operator.LTE, column, (held_floor(high, data_type),)))
    return leaf
