"""Java's ``Predicate.toString`` (``Or([Equal(id, 1), IsNull(name)])``) as this project's predicates.

The shared vectors record each whole-file predicate as Java printed it; conformance and the tests
evaluate exactly that predicate rather than a hand-written restatement of it.

Java prints a leaf as ``Function(field, literal)`` (one literal), ``Function(field, [a, b])``
(several: ``List.toString``), ``Function(field)`` (none, or one that prints empty) and a compound
as ``And([child, child])``. Nothing is quoted or escaped: a column name or a string literal may
hold ``, ``, ``)``, ``]``, line breaks, anything. So the text is read against the schema: every
split at ``, `` that gives a column the schema has (``m[k]`` for a map column ``m``) and
literals that convert under that column's type is a *reading*. One reading is the predicate;
none is an error that says why. Where several remain, the one with the most leaves wins (a
string literal that holds a whole printed leaf, ``x), Equal(id, 3``, is the unlikely reading);
several with as many leaves is an error (a structured form beside the text settles it).
"""
from __future__ import annotations

import bisect
import decimal
import re
from collections.abc import Iterator
from typing import Any

from fileindex.errors import UsageError
from fileindex.predicate import literals as lit
from fileindex.predicate.operators import ANY, Operator
from fileindex.predicate.parser import to_sql
from fileindex.predicate.tree import And, Leaf, Or, Predicate, leaves
from fileindex.types import DataType, column_type

COMPOUNDS: dict[str, type[And] | type[Or]] = {"And": And, "Or": Or}

SEPARATOR = ", "
READINGS_LIMIT = 8  # enough to tell one reading from several; bounds the work on lists of ", "-strings

_INTEGER = re.compile(r"-?[0-9]+")
_FLOATING = re.compile(r"NaN|-?Infinity|-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?")


class _NoReading(Exception):
    pass


def parse_java_predicate(text: str, schema: dict[str, DataType]) -> Predicate:
    """The one predicate Java printed as ``text``; UsageError when it has no reading or several."""
    reader = _Reader(text, schema)
    readings = reader.readings()
    if not readings:
        raise UsageError(f"cannot read Java predicate {text!r} against the schema: {reader.why()}")
    most = max(_leaf_count(r) for r in readings)
    readings = [r for r in readings if _leaf_count(r) == most]
    if len(readings) == 1:
        return readings[0]
    shown = "; ".join(to_sql(r, schema) for r in readings[:3])
    raise UsageError(f"Java predicate {text!r} reads {'several' if reader.truncated else len(readings)} "
                     f"ways against the schema ({shown}): its structured form says which")


def _leaf_count(predicate: Predicate) -> int:
    return sum(1 for _ in leaves(predicate))


def java_predicate_readings(text: str, schema: dict[str, DataType]) -> tuple[list[Predicate], bool]:
    """Predicates whose Java ``toString`` is ``text``, and whether that is all of them (the search
    stops at READINGS_LIMIT readings of a part)."""
    reader = _Reader(text, schema)
    readings = reader.readings()
    return readings, not reader.truncated


def java_predicate_sql(text: str, schema: dict[str, DataType]) -> str:
    """The predicate Java printed as ``text``, in this project's SQL-like syntax."""
    return to_sql(parse_java_predicate(text, schema), schema)


