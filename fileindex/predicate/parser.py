"""A SQL-like predicate syntax, parsed into :mod:`fileindex.predicate` trees, and printed back.

    c = 5 AND (s IN ('a', 'b') OR t IS NULL)      x BETWEEN 1 AND 9      NOT (a < 3)
    attrs['color'] = 'red'                        `my col` <> 'it''s'    f = -Infinity
    d = DATE '2024-01-31'                         ts >= TIMESTAMP '2024-01-31 12:00:00.123456789'

Literals: integers, decimals (1.5), floats in E notation (1.5E-7), NaN, Infinity, -Infinity;
strings in single quotes ('' for a quote; \\n \\t \\\\ \\' \\uXXXX \\UXXXXXXXX escapes); X'00ff' bytes;
TRUE, FALSE, NULL; DATE '...'; TIMESTAMP '...' (a UTC instant for LOCAL TIME ZONE columns, or with an offset,
'... 03:04:05+00:00' as ``read`` prints them; a TIMESTAMP column takes no offset).
Columns: identifiers or `backquoted names` (`` doubles a backquote), optionally ['key'] for the
map-key index column ``name[key]``. Keywords are case-insensitive.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import re
from collections.abc import Iterator
from typing import Any

from fileindex.errors import UsageError, printable
from fileindex.predicate import literals as lit
from fileindex.predicate.operators import ANY, Operator
from fileindex.predicate.tree import (
    Leaf,
    Predicate,
    PredicateVisitor,
    and_,
    in_,
    negate,
    not_in,
    or_,
    visit,
)
from fileindex.tokens import Token, TokenStream, closest_name
from fileindex.types import DataType, column_type, quote_identifier, type_name_meant

# (a string's and a quoted name's runs are matched whole and kept (possessive): a character at a time, a 10 MB
# literal took 2 GB of the regex engine's backtracking state, and runs that could give back backtracked
# exponentially on a string never closed)
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\]++|''|\\.)*+')
  | (?P<quoted>`(?:[^`]++|``)*+`)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><>|!=|<=|>=|=|<|>)
  | (?P<symbol>[(),\[\]-])
""", re.VERBOSE)

