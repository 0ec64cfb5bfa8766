"""Predicate syntax: print → parse round trips, NOT push-down, and a message for every error."""
import datetime as dt
import math
from decimal import Decimal

import pytest
from hypothesis import given
from hostile import python
from hypothesis import strategies as st

from fileindex.errors import UsageError
from fileindex.predicate.literals import DATE_DAYS, parse_timestamp_text, timestamp_text
from fileindex.predicate.parser import parse_predicate, to_sql
from fileindex.predicate.tree import And, Leaf, Or, in_, negate, not_in
from fileindex.types import parse_schema
from fileindex.values import Timestamp, float32

SCHEMA = parse_schema("i INT, b BIGINT, s STRING, f FLOAT, x DOUBLE, d DATE, t TIMESTAMP(9), "
                      "z TIMESTAMP(3) WITH LOCAL TIME ZONE, n DECIMAL(10, 3), ok BOOLEAN, `odd ``name`` ` INT, "
                      "attrs MAP<STRING, STRING>, `and` INT, tm TIME(3), raw BYTES")

LITERALS = {
    "i": st.integers(-2**31, 2**31 - 1),
    "b": st.integers(-2**63, 2**63 - 1),
    "s": st.text(),
    "f": st.floats(width=32, allow_nan=False).map(float32),
    "x": st.floats(allow_nan=False),
    "d": st.integers(-700000, 2900000),
    "t": st.builds(Timestamp, st.integers(-62135596800000, 253402300799999), st.integers(0, 999999)),
    "z": st.builds(Timestamp, st.integers(-62135596800000, 253402300799999), st.just(0)),
    "n": st.integers(-10**9, 10**9).map(lambda v: Decimal(v).scaleb(-3)),
    "ok": st.booleans(),
    "odd `name` ": st.integers(-5, 5),
    "attrs[k'ey]": st.text(max_size=5),
    "and": st.integers(-5, 5),
    "tm": st.integers(0, 86399999),
    "raw": st.binary(max_size=6),
}


@st.composite
def leaves(draw):
    column = draw(st.sampled_from(sorted(LITERALS)))
    value = LITERALS[column]
    function = draw(st.sampled_from(["eq", "neq", "lt", "lte", "gt", "gte", "is_null", "is_not_null", "between",
                                     "not_between", "in", "not_in"]))
    if function in ("is_null", "is_not_null"):
        return Leaf(function, column)
    if function in ("between", "not_between"):
        return Leaf(function, column, (draw(value), draw(value)))
    if function in ("in", "not_in"):
        values = draw(st.lists(value, min_size=21, max_size=25))  # (an empty list has no text: IN () is refused)
        return Leaf(function, column, tuple(values))
    return Leaf(function, column, (draw(value),))


def trees():
    return st.recursive(leaves(), lambda children: st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda cs: _flat(And, cs)),
        st.lists(children, min_size=2, max_size=3).map(lambda cs: _flat(Or, cs))), max_leaves=6)


def _flat(kind, children):
    flat = []
    for child in children:
        flat.extend(child.children if isinstance(child, kind) else [child])
    return kind(tuple(flat))


@given(trees())
def test_print_then_parse_round_trips(tree):
    text = to_sql(tree, SCHEMA)
    assert parse_predicate(text, SCHEMA) == tree


@given(trees())
def test_not_is_pushed_to_the_leaves(tree):
    text = to_sql(tree, SCHEMA)
    assert parse_predicate(f"NOT ({text})", SCHEMA) == negate(tree)
    assert negate(negate(tree)) == tree


def test_special_floats_and_escapes():
    parsed = parse_predicate("x = NaN OR x = -Infinity OR x = -0.0 OR x = 1.5E-7", SCHEMA)
    values = [leaf.literals[0] for leaf in parsed.children]
    assert math.isnan(values[0]) and values[1] == -math.inf and math.copysign(1, values[2]) == -1
    assert values[3] == 1.5e-7
    text = parse_predicate(r"s = 'a''b\n\t\\\'\u00e9\U0001F600\u0000' OR s = '\ud83d\ude00'", SCHEMA)
    assert [c.literals[0] for c in text.children] == ["a'b\n\t\\'é😀\u0000", "😀"]


