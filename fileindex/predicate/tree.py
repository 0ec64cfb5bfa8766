"""Predicates as Paimon's ``Predicate`` tree: immutable leaves and n-ary AND/OR, NOT pushed to leaves.

A leaf names a container column (a map-key index column is ``m[k]``), its function (an
:class:`~fileindex.predicate.operators.Operator`; its name is accepted) and holds literals already
converted to the column's type. ``negate`` pushes NOT down by De Morgan and by flipping each
leaf function, which is exact under SQL's three-valued logic (NOT (a < 3) is a >= 3; rows where a
is null satisfy neither). ``PredicateBuilder``-style helpers build IN as an OR of equalities for
up to 20 literals, and an IN leaf above, as Paimon does.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable

from fileindex.errors import UsageError
from fileindex.predicate.operators import Operator

IN_THRESHOLD = 20  # PredicateBuilder: <= 20 literals become OR of Equal, more an In leaf


@dataclass(frozen=True, init=False)
class Leaf:
    function: Operator
    column: str
    literals: tuple = ()

    def __init__(self, function: Operator | str, column: str, literals: tuple = ()):
        if type(function) is not Operator:
            try:
                function = Operator(function)
            except (ValueError, TypeError):
                raise UsageError(f"unknown predicate function {function!r}: use one of "
                                 f"{', '.join(Operator)}") from None
        if type(literals) is not tuple:
            if not isinstance(literals, (tuple, list)):
                raise UsageError(f"{function} on {column!r}: give the literals as a tuple, not {literals!r}")
            literals = tuple(literals)
        if function.arity is not None and len(literals) != function.arity:
            raise UsageError(f"{function} on {column!r} takes {function.arity} literal(s), not {len(literals)}: "
                             f"{literals!r}")
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "literals", literals)


@dataclass(frozen=True)
class And:
    children: tuple


@dataclass(frozen=True)
class Or:
    children: tuple


Predicate = Leaf | And | Or


def and_(*children: Predicate) -> Predicate:
    flat = tuple(_flatten(And, children))
    return flat[0] if len(flat) == 1 else And(flat)


def or_(*children: Predicate) -> Predicate:
    flat = tuple(_flatten(Or, children))
    return flat[0] if len(flat) == 1 else Or(flat)


def _flatten(kind, children: Iterable[Predicate]):
    for child in children:
        if isinstance(child, kind):
            yield from child.children
        else:
            yield child


def negate(predicate: Predicate) -> Predicate:
    if isinstance(predicate, Leaf):
        return Leaf(predicate.function.negation, predicate.column, predicate.literals)
    if isinstance(predicate, And):
        return or_(*(negate(c) for c in predicate.children))
    return and_(*(negate(c) for c in predicate.children))


def in_(column: str, literals: Iterable) -> Predicate:
    """``PredicateBuilder.in``: OR of equalities for <= 20 literals, an IN leaf above (or when empty)."""
    values = tuple(literals)
    if 0 < len(values) <= IN_THRESHOLD:
        return or_(*(Leaf(Operator.EQ, column, (v,)) for v in values))
    return Leaf(Operator.IN, column, values)


def not_in(column: str, literals: Iterable) -> Predicate:
    """``PredicateBuilder.notIn``: the negation of :func:`in_` (AND of inequalities, or a NOT IN leaf)."""
    return negate(in_(column, literals))


def columns(predicate: Predicate) -> list[str]:
    if isinstance(predicate, Leaf):
        return [predicate.column]
    return list(dict.fromkeys(c for child in predicate.children for c in columns(child)))


def leaves(predicate: Predicate) -> Iterable[Leaf]:
    if isinstance(predicate, Leaf):
        yield predicate
        return
    for child in predicate.children:
        yield from leaves(child)


def null_comparisons(predicate: Predicate) -> list[str]:
    """Columns compared with a NULL literal (``c = NULL``, ``c IN (NULL)``, ...): never true in SQL, though
    Java's bitmap answers ``= NULL`` with the null rows."""
    return list(dict.fromkeys(leaf.column for leaf in leaves(predicate)
                              if leaf.function.arity != 0 and None in leaf.literals))
