"""Paimon data types: the type model and a parser for Paimon's type strings.

``parse_type("DECIMAL(10, 2) NOT NULL")``, ``parse_type("MAP<STRING, INT>")``,
``parse_type("TIMESTAMP(6) WITH LOCAL TIME ZONE")`` (also spelled ``TIMESTAMP_LTZ(6)``).
Type names are case-insensitive; defaults follow Paimon (``TIMESTAMP`` = precision 6,
``TIME`` = 0, ``DECIMAL`` = (10, 0), ``CHAR`` = 1, ``VARCHAR``/``STRING`` = 2147483647).
"""
from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from fileindex.frozen import field, frozen, replace

from fileindex.errors import UsageError
from fileindex.tokens import Token, TokenStream, closest_name

MAX_LENGTH = 2147483647

INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
NUMERIC_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
STRINGS = ("CHAR", "VARCHAR")
BINARIES = ("BINARY", "VARBINARY")
TIMESTAMPS = ("TIMESTAMP", "TIMESTAMP_LTZ")


@frozen
class DataType:
    root: str  # canonical Paimon name: INT, VARCHAR, TIMESTAMP_LTZ, DECIMAL, MAP, ...
    nullable: bool = True
    length: int | None = None  # CHAR, VARCHAR, BINARY, VARBINARY
    precision: int | None = None  # DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ
    scale: int | None = None  # DECIMAL
    children: tuple[DataType, ...] = ()  # ARRAY: element; MAP/MULTISET: key, value; ROW: fields
    field_names: tuple[str, ...] = field(default=())  # ROW

    @property
    def is_string(self) -> bool:
        return self.root in STRINGS

    @property
    def is_binary(self) -> bool:
        return self.root in BINARIES

    @property
    def is_timestamp(self) -> bool:
        return self.root in TIMESTAMPS

    @property
    def required_precision(self) -> int:
        """The precision of a DECIMAL, TIME or TIMESTAMP type (every constructor of one sets it)."""
        if self.precision is None:
            raise UsageError(f"{self.root} has no precision: give {self.root}(p)")
        return self.precision

    @property
    def required_scale(self) -> int:
        """The scale of a DECIMAL type (every constructor of one sets it)."""
        if self.scale is None:
            raise UsageError(f"{self.root} has no scale: give {self.root}(p, s)")
        return self.scale

    @property
    def is_nano_timestamp(self) -> bool:
        """A TIMESTAMP with nanoseconds (p > 6): Java answers REMAIN to value predicates on it (apache/paimon #9654)."""
        return self.is_timestamp and self.required_precision > 6

    def not_null(self) -> DataType:
        return replace(self, nullable=False)

    def __str__(self) -> str:
        return self.sql()

    def sql(self) -> str:
        if self.root == "VARCHAR" and self.length == MAX_LENGTH:
            text = "STRING"
        elif self.root == "VARBINARY" and self.length == MAX_LENGTH:
            text = "BYTES"
        elif self.root in STRINGS + BINARIES:
            text = f"{self.root}({self.length})"
        elif self.root == "DECIMAL":
            text = f"DECIMAL({self.precision}, {self.scale})"
        elif self.root in ("TIME", "TIMESTAMP"):
            text = f"{self.root}({self.precision})"
        elif self.root == "TIMESTAMP_LTZ":
            text = f"TIMESTAMP({self.precision}) WITH LOCAL TIME ZONE"
        elif self.root == "ARRAY":
            text = f"ARRAY<{self.children[0].sql()}>"
        elif self.root in ("MAP", "MULTISET"):
            text = f"{self.root}<{', '.join(c.sql() for c in self.children)}>"
        elif self.root == "ROW":
            pairs = zip(self.field_names, self.children, strict=True)
            fields = ", ".join(f"{quote_identifier(n)} {t.sql()}" for n, t in pairs)
            text = f"ROW<{fields}>"
        else:
            text = self.root
        return text if self.nullable else f"{text} NOT NULL"


def quote_identifier(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return "`" + name.replace("`", "``") + "`"


_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|(.))")


class _Tokens(TokenStream):
    end_of_input = "unexpected end of type"

    def __init__(self, text: str):
        items: list[Token] = []
        pos = 0
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            if match is None or match.end() == pos:
                break
            quoted, word, number, other = match.groups()
            start = match.start(match.lastindex or 0)
            if quoted is not None:
                items.append(("quoted", quoted[1:-1].replace("``", "`"), start))
            elif word is not None:
                items.append(("word", word, start))
            elif number is not None:
                items.append(("number", number, start))
            elif other is not None and not other.isspace():
                items.append(("symbol", other, start))
            pos = match.end()
        super().__init__(text, items)

    def describe_error(self, message: str, position: int) -> str:
        return f"{message} at position {position} in type {self.text!r}"

    def number(self) -> int:
        kind, value, _ = self.next()
        if kind != "number":
            raise self.error(f"expected a number, found {value!r}", back=1)
        return int(value)


