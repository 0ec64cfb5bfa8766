"""Rough edges the seventh trial found: a whole number against a DATE column beyond a DATE's days was taken as
days since 1970 (``k = 20240101`` answered 0 rows), the caret stood beside wide and combining characters, and an
unclosed string and a name of other characters said only "unexpected character"."""
import pytest
from conftest import ROOT
from test_third_trial import run

from fileindex.errors import UsageError
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type

DATE_KEY = ROOT / "tests" / "tables" / "primary-keys" / "date_key"
SCHEMA = {"f0": parse_type("STRING"), "f1": parse_type("INT"), "été": parse_type("INT")}


@pytest.mark.parametrize(("where", "number", "example"), [
    ("k = 20240101", 20240101, "DATE '2024-01-01'"),
    ("k >= 99999999999", 99999999999, "DATE '2024-01-31'"),
    ("k IN (DATE '2024-01-01', 20240102)", 20240102, "DATE '2024-01-02'")])
def test_a_number_beyond_the_days_of_a_date_says_to_write_a_date(capsys, where, number, example):
    """``k = 20240101`` answered 0 rows: taken as days since 1970 (as Paimon stores a DATE, and as the index
    vectors' queries write one), a year beyond 9999. Beyond a DATE's days it is refused, with the date it spells."""
    code, out, err = run(capsys, "read", DATE_KEY, "--where", where, "--count")
    assert (code, out) == (2, "")
    assert f"{number} is not a DATE: write DATE 'YYYY-MM-DD', as {example} (a whole number is taken as days since " \
           "1970-01-01, as Paimon stores a DATE: -719162 to 2932896)" in err
    code, out, _ = run(capsys, "read", DATE_KEY, "--where", f"k = {example}", "--count")
    assert code == 0 and int(out) >= 0


def test_a_number_within_a_date_s_days_is_that_day(capsys):
    counts = [run(capsys, "read", DATE_KEY, "--where", where, "--count")
              for where in ("k = 19723", "k = DATE '2024-01-01'")]
    assert counts[0] == counts[1] and counts[0][0] == 0 and int(counts[0][1]) > 0


def caret_column(message: str) -> int:
    """The terminal column the caret stands in, counted in cells under the echoed predicate."""
    return message.splitlines()[2].index("^")


@pytest.mark.parametrize("string", ["日本語", "😀", "e\u0301", "é"])
def test_the_caret_stands_under_its_token_after_wide_and_combining_characters(string):
    where = f"f0 = '{string}' AND f11 = 2"
    with pytest.raises(UsageError) as raised:
        parse_predicate(where, SCHEMA)
    message = str(raised.value)
    echoed = message.splitlines()[1]
    cells = {"日本語": 6, "😀": 2, "e\u0301": 1, "é": 1}[string]
    assert caret_column(message) == echoed.index("f0") + len("f0 = ''") + cells + len(" AND ")
    assert message.endswith(f"^ position {where.index('f11')}")


@pytest.mark.parametrize(("where", "hint"), [
    ("f0 = 'abc", "this string is never closed: end it with another ', and write '' for a ' inside it"),
    ("été = 2", "a name with characters other than A-Z, 0-9 and _ goes in backquotes: `été`"),
    ("naïve = 2", "a name with characters other than A-Z, 0-9 and _ goes in backquotes: `naïve`"),
])
def test_an_unexpected_character_says_what_to_write(where, hint):
    with pytest.raises(UsageError, match=hint):
        parse_predicate(where, SCHEMA)
    if "été" in hint:
        assert parse_predicate("`été` = 2", SCHEMA) is not None
