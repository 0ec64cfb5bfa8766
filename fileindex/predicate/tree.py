"""Predicates as Paimon's ``Predicate`` tree: immutable leaves and n-ary AND/OR, NOT pushed to leaves.

A leaf names a container column (a map-key index column is ``m[k]``), its function (an
:class:`~fileindex.predicate.operators.Operator`; its name is accepted) and holds literals already
converted to the column's type. ``negate`` pushes NOT down by De Morgan and by flipping each
leaf function, which is exact under SQL's three-valued logic (NOT (a < 3) is a >= 3; rows where a
is null satisfy neither). ``PredicateBuilder``-style helpers build IN as an OR of equalities for
up to 20 literals, and an IN leaf above, as Paimon does.

Code that walks a tree does it with :func:`visit` and a :class:`PredicateVisitor` (as pyiceberg's
``BooleanExpressionVisitor``, for Paimon's n-ary AND/OR without NOT): it says what a leaf, an AND and an
OR answer, and never tests a node's class. :class:`LeafRewrite` is the visitor that rebuilds a tree from
rewritten leaves; :func:`conjuncts` splits off the top-level AND.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from fileindex.frozen import frozen
from typing import Generic, TypeVar

from fileindex.errors import UsageError
from fileindex.predicate.operators import Operator

IN_THRESHOLD = 20  # PredicateBuilder: <= 20 literals become OR of Equal, more an In leaf


@frozen(init=False)
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


@frozen
class And:
    children: tuple


@frozen
class Or:
    children: tuple


Predicate = Leaf | And | Or


def and_(*children: Predicate) -> Predicate:
    flat = tuple(_flatten(And, children))
    return flat[0] if len(flat) == 1 else And(flat)


def or_(*children: Predicate) -> Predicate:
    flat = tuple(_flatten(Or, children))
    return flat[0] if len(flat) == 1 else Or(flat)


def _flatten(kind: type[And] | type[Or], children: Iterable[Predicate]) -> Iterator[Predicate]:
    for child in children:
        if isinstance(child, kind):
            yield from child.children
        else:
            yield child


T = TypeVar("T")


class PredicateVisitor(ABC, Generic[T]):
    """What a walk answers for each kind of node, bottom up. ``and_`` and ``or_`` get their children's
    answers as an iterator, computed as they are taken: a visitor that stops early (an AND that already
    skips) leaves the rest of the tree unvisited."""

    @abstractmethod
    def leaf(self, leaf: Leaf) -> T: ...

    @abstractmethod
    def and_(self, children: Iterator[T]) -> T: ...

    @abstractmethod
    def or_(self, children: Iterator[T]) -> T: ...


def visit(predicate: Predicate, visitor: PredicateVisitor[T]) -> T:
    """``visitor``'s answer for ``predicate``; a TypeError for anything that is not a predicate tree."""
    if isinstance(predicate, Leaf):
        return visitor.leaf(predicate)
    if isinstance(predicate, And):
        return visitor.and_(visit(child, visitor) for child in predicate.children)
    if isinstance(predicate, Or):
        return visitor.or_(visit(child, visitor) for child in predicate.children)
    raise TypeError(f"not a predicate: {predicate!r}")


class LeafRewrite(PredicateVisitor[Predicate]):
    """The same tree with each leaf replaced by ``leaf(leaf)`` (a leaf or a subtree), rebuilt with
    :func:`and_` and :func:`or_`."""

    def and_(self, children: Iterator[Predicate]) -> Predicate:
        return and_(*children)

    def or_(self, children: Iterator[Predicate]) -> Predicate:
        return or_(*children)


class _Negation(PredicateVisitor[Predicate]):
    def leaf(self, leaf: Leaf) -> Predicate:
        return Leaf(leaf.function.negation, leaf.column, leaf.literals)

    def and_(self, children: Iterator[Predicate]) -> Predicate:
        return or_(*children)

    def or_(self, children: Iterator[Predicate]) -> Predicate:
        return and_(*children)


class _Leaves(PredicateVisitor[Iterator[Leaf]]):
    def leaf(self, leaf: Leaf) -> Iterator[Leaf]:
        return iter((leaf,))

    def and_(self, children: Iterator[Iterator[Leaf]]) -> Iterator[Leaf]:
        return itertools.chain.from_iterable(children)

    or_ = and_


def conjuncts(predicate: Predicate) -> tuple[Predicate, ...]:
    """The top-level AND's children, or the predicate alone."""
    return predicate.children if isinstance(predicate, And) else (predicate,)


def negate(predicate: Predicate) -> Predicate:
    return visit(predicate, _Negation())


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
    """The columns the leaves name, each once, in the order they first appear."""
    return list(dict.fromkeys(leaf.column for leaf in leaves(predicate)))


def leaves(predicate: Predicate) -> Iterator[Leaf]:
    """The leaves, left to right."""
    return visit(predicate, _Leaves())


def without_null_alternatives(predicate: Predicate) -> Predicate:
    """``predicate`` less its comparisons with NULL that are one alternative among others: an OR's child (``c =
    NULL``, as ``in_`` writes a NULL of an IN list) or an IN leaf's literal. Such a comparison matches no row (in
    SQL, and in Paimon's row filter), so the others are the answer: ``c IN (3, NULL)`` is answered as ``c = 3``,
    where Java's bsi and range-bitmap readers throw on the NULL. A comparison with NULL alone is left to the
    indexes (Java's answer, or REMAIN where it has none)."""
    if not any(None in leaf.literals for leaf in leaves(predicate)):
        return predicate
    return visit(predicate, _NullAlternativesLeftOut())


def _compares_with_null(predicate: Predicate) -> bool:
    return isinstance(predicate, Leaf) and None in predicate.literals


class _NullAlternativesLeftOut(LeafRewrite):
    def leaf(self, leaf: Leaf) -> Predicate:
        others = tuple(literal for literal in leaf.literals if literal is not None)
        return Leaf(leaf.function, leaf.column, others) if leaf.function is Operator.IN and others else leaf

    def or_(self, children: Iterator[Predicate]) -> Predicate:
        given = list(children)
        return or_(*([child for child in given if not _compares_with_null(child)] or given))


def null_comparisons(predicate: Predicate) -> list[str]:
    """Columns compared with a NULL literal (``c = NULL``, ``c IN (NULL)``, ...): never true in SQL, though
    Java's bitmap answers ``= NULL`` with the null rows."""
    return list(dict.fromkeys(leaf.column for leaf in leaves(predicate)
                              if leaf.function.arity != 0 and None in leaf.literals))


def null_tested(predicate: Predicate) -> set[str]:
    """Columns the predicate asks ``IS NULL`` of (a note on ``c = NULL`` need not suggest it there)."""
    return {leaf.column for leaf in leaves(predicate) if leaf.function is Operator.IS_NULL}