@functools.lru_cache(maxsize=4096)  # (a type is immutable: every schema read parses the same few strings)
def parse_type(text: str) -> DataType:
    """Parse one Paimon type string; raises UsageError naming the position of the problem."""
    tokens = _Tokens(text)
    result = _parse(tokens)
    extra = tokens.peek()
    if extra is not None:
        raise tokens.error(f"unexpected {extra[1]!r}")
    return result


def _optional_args(tokens: _Tokens, count: int) -> list[int]:
    if not tokens.accept_symbol("("):
        return []
    values = [tokens.number()]
    while len(values) < count and tokens.accept_symbol(","):
        values.append(tokens.number())
    tokens.expect_symbol(")")
    return values


_SIMPLE = {
    "BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT", "INTEGER": "INT",
    "BIGINT": "BIGINT", "FLOAT": "FLOAT", "REAL": "FLOAT", "DOUBLE": "DOUBLE", "DATE": "DATE",
    "VARIANT": "VARIANT", "BLOB": "BLOB",
}


_OTHER_NAMES = {  # other systems' names for Paimon's types, as a user may write them
    "LONG": "BIGINT", "INT64": "BIGINT", "INT32": "INT", "INT16": "SMALLINT", "INT8": "TINYINT", "BYTE": "TINYINT",
    "SHORT": "SMALLINT", "BOOL": "BOOLEAN", "TEXT": "STRING", "STR": "STRING", "UTF8": "STRING", "FLOAT64": "DOUBLE",
    "FLOAT32": "FLOAT", "DATETIME": "TIMESTAMP", "BINARY_STRING": "BYTES", "BYTEA": "BYTES",
}
_TYPE_NAMES = [*_SIMPLE, "STRING", "BYTES", "CHAR", "VARCHAR", "BINARY", "VARBINARY", "DECIMAL", "TIME", "TIMESTAMP",
               "TIMESTAMP_LTZ", "ARRAY", "MULTISET", "MAP", "ROW"]


def type_name_meant(name: str) -> str | None:
    """The Paimon type name ``name`` (upper case) likely means: itself, another system's name for it, or the one
    it misspells."""
    return _OTHER_NAMES.get(name) or closest_name(name, _TYPE_NAMES)


def _type_meant(name: str) -> str:
    """``; did you mean T?`` for a type name Paimon does not have: another system's name for it, or a misspelling."""
    close = type_name_meant(name)
    return f"; did you mean {close}?" if close else ""


def _parse(tokens: _Tokens) -> DataType:
    kind, word, _ = tokens.next()
    if kind != "word":
        raise tokens.error(f"expected a type name, found {word!r}", back=1)
    name = word.upper()
    if name == "DOUBLE":
        tokens.accept_word("PRECISION")
    if name in _SIMPLE:
        result = DataType(_SIMPLE[name])
    elif name == "STRING":
        result = DataType("VARCHAR", length=MAX_LENGTH)
    elif name == "BYTES":
        result = DataType("VARBINARY", length=MAX_LENGTH)
    elif name in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        default = 1 if name in ("CHAR", "BINARY") else MAX_LENGTH
        result = DataType(name, length=_arg(tokens, _optional_args(tokens, 1), 0, default, name, 1, MAX_LENGTH))
    elif name in ("DECIMAL", "DEC", "NUMERIC"):
        args = _optional_args(tokens, 2)
        precision = _arg(tokens, args, 0, 10, "DECIMAL precision", 1, 38)
        scale = _arg(tokens, args, 1, 0, "DECIMAL scale", 0, precision)
        result = DataType("DECIMAL", precision=precision, scale=scale)
    elif name == "TIME":
        precision = _arg(tokens, _optional_args(tokens, 1), 0, 0, "TIME precision", 0, 9)
        _skip_without_time_zone(tokens)
        result = DataType("TIME", precision=precision)
    elif name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        precision = _arg(tokens, _optional_args(tokens, 1), 0, 6, "TIMESTAMP precision", 0, 9)
        root = name
        if name == "TIMESTAMP" and tokens.accept_word("WITH"):
            if not (tokens.accept_word("LOCAL") and tokens.accept_word("TIME") and tokens.accept_word("ZONE")):
                raise tokens.error("expected WITH LOCAL TIME ZONE")
            root = "TIMESTAMP_LTZ"
        elif name == "TIMESTAMP":
            _skip_without_time_zone(tokens)
        result = DataType(root, precision=precision)
    elif name == "ARRAY":
        tokens.expect_symbol("<")
        element = _parse(tokens)
        tokens.expect_symbol(">")
        result = DataType("ARRAY", children=(element,))
    elif name in ("MAP", "MULTISET"):
        tokens.expect_symbol("<")
        key = _parse(tokens)
        if name == "MAP":
            tokens.expect_symbol(",")
            value = _parse(tokens)
            children: tuple[DataType, ...] = (key, value)
        else:
            children = (key,)
        tokens.expect_symbol(">")
        result = DataType(name, children=children)
    elif name == "ROW":
        result = _parse_row(tokens)
    else:
        raise tokens.error(f"unknown type {word!r}{_type_meant(name)}", back=1)
    if tokens.accept_word("NOT"):
        if not tokens.accept_word("NULL"):
            raise tokens.error("expected NULL after NOT")
        result = result.not_null()
    else:
        tokens.accept_word("NULL")
    return result


