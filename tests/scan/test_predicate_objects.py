"""A predicate tree handed to ``PaimonTable.scan`` (or ``plan``) in place of text has its literals converted to
their columns' types by the conversion the text goes through: the same predicate, the same rows, the same
refusals (``fileindex.predicate.typed``)."""
from __future__ import annotations

import datetime
import decimal

import pytest

from fileindex import PaimonTable
from fileindex.errors import UsageError
from fileindex.predicate import literals
from fileindex.predicate.tree import Leaf, and_

from conftest import ROOT

TYPED_KEYS = ROOT / "tests" / "tables" / "primary-keys" / "typed_keys"  # day DATE, amount DECIMAL(10, 2), v INT


@pytest.fixture(scope="module")
def table() -> PaimonTable:
    return PaimonTable(TYPED_KEYS)


def _refusal(call) -> UsageError:
    with pytest.raises(UsageError) as info:
        call()
    return info.value


def test_a_date_leaf_beyond_a_dates_days_is_refused_as_the_conversion_refuses_the_text(table):
    leaf = Leaf("eq", "day", (20240101,))
    expected = literals.DateDaysError(20240101, "day")
    for call in (lambda: table.scan(leaf), lambda: list(table.plan(leaf)), lambda: table.plan_many([leaf])):
        refused = _refusal(call)
        assert isinstance(refused, literals.DateDaysError) and str(refused) == str(expected)
    # the text is refused too (the parser words it for SQL: DATE '2024-01-01', with a caret)
    assert "DATE '2024-01-01'" in str(_refusal(lambda: table.scan("day = 20240101")))


def test_a_date_leaf_of_a_python_date_reads_the_rows_of_the_text(table):
    leaf = Leaf("eq", "day", (datetime.date(2024, 1, 1),))
    assert table.scan(leaf).predicate == table.parse("day = DATE '2024-01-01'")
    rows = table.scan(leaf).to_arrow()
    assert rows.num_rows == 5 and rows.equals(table.scan("day = DATE '2024-01-01'").to_arrow())


@pytest.mark.parametrize("value, text", [(decimal.Decimal("12.5"), "12.5"), (0, "0"),
                                         (decimal.Decimal("1.505"), "1.505")])
def test_a_decimal_leaf_is_converted_as_the_text(table, value, text):
    """At the column's scale where it has as many places or fewer (12.5 is 12.50, 0 is 0.00), a finer one as it is."""
    leaf = Leaf("eq", "amount", (value,))
    assert repr(table.scan(leaf).predicate) == repr(table.parse(f"amount = {text}"))  # (Decimal('12.5') == 12.50)
    assert table.scan(leaf).to_arrow().equals(table.scan(f"amount = {text}").to_arrow())


def test_a_decimal_leaf_out_of_range_once_rounded_half_up_is_refused_with_the_texts_message(table):
    leaf = and_(Leaf("gt", "v", (0,)), Leaf("lt", "amount", (decimal.Decimal("99999999.995"),)))
    text = str(_refusal(lambda: table.scan("v > 0 AND amount < 99999999.995")))
    refused = str(_refusal(lambda: table.scan(leaf)))
    assert "half up to 2 places: 100000000.00" in refused and text.splitlines()[0] == refused


def test_an_integer_leaf_out_of_its_columns_range_is_refused(table):
    refused = str(_refusal(lambda: table.scan(Leaf("in", "v", (1, 1 << 40)))))
    assert refused == "literal 1099511627776 does not fit column v of type INT: out of range (it holds -2147483648 " \
                      "to 2147483647)"


def test_a_leaf_of_an_unknown_column_or_no_predicate_is_refused_in_one_line(table):
    assert str(_refusal(lambda: table.scan(Leaf("eq", "Day", (1,))))) == \
        "unknown column 'Day' (did you mean day? column names are case-sensitive)"
    assert "is not a predicate" in str(_refusal(lambda: table.scan({"column": "day"})))  # type: ignore[arg-type]