class _Reader:
    def __init__(self, text: str, schema: dict[str, DataType]):
        self.text, self.schema = text, schema
        self.separators = [m.start() for m in re.finditer(re.escape(SEPARATOR), text)]
        self.nodes: dict[tuple[int, int], list] = {}
        self.sequences: dict[tuple[int, int, bool], list] = {}
        self.reasons: list[tuple[int, str]] = []  # (how far the leaf got, why it failed)
        self.truncated = False

    def readings(self) -> list[Predicate]:
        unique = {repr(r): r for r in self.node(0, len(self.text))}
        return list(unique.values())

    def why(self) -> str:
        if not self.reasons:
            return "it is not Function(field[, literals]) nor And([...]) / Or([...])"
        return max(self.reasons, key=lambda reason: reason[0])[1]

    def capped(self, found: list) -> list:
        self.truncated |= len(found) > READINGS_LIMIT
        return found[:READINGS_LIMIT]

    def separators_in(self, start: int, end: int) -> Iterator[int]:
        for at in self.separators[bisect.bisect_left(self.separators, start):]:
            if at + len(SEPARATOR) > end:
                return
            yield at

    # -- predicates ----------------------------------------------------------------------------

    def node(self, start: int, end: int) -> list[Predicate]:
        key = (start, end)
        if key not in self.nodes:
            self.nodes[key] = self._node(start, end)
        return self.nodes[key]

    def _node(self, start: int, end: int) -> list[Predicate]:
        text = self.text
        open_at = text.find("(", start, end)
        if open_at < 0 or text[end - 1:end] != ")" or end - start < 3:
            return []
        function = text[start:open_at]
        if function in COMPOUNDS:
            if text[open_at + 1:open_at + 2] != "[" or text[end - 2:end] != "])" or end - 2 <= open_at + 2:
                return []
            kind = COMPOUNDS[function]
            return [kind(children) for children in self.sequence(open_at + 2, end - 2)]
        operator = Operator.from_java_name(function)
        if operator is None:
            self.reasons.append((0, f"{function!r} is not a predicate function this project reads "
                                    f"({java_function_names()})"))
            return []
        return self.leaf(operator, open_at + 1, end - 1)

    def sequence(self, start: int, end: int, at_top: bool = True) -> list[tuple]:
        """The readings of ``text[start:end]`` as children separated by ", " (Java's ``PredicateBuilder``
        joins two or more predicates: a compound of one child is not read)."""
        key = (start, end, at_top)
        if key in self.sequences:
            return self.sequences[key]
        found = [(child,) for child in self.node(start, end)] if not at_top else []
        for cut in self.separators_in(start, end):
            if len(found) > READINGS_LIMIT:
                break
            heads = self.node(start, cut)
            if heads:
                found += [(h, *rest) for h in heads for rest in self.sequence(cut + len(SEPARATOR), end, False)]
        self.sequences[key] = self.capped(found)
        return self.sequences[key]

    def leaf(self, function: Operator, start: int, end: int) -> list[Predicate]:
        text = self.text
        found: list[Predicate] = []
        # Java prints ", " only before literals that print something: "Equal(name)" for one that prints empty
        cuts = [(cut, cut + len(SEPARATOR)) for cut in self.separators_in(start, end)
                if cut + len(SEPARATOR) < end] + [(end, end)]
        for field_end, literals_start in cuts:
            column = text[start:field_end]
            data_type = column_type(self.schema, column)
            if data_type is None:
                self.reasons.append((1, f"no column of the schema is named {column!r} "
                                        f"(it has: {', '.join(self.schema)})"))
                continue
            try:
                found += [Leaf(function, column, values)
                          for values in self.literals(function, column, data_type, literals_start, end)]
            except _NoReading as err:
                self.reasons.append((2, str(err)))
        return found

    # -- literals ------------------------------------------------------------------------------

    def literals(self, function: Operator, column: str, data_type: DataType, start: int, end: int) -> list[tuple]:
        """Every tuple of literals that ``text[start:end]`` prints. Java prints one literal bare,
        several as ``[a, b]``, and none, or one that prints empty, as nothing. ``PredicateBuilder``
        makes IN / NOT IN leaves of more than one literal only, so a bracketed list is read as
        its elements, and nothing as no literal."""
        body = self.text[start:end]
        if function.arity == 0:
            if body:
                raise _NoReading(f"{function.java_name} takes no literal")
            return [()]
        if not body:
            if function.arity is ANY:
                return [()]
            if data_type.is_string and function.arity == 1:
                return [("",)]
            raise _NoReading(f"{function.java_name}({column}) lacks its literal")
        found = []
        if function.arity != 1 and body.startswith("[") and body.endswith("]"):
            found = [values for values in self.elements(data_type, column, start + 1, end - 1)
                     if len(values) >= 2 and (function.arity is ANY or len(values) == function.arity)]
        if not found and function.arity != 2:
            found = [(java_literal(body, data_type, column),)]
        if not found:
            raise _NoReading(f"{body!r} is not two literals of column {column!r} ({data_type})")
        return found

    def elements(self, data_type: DataType, column: str, start: int, end: int) -> list[tuple]:
        """The readings of ``text[start:end]`` as literals separated by ", "."""
        text = self.text
        if not data_type.is_string:  # no other literal prints a ", "
            try:
                return [tuple(java_literal(part, data_type, column) for part in text[start:end].split(SEPARATOR))]
            except _NoReading:
                return []
        # from the last element back, the readings of the elements from each separator on
        cuts = [start] + [cut + len(SEPARATOR) for cut in self.separators_in(start, end)]
        tails: dict[int, list[tuple]] = {}
        for begin in reversed(cuts):
            found = [(text[begin:end],)]
            for cut in self.separators_in(begin, end):
                found += [(text[begin:cut], *rest) for rest in tails[cut + len(SEPARATOR)]]
                if len(found) > READINGS_LIMIT:
                    break
            tails[begin] = self.capped(found)
        return tails[start]


def java_function_names() -> str:
    """Every function name Java prints, for messages."""
    return ", ".join([*(op.java_name for op in Operator), *COMPOUNDS])


def java_literal(text: str, data_type: DataType, column: str) -> Any:
    """A literal as Java's ``toString`` printed it, converted to the column's type; _NoReading if
    it is not one. ``null`` is a null literal except in a string column, where it is the text."""
    if data_type.is_string:
        return text
    if text == "null":
        return None
    root = data_type.root
    value: bool | float | decimal.Decimal | str | int | None
    if data_type.is_binary:
        raise _NoReading(f"a BINARY literal prints as {text!r} (an array's identity), which does not say its bytes")
    if root == "BOOLEAN":
        value = {"true": True, "false": False}.get(text)
    elif root in ("FLOAT", "DOUBLE"):
        value = float(text) if _FLOATING.fullmatch(text) else None
    elif root == "DECIMAL":
        value = decimal.Decimal(text) if _DECIMAL.fullmatch(text) else None
    elif data_type.is_timestamp:
        value = text if _TIMESTAMP.fullmatch(text) else None
    else:  # integers; DATE (days) and TIME (millis of the day) are ints in Java too
        value = int(text) if _INTEGER.fullmatch(text) else None
    if value is None:
        raise _NoReading(f"{text!r} is not a literal of column {column!r} ({data_type})")
    try:
        return lit.convert(value, data_type, column)
    except UsageError as err:
        raise _NoReading(str(err)) from None