def test_in_lists_follow_predicate_builder():
    assert parse_predicate("i IN (1, 2)", SCHEMA) == in_("i", [1, 2]) == Or((Leaf("eq", "i", (1,)),
                                                                              Leaf("eq", "i", (2,))))
    many = list(range(21))
    assert parse_predicate(f"i IN ({', '.join(map(str, many))})", SCHEMA) == Leaf("in", "i", tuple(many))
    assert parse_predicate("i NOT IN (1, 2)", SCHEMA) == not_in("i", [1, 2]) == And(
        (Leaf("neq", "i", (1,)), Leaf("neq", "i", (2,))))


@pytest.mark.parametrize("text, said", [
    ("i IN ()", "an IN list takes one value or more: write i IN (v1, v2, ...), or i = v for one"),
    ("s NOT IN ( )", "a NOT IN list takes one value or more: write s NOT IN (v1, v2, ...), or leave the condition "
                     "out (an empty list excludes nothing)")])
def test_an_empty_in_list_is_refused_saying_what_to_write(text, said):
    with pytest.raises(UsageError) as raised:
        parse_predicate(text, SCHEMA)
    assert str(raised.value).splitlines()[0] == said


def test_columns_and_literal_forms():
    assert parse_predicate("attrs['color'] = 'red'", SCHEMA) == Leaf("eq", "attrs[color]", ("red",))
    assert parse_predicate("`odd ``name`` ` = 1", SCHEMA) == Leaf("eq", "odd `name` ", (1,))
    assert parse_predicate("`and` = 1 and ok = true", SCHEMA) == And((Leaf("eq", "and", (1,)),
                                                                      Leaf("eq", "ok", (True,))))
    assert parse_predicate("d = DATE '1970-01-02'", SCHEMA) == Leaf("eq", "d", (1,))
    assert parse_predicate("tm = '00:00:01.5'", SCHEMA) == Leaf("eq", "tm", (1500,))
    assert parse_predicate("raw = X'00ff'", SCHEMA) == Leaf("eq", "raw", (b"\x00\xff",))
    assert parse_predicate("n = 1.5", SCHEMA) == Leaf("eq", "n", (Decimal("1.500"),))
    stamp = parse_predicate("t = TIMESTAMP '0001-01-01 00:00:00.000000001'", SCHEMA).literals[0]
    assert timestamp_text(stamp) == "0001-01-01 00:00:00.000000001"


@given(st.integers(-62135596800000, 253402300799999), st.integers(0, 999999))
def test_timestamp_text_round_trips(millis, nanos):
    stamp = Timestamp(millis, nanos)
    assert parse_timestamp_text(timestamp_text(stamp)) == stamp
    if nanos % 1000 == 0:
        as_datetime = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=millis, microseconds=nanos // 1000)
        expected = as_datetime.isoformat(sep=" ")
        if "." in expected:
            expected = expected.rstrip("0").rstrip(".")
        assert timestamp_text(stamp) == expected