RESERVED = {"AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "TRUE", "FALSE"}  # never a bare column name
KEYWORDS = RESERVED | {"DATE", "TIMESTAMP", "NAN", "INFINITY", "X"}  # printed column names avoid these too
BARE_KEYWORDS = ["NULL", "TRUE", "FALSE", "NAN", "INFINITY"]  # literals written as a word alone

_ONE_CELL = str.maketrans("\t\n\r", "   ")


def _cells(text: str) -> int:
    """The columns ``text`` takes on a terminal: a wide character (CJK, emoji) two, a combining mark none."""
    import unicodedata  # (an error's caret only: its module is a shared library a cold read need not load, #54)

    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

# Parentheses and NOTs a predicate may nest. The parser and every visitor of the tree recurse once or more per
# level, so a deeper input would end in a RecursionError somewhere downstream; no real predicate comes near.
MAX_NESTING = 100


class _Parser(TokenStream):
    end_of_input = "unexpected end of the predicate"

    def __init__(self, text: str, schema: dict[str, DataType]):
        self.text = text  # for errors while tokenizing
        super().__init__(text, self._tokenize(text))
        self.schema = schema
        self.depth = 0  # the parentheses and NOTs open around the current token

    def _tokenize(self, text: str) -> list[Token]:
        tokens, position = [], 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:
                quoted = text[position + 1:].partition('"')[0] if text[position] == '"' else None
                hint = "" if quoted is None else f" (a string goes in single quotes: '{quoted}')"
                if text[position] in "&|":
                    hint = f" (write {'AND' if text[position] == '&' else 'OR'})"
                elif text[position] == "'":
                    hint = " (this string is never closed: end it with another ', and write '' for a ' inside it)"
                elif text[position].isalpha():
                    begins = re.search(r"\w*$", text[:position]).start()  # type: ignore[union-attr]
                    name = re.match(r"\w+", text[begins:]).group()  # type: ignore[union-attr]
                    hint = f" (a name with characters other than A-Z, 0-9 and _ goes in backquotes: `{name}`)"
                raise self.error(f"unexpected character {text[position]!r}{hint}", position)
            kind = match.lastgroup
            assert kind is not None, "every alternative of _TOKEN is a named group"
            if kind != "space":
                tokens.append((kind, match.group(), position))
            position = match.end()
        return tokens

    def describe_error(self, message: str, position: int) -> str:
        """The message (what is wrong, then what to write), the predicate, and a caret under the token at fault
        saying its position once. (Line breaks and tabs echo as spaces: the caret stays under its character.)"""
        echoed = self.text.translate(_ONE_CELL)
        return f"{printable(message)}\n  {echoed}\n  {' ' * _cells(echoed[:position])}^ position {position}"

    def literal_error(self, err: UsageError, start: int) -> UsageError:
        """``err`` about the literal that starts at ``start`` and ends at the last token read: the caret on the
        part of it at fault (a timestamp's offset), else on its start."""
        end = self.tokens[self.index - 1][2] + len(self.tokens[self.index - 1][1]) if self.index else start
        part = getattr(err, "part", None)
        found = self.text.rfind(part, start, end) if part else -1
        return self.error(str(err), found if found >= 0 else start)

    # -- grammar ---------------------------------------------------------------------------------

    def parse(self) -> Predicate:
        if not self.tokens:
            raise UsageError(f"the predicate is empty: write a condition, as {self.example_condition()}, or leave "
                             "--where out to read every row")
        result = self.disjunction()
        token = self.peek()
        if token is not None:
            if token[:2] == ("symbol", ")"):
                raise self.error("this ')' closes no '(': delete it, or write '(' where the conditions it groups "
                                 "begin")
            meant = closest_name(token[1].upper(), ["AND", "OR"]) if token[0] == "word" else None
            hint = f" (did you mean {meant}?)" if meant else ": join conditions with AND or OR" \
                if token[0] != "symbol" else ""
            raise self.error(f"unexpected {token[1]!r}{hint}")
        return result

    def disjunction(self) -> Predicate:
        parts = [self.conjunction()]
        while self.accept_word("OR"):
            self.expect_condition("OR")
            parts.append(self.conjunction())
        return or_(*parts)

    def conjunction(self) -> Predicate:
        parts = [self.negation()]
        while self.accept_word("AND"):
            self.expect_condition("AND")
            parts.append(self.negation())
        return and_(*parts)

    def negation(self) -> Predicate:
        if self.accept_word("NOT"):
            self.expect_condition("NOT")
            with self.nested():
                return negate(self.negation())
        if self.accept_symbol("("):
            opened = self.tokens[self.index - 1][2]
            self.expect_condition("(")
            with self.nested():
                inner = self.disjunction()
            if not self.accept_symbol(")"):
                raise self.unclosed(opened)
            return inner
        return self.comparison()

    def expect_condition(self, after: str) -> None:
        """The predicate ends, or a parenthesis closes, right after ``after`` (AND, OR, NOT, an opening
        parenthesis): say a condition is missing there, not merely that the input ended."""
        token = self.peek()
        if token is None or token[:2] == ("symbol", ")"):
            if after == "(":
                raise self.error("a condition is missing after '(': write one (as column = value) inside the "
                                 "parentheses that open", back=1)
            raise self.error(f"a condition is missing after {after}: write one there (as column = value), or delete "
                             f"the {after}", back=1)

    def expect_value(self, after: str, example: str) -> None:
        """The predicate ends, or a parenthesis closes, or AND or OR follows, right after ``after`` (an operator,
        IN's opening parenthesis or a comma of its list, BETWEEN or its AND), where a value goes: say the value is
        missing there (``example``: the condition written whole), with the caret on ``after``."""
        token = self.peek()
        if token is None or token[:2] in (("symbol", ")"), ("symbol", ",")) or \
                (token[0] == "word" and token[1].upper() in ("AND", "OR")):
            raise self.error(f"a value is missing after {after}: write one, as {example}, after the {after}", back=1)

    def unclosed(self, opened: int) -> UsageError:
        """A '(' at ``opened`` whose conditions end without ')': the caret on that '(' (its position said there)."""
        token = self.peek()
        if token is None:
            closed = self.text[opened:].rstrip() + ")"
            example = f", as {closed}" if len(closed) <= 60 else ""
            return self.error(f"this '(' is never closed: write ')' where the conditions it groups end{example}",
                              opened)
        return self.error(f"this '(' is not closed before {token[1]!r}: write ')' where the conditions it groups end, "
                          "or join another condition with AND or OR", opened)

    def example_condition(self) -> str:
        """A condition on the schema's first column a literal compares with, as an example of one."""
        for column, data_type in self.schema.items():
            if data_type.root not in ("MAP", "ARRAY", "ROW", "MULTISET", "VARIANT"):
                return f"{column_sql(str(column), self.schema)} = {_sample_value(data_type)}"
        return "c = 5"

    @contextlib.contextmanager
    def nested(self) -> Iterator[None]:
        """One more level of NOT or parentheses; past MAX_NESTING a one-line error (no caret: the text is long)."""
        if self.depth >= MAX_NESTING:
            position = self.tokens[self.index - 1][2]
            raise UsageError(f"the predicate is nested too deeply: more than {MAX_NESTING} levels of parentheses "
                             f"and NOT at position {position}; write it with fewer")
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def column(self) -> tuple[str, DataType, int]:
        kind, text, position = self.next()
        if kind == "quoted":
            name = text[1:-1].replace("``", "`")
        elif kind == "word" and text.upper() not in RESERVED:
            name = text
        else:
            raise self.error(f"expected a column name, found {text!r}", position)
        if self.accept_symbol("["):
            key_token = self.next()
            if key_token[0] != "string":
                raise self.error("expected a quoted map key, as in attrs['color']", key_token[2])
            self.expect_symbol("]")
            name = f"{name}[{self.string_value(key_token)}]"
        data_type = column_type(self.schema, name)
        if data_type is None:
            raise self.error(f"unknown column {name!r}{self.closest_column(name)}", position)
        return name, data_type, position

    def closest_column(self, name: str) -> str:
        return closest_column(name, [str(c) for c in self.schema])

    def comparison(self) -> Predicate:
        column, data_type, position = self.column()
        name, value = column_sql(column, self.schema), _sample_value(data_type)  # (for the messages below)
        token = self.peek()
        if token and token[0] == "op":
            self.next()
            following = self.peek()
            if following and following[0] == "op":
                raise self.two_operators(column, token, following)
            self.expect_value(token[1], f"{name} {token[1]} {value}")
            return Leaf(Operator.from_sql_symbol(token[1]), column, (self.converted(data_type, column),))
        if self.accept_word("IS"):
            negated = self.accept_word("NOT")
            if self.peek() is None:
                raise self.error(f"NULL is missing: write {name} IS NULL or {name} IS NOT NULL, with NULL after the "
                                 f"{'NOT' if negated else 'IS'}", back=1)
            self.expect_word("NULL")
            return Leaf(Operator.IS_NOT_NULL if negated else Operator.IS_NULL, column)
        negated = self.accept_word("NOT")
        keyword = "NOT IN" if negated else "IN"
        if self.accept_word("IN"):
            if self.peek() is None:
                raise self.error(f"a list is missing after {keyword}: write one, as {name} {keyword} ({value}, ...), "
                                 "after the IN", back=1)
            self.expect_symbol("(")
            if self.accept_symbol(")"):
                raise self.empty_in_list(column, negated)
            self.expect_value("'('", f"{name} {keyword} ({value}, ...)")
            values = [self.converted(data_type, column)]
            while self.accept_symbol(","):
                self.expect_value("','", f"{name} {keyword} ({value}, ...)")
                values.append(self.converted(data_type, column))
            if self.peek() is None:
                raise self.error(f"the {keyword} list is not closed: write ')' after its last value", back=1)
            self.expect_symbol(")")
            return not_in(column, values) if negated else in_(column, values)
        if self.accept_word("BETWEEN"):
            keyword = "NOT BETWEEN" if negated else "BETWEEN"
            self.expect_value("BETWEEN", f"{name} {keyword} LOW AND HIGH")
            low = self.converted(data_type, column)
            if self.peek() is None:
                raise self.error(f"AND and a high value are missing: write {name} {keyword} LOW AND HIGH, with AND "
                                 "after the low value", back=1)
            self.expect_word("AND")
            self.expect_value("AND", f"{name} {keyword} LOW AND HIGH")
            high = self.converted(data_type, column)
            return Leaf(Operator.NOT_BETWEEN if negated else Operator.BETWEEN, column, (low, high))
        token = self.peek()
        if token and token[0] == "word" and token[1].upper() in ("LIKE", "ILIKE", "RLIKE", "REGEXP", "GLOB"):
            raise self.error(f"{token[1].upper()} is not in the predicate syntax: "
                             "compare with =, <>, <, <=, >, >=, IN or BETWEEN")
        raise self.error("expected a comparison (=, <>, <, <=, >, >=), IS [NOT] NULL, [NOT] IN or [NOT] BETWEEN")

    def two_operators(self, column: str, first: Token, second: Token) -> UsageError:
        """``c == 1``, ``c = = 1``, ``c > = 1``: an operator where the literal goes; say which one was meant."""
        name = column_sql(column, self.schema)
        joined = first[1] + second[1]
        if second[2] == first[2] + len(first[1]) and joined == "==":
            return self.error("write = for equality, not ==", first[2])
        if joined in ("<>", "!=", "<=", ">="):
            return self.error(f"write {joined} without a space", first[2])
        if joined[::-1] in ("<>", "<=", ">=") and second[2] == first[2] + len(first[1]):
            return self.error(f"write {joined[::-1]}, not {joined} ({name} {joined[::-1]} VALUE)", first[2])
        twice = f"{first[1]} twice" if first[1] == second[1] else f"two operators ({first[1]} then {second[1]})"
        return self.error(f"{twice}: write one between the column and the value ({name} {first[1]} VALUE)", second[2])

    def empty_in_list(self, column: str, negated: bool) -> UsageError:
        """``c IN ()``: SQL has no empty list; say what to write instead."""
        name = column_sql(column, self.schema)
        if negated:
            return self.error(f"a NOT IN list takes one value or more: write {name} NOT IN (v1, v2, ...), or leave "
                              "the condition out (an empty list excludes nothing)", back=1)
        return self.error(f"an IN list takes one value or more: write {name} IN (v1, v2, ...), or {name} = v for one",
                          back=1)

    def converted(self, data_type: DataType, column: str) -> Any:
        token = self.peek()
        position = token[2] if token else len(self.text)
        value = self.literal()
        last = self.tokens[self.index - 1]
        try:
            return lit.convert(value, data_type, column, written=self.text[position:last[2] + len(last[1])])
        except lit.DateDaysError as err:
            low, high = lit.DATE_DAYS
            raise self.error(f"{err.days} is not a DATE: write DATE 'YYYY-MM-DD', as DATE "
                             f"'{lit.spelt_date(err.days).isoformat()}' (a whole number is taken as days since "
                             f"1970-01-01, as Paimon stores a DATE: {low} to {high})", position) from None
        except UsageError as err:
            raise self.literal_error(err, position) from None

    def refuse_a_number_run_on(self, text: str, position: int) -> None:
        """A number token followed at once by another number or a word (``1.2.3``, ``1e``): one number written
        wrong, not two conditions."""
        following = self.peek()
        if following is not None and following[0] in ("number", "word") and following[2] == position + len(text):
            written = re.match(r"[\w.+-]+", self.text[position:]).group()  # type: ignore[union-attr]
            raise self.error(f"{written!r} is not a number: write digits with at most one '.' and an exponent "
                             "with digits (as 1.5 or 1.5e3)", position)

    def literal(self) -> Any:
        negative = self.accept_symbol("-")
        if negative and self.peek() is None:
            raise self.error("a number is missing after '-': write one after the '-'", back=1)
        kind, text, position = self.next()
        if kind == "number":
            self.refuse_a_number_run_on(text, position)
            signed = "-" + text if negative else text  # keeps -0.0 negative
            if "." in text or "e" in text.lower():
                return decimal.Decimal(signed)  # exact, so the column's type decides rounding and range
            return int(signed)
        if kind == "word" and text.upper() in ("NAN", "INFINITY"):
            value = float("nan") if text.upper() == "NAN" else float("inf")
            return -value if negative else value
        if negative:
            raise self.error("expected a number after '-'", position)
        if kind == "string":
            return self.string_value((kind, text, position))
        if kind == "word":
            word = text.upper()
            if word == "NULL":
                return None
            if word in ("TRUE", "FALSE"):
                return word == "TRUE"
            if word in ("DATE", "TIMESTAMP", "X"):
                token = self.next()
                if token[0] != "string":
                    raise self.error(f"expected a quoted value after {word}", token[2])
                body = self.string_value(token)
                if word == "DATE":
                    try:
                        return dt.date.fromisoformat(body)
                    except ValueError:
                        raise self.error(f"{body!r} is not a date: write DATE 'YYYY-MM-DD'", token[2]) from None
                if word == "X":
                    try:
                        return bytes.fromhex(body)
                    except ValueError:
                        raise self.error(f"{body!r} is not hexadecimal", token[2]) from None
                try:
                    return lit.parse_timestamp_text(body)
                except UsageError as err:
                    raise self.literal_error(err, token[2]) from None
        raise self.error(f"expected a literal, found {text!r}{self._literal_hint(kind, text)}", position)

    def _literal_hint(self, kind: str, text: str) -> str:
        """A word where a literal goes: a literal's keyword misspelt (``DAT '2024-01-01'``, ``NUL``), a column
        (compared with a literal only), or a string unquoted."""
        if kind != "word":
            return ""
        following = self.peek()
        if following is not None and following[0] == "string":  # a type's name before a quoted value
            meant = type_name_meant(text.upper())
            if meant is not None and meant.startswith(("DATE", "TIMESTAMP")):
                return f" (did you mean {meant.partition('_')[0]} {following[1]}?)"
            if meant is not None:
                number = _TOKEN.fullmatch(following[1][1:-1].lstrip("+-"))
                alone = following[1][1:-1] if number and number.lastgroup == "number" else following[1]
                return f" (only DATE and TIMESTAMP go before a quoted value: write a {meant} value alone, {alone})"
        elif (meant := closest_name(text.upper(), BARE_KEYWORDS)) is not None and text not in self.schema:
            return f" (did you mean {meant}? or, for a string, '{text}' in single quotes)"
        if text in self.schema:
            return f" ({text} is a column: a predicate compares a column with a literal)"
        return f" (a string goes in single quotes: '{text}')"

    def string_value(self, token: Token) -> str:
        body, position = token[1][1:-1], token[2] + 1

        def unescaped(match: re.Match) -> str:
            if match.group() == "''":  # '' inside quotes
                return "'"
            for escape, width in (("u", 4), ("U", 8)):
                digits = match.group(escape)
                if digits is None:
                    continue
                if len(digits) == width and all(c in "0123456789abcdefABCDEF" for c in digits) and \
                        int(digits, 16) <= 0x10FFFF:
                    return chr(int(digits, 16))
                raise self.error(f"\\{escape} takes {width} hex digits of a code point", position + match.start())
            escape = match.group("other")
            if escape in _ESCAPED:
                return _ESCAPED[escape]
            raise self.error(f"unknown escape \\{escape} (use \\n \\t \\\\ \\' \\uXXXX \\UXXXXXXXX)",
                             position + match.start())

        return _join_surrogates(_ESCAPE.sub(unescaped, body))


# inside a string: a doubled quote, or an escape (\\u and \\U with the characters that should be their hex digits)
_ESCAPE = re.compile(r"''|\\(?:u(?P<u>.{0,4})|U(?P<U>.{0,8})|(?P<other>.))", re.S)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"}
_SAMPLES = {"DATE": "DATE '2024-01-31'", "BOOLEAN": "TRUE", "TIME": "'12:00:00'"}


def _sample_value(data_type: DataType) -> str:
    """A literal of ``data_type`` as an example in a message saying a value is missing."""
    if data_type.is_timestamp:
        return "TIMESTAMP '2024-01-31 12:00:00'"
    if data_type.is_string:
        return "'text'"
    if data_type.is_binary:
        return "X'00ff'"
    return _SAMPLES.get(data_type.root, "5")


def closest_column(name: str, names: list[str], *, as_written: bool = False) -> str:
    """A hint for an unknown column ``name``: the same name in another case, or the known names and the closest.
    ``as_written``: names are given as they are (``--select``, ``--order-by``), not as a predicate quotes them."""
    def show(column: str) -> str:  # (a plain name bare; as written, any other in Python's quotes)
        quoted = quote_identifier(column)
        return repr(column) if as_written and quoted != column else quoted

    if as_written and len(name) > 2 and name[0] == name[-1] == "`" and name[1:-1].replace("``", "`") in names:
        return f" (write the name as it is, without backquotes: {name[1:-1].replace('``', '`')!r})"
    by_case = [c for c in names if c.lower() == name.lower()]
    if by_case:
        return f" (did you mean {show(by_case[0])}? column names are case-sensitive)"
    close = closest_name(name, names)
    known = ", ".join(show(c) for c in names)
    return f" ({'did you mean ' + show(close) + '? ' if close else ''}the schema has: {known})"


_HIGH_SURROGATE = re.compile("[\ud800-\udbff]")


def _join_surrogates(text: str) -> str:
    """'\\ud83d\\ude00' written as two escapes is one character, as in Java."""
    if not _HIGH_SURROGATE.search(text):
        return text
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def parse_predicate(text: str, schema: dict[str, DataType]) -> Predicate:
    """Parse ``text``; literals are converted to their column's type. Raises UsageError with a caret."""
    return _Parser(text, schema).parse()


# ------------------------------------------------------------------------------------------ printing

def column_sql(column: str, data_types: dict[str, DataType] | None = None) -> str:
    """A column in the predicate syntax: ``m[k]`` as a map key, unless ``data_types`` has a column of that name."""
    if column.endswith("]") and "[" in column and not (data_types and column in data_types):
        name, key = column[:column.index("[")], column[column.index("[") + 1:-1]
        return f"{quote_identifier(name)}[{lit.quote_string(key)}]"
    return quote_identifier(column) if column.upper() not in KEYWORDS else f"`{column}`"


def to_sql(predicate: Predicate, data_types: dict[str, DataType] | None = None) -> str:
    """The predicate in the syntax above; ``parse_predicate(to_sql(p), schema) == p``."""
    return visit(predicate, _Sql(data_types))[0]


class _Sql(PredicateVisitor[tuple[str, bool]]):
    """(the text, whether it is an AND or OR, which a compound parent puts in parentheses)."""

    def __init__(self, data_types: dict[str, DataType] | None):
        self.data_types = data_types

    def leaf(self, leaf: Leaf) -> tuple[str, bool]:
        column = column_sql(leaf.column, self.data_types)
        values = [_literal(v, leaf.column, self.data_types) for v in leaf.literals]
        operator = leaf.function
        if operator.arity is ANY:
            return f"{column} {operator.sql} ({', '.join(values)})", False
        shown = values[:operator.arity]  # BETWEEN a AND b
        return (f"{column} {operator.sql} {' AND '.join(shown)}" if shown else f"{column} {operator.sql}"), False

    def and_(self, children: Iterator[tuple[str, bool]]) -> tuple[str, bool]:
        return " AND ".join(_grouped(child) for child in children), True

    def or_(self, children: Iterator[tuple[str, bool]]) -> tuple[str, bool]:
        return " OR ".join(_grouped(child) for child in children), True


def _grouped(child: tuple[str, bool]) -> str:
    text, compound = child
    return f"({text})" if compound else text


def _literal(value: Any, column: str, data_types: dict[str, DataType] | None) -> str:
    data_type = column_type(data_types, column) if data_types else None
    if data_type is not None and data_type.root == "DATE" and isinstance(value, int):
        return f"DATE '{(dt.date(1970, 1, 1) + dt.timedelta(days=value)).isoformat()}'"
    if data_type is not None and data_type.root == "TIME" and isinstance(value, int):
        seconds, millis = divmod(value, 1000)
        return f"'{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{millis:03d}'"
    return lit.sql_literal(value)