def _skip_without_time_zone(tokens: _Tokens) -> None:
    if tokens.accept_word("WITHOUT"):
        if not (tokens.accept_word("TIME") and tokens.accept_word("ZONE")):
            raise tokens.error("expected WITHOUT TIME ZONE")


def _parse_row(tokens: _Tokens) -> DataType:
    opener = "<" if tokens.accept_symbol("<") else "(" if tokens.accept_symbol("(") else None
    if opener is None:
        raise tokens.error("expected '<' after ROW")
    closer = ">" if opener == "<" else ")"
    names, types = [], []
    if not tokens.accept_symbol(closer):
        while True:
            kind, name, _ = tokens.next()
            if kind not in ("word", "quoted"):
                raise tokens.error(f"expected a field name, found {name!r}", back=1)
            names.append(name)
            types.append(_parse(tokens))
            if tokens.accept_symbol(closer):
                break
            tokens.expect_symbol(",")
    return DataType("ROW", children=tuple(types), field_names=tuple(names))


def _arg(tokens: _Tokens, args: list[int], i: int, default: int, what: str, low: int, high: int) -> int:
    """Argument ``i`` of a parameterised type just read (``default`` when absent), within [low, high]."""
    if i >= len(args):
        return default
    if not low <= args[i] <= high:  # the error points at the argument: "(a, b)" ends 2 tokens after each
        raise tokens.error(f"{what} {args[i]} is out of range [{low}, {high}]", back=2 * (len(args) - i))
    return args[i]


SCHEMA_FORM = 'a schema is "name TYPE, ...", e.g. "id INT, name STRING, attrs MAP<STRING, INT>"'


class _SchemaTokens(_Tokens):
    end_of_input = "unexpected end of the schema"

    def describe_error(self, message: str, position: int) -> str:
        return f"{message} at position {position} of the schema {self.text!r}: {SCHEMA_FORM}"


def parse_schema(text: str) -> dict[str, DataType]:
    """``"c INT, s STRING, `my col` MAP<STRING, INT>"`` → column name → type, in order. A UsageError says which
    part does not parse, and what a schema looks like."""
    tokens = _SchemaTokens(text)
    schema: dict[str, DataType] = {}
    while tokens.peek() is not None:
        kind, name, _ = tokens.next()
        if kind not in ("word", "quoted"):
            raise tokens.error(f"expected a column name, found {name!r}", back=1)
        if name in schema:
            raise tokens.error(f"column {name!r} appears twice", back=1)
        following = tokens.peek()
        if following is None or following[:2] == ("symbol", ","):
            typed = kind == "word" and name.upper() in {*_TYPE_NAMES, "INTEGER"}
            if typed:
                raise tokens.error(f"{name} is a type: name its column first", back=1)
            raise tokens.error(f"column {quote_identifier(name)} has no type")
        try:
            schema[name] = _parse(tokens)
        except UsageError as err:
            raise UsageError(f"column {quote_identifier(name)}: {err}") from None
        following = tokens.peek()
        if following is None:
            break
        if following[:2] != ("symbol", ","):
            raise tokens.error(f"expected ',' after column {quote_identifier(name)}'s type, found {following[1]!r}")
        tokens.next()
        if tokens.peek() is None:
            raise UsageError(f"the schema {text!r} ends in a comma: remove it, or name the next column after it")
    if not schema:
        raise UsageError(f"the schema {text!r} names no column: {SCHEMA_FORM}")
    return schema


def column_type(schema: Mapping[str, DataType], column: str) -> DataType | None:
    """The type a container column's index was built for; ``m[k]`` is map ``m``'s value type."""
    if column in schema:
        return schema[column]
    found = map_of(schema, column)
    return found[1].children[1] if found else None


def map_of(schema: Mapping[str, DataType], column: str) -> tuple[str, DataType] | None:
    """For ``m[k]``, a value of map ``m`` in ``schema``: ``m`` and its type; else None."""
    if column.endswith("]"):  # a map's name or key may hold brackets: try every split
        for at in (i for i, ch in enumerate(column) if ch == "["):
            parent = schema.get(column[:at])
            if parent is not None and parent.root == "MAP":
                return column[:at], parent
    return None