@pytest.mark.parametrize("text, message", [
    ("", "empty"),
    ("nope = 1", "unknown column 'nope'"),
    ("I = 1", "unknown column 'I' (did you mean i? column names are case-sensitive)"),
    ("atrs['k'] = 'v'", "did you mean attrs?"),
    ("i == 1", "write = for equality, not =="),
    ("i = 2147483648", "out of range (it holds -2147483648 to 2147483647)"),
    ("b = -9223372036854775809", "out of range (it holds -9223372036854775808 to 9223372036854775807)"),
    ("i = 'x'", "does not fit column i of type INT"),
    ("i = 2147483648", "does not fit column i"),
    ("i = 1.5", "does not fit column i"),
    ("f = 1e39", "does not fit column f of type FLOAT: out of range"),
    ("f = -3.4028236e38", "does not fit column f of type FLOAT: out of range"),
    ("x = 1e309", "does not fit column x of type DOUBLE: out of range"),
    ("x = -2e400", "does not fit column x of type DOUBLE: out of range"),
    ("n = 10000000.0005", "out of range (it holds -9999999.999 to 9999999.999)"),  # (1.2345: by value)
    ("n = 12345678.9", "does not fit column n of type DECIMAL(10, 3): out of range"),
    ("ok = 1", "TRUE or FALSE"),
    ("s = 5", "string in single quotes"),
    ("d = DATE '2024-13-01'", "not a date"),
    ("t = TIMESTAMP '2024-01-01 25:00:00'", "not a timestamp"),
    ("t = TIMESTAMP '2024-01-01 00:00:00.1234567891'", "1 to 9 digits"),
    ("s = 'open", "unexpected character"),
    ("s = 'a\\q'", "unknown escape"),
    ("s = '\\u12'", "4 hex digits"),
    ("i = 1 AND", "a condition is missing after AND"),
    ("(i = 1", "this '(' is never closed"),
    ("i = 1 i = 2", "unexpected 'i'"),
    ("i ~ 1", "unexpected character '~'"),
    ("i LIKE 1", "LIKE is not in the predicate syntax"),
    ("i SIMILAR 1", "expected a comparison"),
    ("s['k'] = 'v'", "unknown column 's[k]'"),
    ("attrs[color] = 'v'", "quoted map key"),
    ("i = -'x'", "number after '-'"),
    ("raw = X'zz'", "not hexadecimal"),
    ("tm = '25:00'", "HH:MM:SS"),
])
def test_every_error_says_what_and_where(text, message):
    with pytest.raises(UsageError) as info:
        parse_predicate(text, SCHEMA)
    assert message in str(info.value)
    assert "position" in str(info.value) or "empty" in str(info.value)


@pytest.mark.parametrize("days, spelt", [(20240101, "datetime.date(2024, 1, 1) or '2024-01-01'"),
                                         (DATE_DAYS[1] + 1, "datetime.date(2024, 1, 31)"),
                                         (DATE_DAYS[0] - 1, "datetime.date(2024, 1, 31)")])
def test_a_whole_number_beyond_a_dates_days_is_refused_however_the_literal_comes(days, spelt):
    """A DATE's literal as a whole number is days since 1970-01-01; beyond a DATE's days (20240101, a date written
    as digits) it would match no row: refused by the literal conversion, so a predicate built in code (an engine's
    pushdown, a JSON predicate, Java's recorded text) is refused as the parser refuses it, saying what to give."""
    from fileindex.predicate.literals import DateDaysError, convert
    from fileindex.reference.predicate_json import predicate_from_json

    refusal = r"literal -?\d+ does not fit column d of type DATE: a whole number is days since 1970-01-01 " \
              r"\(-719162 to 2932896\); give the date itself"
    with pytest.raises(DateDaysError, match=refusal) as err:
        convert(days, SCHEMA["d"], "d")
    assert err.value.days == days and spelt in str(err.value)
    with pytest.raises(UsageError, match="does not fit column d of type DATE"):
        predicate_from_json({"function": "Equal", "column": "d", "type": "DATE", "literals": [days]}, SCHEMA)
    with pytest.raises(UsageError, match=f"{days} is not a DATE: write DATE 'YYYY-MM-DD'"):
        parse_predicate(f"d = {days}", SCHEMA)
    assert [convert(edge, SCHEMA["d"], "d") for edge in DATE_DAYS] == list(DATE_DAYS)  # (within: those days)


def test_a_long_string_literal_is_parsed_in_memory_of_its_size():
    """A 20 MB literal (a pasted file): matched a character at a time, it took 4 GB of the regex engine's
    backtracking state, and its escapes were undone a character at a time (10 s)."""
    script = ("from fileindex.predicate.parser import parse_predicate; from fileindex.types import parse_schema; "
              "text = \"s = 'a''\" + 'x' * (20 << 20) + \"\\\\n\\\\u00e9'\"; "
              "leaf = parse_predicate(text, parse_schema('s STRING')); "
              "print(len(leaf.literals[0]), repr(leaf.literals[0][:3] + leaf.literals[0][-2:]))")
    done = python(script)
    assert done.stdout.split() == [str((20 << 20) + 4), repr("a'x\né")], done.stderr[-500:]
