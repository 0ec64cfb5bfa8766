"""The leaf functions of a predicate, each owning every name and rule the package has for it.

An :class:`Operator` is its own name (``"eq"``: it is a ``str``, so it compares, hashes and
prints as that name) and knows its negation, how many literals it takes, the index reader's
``visit_*`` method that answers it, its SQL text, Java's class name (``LeafFunction``; also the
name in the structured JSON form of the vectors) and the pyspark ``Column`` method that filters
by it. Code dispatches on these instead of keeping its own table keyed by name.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fileindex.indexes.reader import FileIndexReader
    from fileindex.indexes.result import FileIndexResult

ANY = None  # the arity of IN / NOT IN: a list of any length


class Operator(StrEnum):
    # (name, SQL, Java's class and the JSON form's name, negation, arity, reader visitor, pyspark Column method,
    #  for a comparison: (its Python operator, its pyarrow compute function))
    EQ = ("eq", "=", "Equal", "neq", 1, "visit_equal", "__eq__", (operator.eq, "equal"))
    NEQ = ("neq", "<>", "NotEqual", "eq", 1, "visit_not_equal", "__ne__", (operator.ne, "not_equal"))
    LT = ("lt", "<", "LessThan", "gte", 1, "visit_less_than", "__lt__", (operator.lt, "less"))
    LTE = ("lte", "<=", "LessOrEqual", "gt", 1, "visit_less_or_equal", "__le__", (operator.le, "less_equal"))
    GT = ("gt", ">", "GreaterThan", "lte", 1, "visit_greater_than", "__gt__", (operator.gt, "greater"))
    GTE = ("gte", ">=", "GreaterOrEqual", "lt", 1, "visit_greater_or_equal", "__ge__", (operator.ge, "greater_equal"))
    IN = ("in", "IN", "In", "not_in", ANY, "visit_in", "isin", None)
    NOT_IN = ("not_in", "NOT IN", "NotIn", "in", ANY, "visit_not_in", None, None)
    IS_NULL = ("is_null", "IS NULL", "IsNull", "is_not_null", 0, "visit_is_null", "isNull", None)
    IS_NOT_NULL = ("is_not_null", "IS NOT NULL", "IsNotNull", "is_null", 0, "visit_is_not_null", "isNotNull", None)
    BETWEEN = ("between", "BETWEEN", "Between", "not_between", 2, "visit_between", "between", None)
    NOT_BETWEEN = ("not_between", "NOT BETWEEN", "NotBetween", "between", 2, "visit_not_between", None, None)

    sql: str
    java_name: str
    _negation: str  # a name: the member may be defined further down
    arity: int | None  # the number of literals; None (ANY) for a list of any length
    visitor: str
    spark_method: str | None  # None: Spark filters by NOT of the negation's column
    comparison: Callable[[Any, Any], Any] | None  # a comparison's operator (numpy arrays too); None for the others
    arrow_function: str | None  # a comparison's pyarrow.compute function

    def __new__(cls, name: str, *details: Any) -> Operator:  # details: the columns above; Operator(name) looks one up
        member = str.__new__(cls, name)
        member._value_ = name
        *names, compares = details
        member.sql, member.java_name, member._negation, member.arity, member.visitor, member.spark_method = names
        member.comparison, member.arrow_function = compares or (None, None)
        return member

    # the operator is its name everywhere: in sets and dicts of names, in text, in JSON and in a Leaf's repr
    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return repr(self.value)

    @property
    def negation(self) -> Operator:
        """The operator true exactly where this one is false for a non-null value (NOT (a < 3) is a >= 3)."""
        return Operator(self._negation)

    @classmethod
    def from_java_name(cls, java_name: str) -> Operator | None:
        return _BY_JAVA_NAME.get(java_name)

    @classmethod
    def from_sql_symbol(cls, symbol: str) -> Operator:
        """The comparison a symbol (``=``, ``<>``, ``!=``, ``<``, ...) writes; KeyError for another."""
        return _BY_SYMBOL[symbol]

    def arguments(self, literals: Sequence) -> tuple:
        """The visitor's (and the pyspark method's) arguments: the literals, or one list of them for IN."""
        return (list(literals),) if self.arity is ANY else tuple(literals)

    def visit(self, reader: FileIndexReader, literals: Sequence) -> FileIndexResult:
        """The reader's answer for this operator on these literals."""
        return getattr(reader, self.visitor)(*self.arguments(literals))


_BY_JAVA_NAME = {op.java_name: op for op in Operator}
_BY_SYMBOL = {op.sql: op for op in Operator if op.arity == 1} | {"!=": Operator.NEQ}
