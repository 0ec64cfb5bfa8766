"""A TIMESTAMP literal with more fraction digits than its column is compared by value, as a DECIMAL literal with
more places is (``test_finer_decimals``): ``ts = '… .1234567'`` on TIMESTAMP(6) matches no row, ``ts > '…
.1234567'`` matches ``.123457`` and up. Every route agrees with a reference comparing whole nanoseconds: the exact
filter (``scan.truth``), min/max statistics (never pruning a file with a matching row), and each index Paimon
builds on a TIMESTAMP, sound, and exact where it says so."""
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from index_answers import kept_rows
from sql_comparisons import condition, sql_answer

from fileindex.container.file import FileIndexContainer
from fileindex.java.binary_row import serialize
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.scan.truth import matches
from fileindex.table.metadata import ValueStats
from fileindex.table.statistics import Statistics
from fileindex.types import parse_type
from fileindex.values import Timestamp
from fileindex.writing.data_file import build_table_index
from fileindex.writing.options import parse_options

TYPES = {"TIMESTAMP(6)": 6, "TIMESTAMP(3)": 3, "TIMESTAMP(0)": 0}
INDEXES = ["bitmap", "bsi", "range-bitmap", "bloom-filter"]
OPERATORS = ["=", "<>", "<", "<=", ">", ">=", "IN", "NOT IN", "BETWEEN"]
BASE = 1_704_067_200 * 10**9  # 2024-01-01 00:00:00, in nanoseconds


def text(nanos: int, digits: int) -> str:
    """The literal of ``nanos`` (after BASE) with ``digits`` fraction digits (the value has no finer ones)."""
    seconds, fraction = divmod(nanos, 10**9)
    shown = f".{fraction:09d}"[:digits + 1] if digits else ""
    return f"TIMESTAMP '2024-01-01 00:{seconds // 60:02d}:{seconds % 60:02d}{shown}'"


@st.composite
def cases(draw):
    """(type, values in nanoseconds after BASE, operator, literals in nanoseconds, their digits): values a few
    units of the column apart, literals with the column's digits up to 9, so that finer ones fall between, on
    and beside the values."""
    type_name = draw(st.sampled_from(sorted(TYPES)))
    unit = 10 ** (9 - TYPES[type_name])
    values = draw(st.lists(st.one_of(st.none(), st.integers(0, 40).map(lambda k: k * unit)), min_size=1, max_size=10))
    operator = draw(st.sampled_from(OPERATORS))
    count = 2 if operator == "BETWEEN" else draw(st.integers(1, 3)) if operator.endswith("IN") else 1
    digits = draw(st.integers(TYPES[type_name], 9))
    step = 10 ** (9 - digits)
    literals = [draw(st.integers(0, 41 * unit // step)) * step for _ in range(count)]
    return type_name, values, operator, literals, digits


def stamp(nanos: int) -> Timestamp:
    total = BASE + nanos
    return Timestamp(total // 1_000_000, total % 1_000_000)


@settings(max_examples=300, deadline=None)
@given(cases())
def test_every_route_compares_a_finer_timestamp_literal_by_value(case):
    type_name, values, operator, literals, digits = case
    data_type = parse_type(type_name)
    schema = {"c": data_type}
    predicate = parse_predicate(condition(operator, [text(n, digits) for n in literals]), schema)
    expected = {row for row, value in enumerate(values) if sql_answer(value, operator, literals)}
    unit = {6: "us", 3: "ms", 0: "s"}[TYPES[type_name]]
    divisor = {"us": 1000, "ms": 10**6, "s": 10**9}[unit]
    table = pa.table({"c": pa.array([None if v is None else (BASE + v) // divisor for v in values],
                                    type=pa.timestamp(unit))})

    assert {row for row, hit in enumerate(matches(table, predicate, schema)) if hit} == expected, predicate

    present = [v for v in values if v is not None]
    low, high = (stamp(min(present)), stamp(max(present))) if present else (None, None)
    stats = ValueStats(serialize([low], [data_type]), serialize([high], [data_type]), (len(values) - len(present),))
    if not Statistics(stats, ("c",), schema, len(values)).may_match(predicate):
        assert not expected, predicate

    for index_type in INDEXES:
        options = parse_options({f"file-index.{index_type}.columns": "c"}, schema)
        container = FileIndexContainer.from_bytes(build_table_index(table, schema, options).data)
        answer = FileIndexEvaluator(schema).evaluate_exact(container, predicate)
        kept = kept_rows(answer.result, len(values))
        assert expected <= kept, (index_type, predicate)
        if answer.exact:
            assert kept == expected, (index_type, predicate)
