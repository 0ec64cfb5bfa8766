"""Exact answers: wherever ``evaluate_exact`` calls its rows exact they are the rows a brute-force filter of the
file's values keeps (Paimon's semantics, ``fileindex.scan.truth.matches``), for drawn data, indexes and
predicate trees (NULLs, NOT, OR across index types, both modes); and ``exact_count`` is then the rows a scan
returns past a deletion vector."""
import decimal
import math

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from index_answers import index_options, kept_rows, trees
from pyroaring import BitMap

from fileindex.container.file import FileIndexContainer
from fileindex.errors import DecodeError
from fileindex.indexes.result import REMAIN, SKIP, Answer, Rows, exact_count
from fileindex.scan.truth import matches
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.tree import And, Leaf, Or, negate
from fileindex.reference.vector_format import to_arrow
from fileindex.types import column_type, parse_schema
from fileindex.values import Timestamp
from fileindex.writing.data_file import build_table_index
from fileindex.writing.options import parse_options

SCHEMA = parse_schema("a INT, b BIGINT, s STRING, f DOUBLE, r FLOAT, d DATE, t TIMESTAMP(6), ms TIMESTAMP(3), "
                      "n DECIMAL(10, 2), o BOOLEAN, m MAP<STRING, INT>")
D = decimal.Decimal
VALUES = {
    "a": st.integers(-3, 3),
    "b": st.one_of(st.integers(-2, 2), st.sampled_from([2**62, -2**62, 2**63 - 1])),
    "s": st.sampled_from(["", "a", "b", "é", "zz", "\u0000", "😀"]),
    "f": st.sampled_from([0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan]),
    "r": st.sampled_from([0.0, -0.0, 0.5, -2.25, math.inf, math.nan]),
    "d": st.integers(-2, 2),
    "t": st.builds(Timestamp, st.integers(-2, 2), st.sampled_from([0, 1000, 999000])),
    "ms": st.builds(Timestamp, st.integers(-2, 2)),
    "n": st.sampled_from([D("0.00"), D("1.01"), D("-1.01"), D("99.99"), D("1.00")]),
    "o": st.booleans(),
    "m[k]": st.integers(-2, 2),
}
LITERALS = dict(VALUES) | {  # literals finer than the column too (an index rounds them)
    "t": st.builds(Timestamp, st.integers(-2, 2), st.sampled_from([0, 1000, 999000, 500, 999999])),
    "ms": st.builds(Timestamp, st.integers(-2, 2), st.sampled_from([0, 0, 500, 999999])),
    "n": st.sampled_from([D("0.00"), D("1.01"), D("-1.01"), D("1.005"), D("-1.015"), D("1")]),
}
ALL = ["bloom-filter", "bitmap", "bsi", "range-bitmap"]
NO_BSI = ["bloom-filter", "bitmap", "range-bitmap"]
INDEXES = {"a": ALL, "b": ALL, "s": NO_BSI, "f": NO_BSI, "r": NO_BSI, "d": ALL, "t": ALL, "ms": ALL,
           "n": ["bsi", "range-bitmap"], "o": ["bitmap", "range-bitmap"], "m[k]": ["bloom-filter", "bitmap"]}
FUNCTIONS = ["eq", "neq", "lt", "lte", "gt", "gte", "is_null", "is_not_null", "between", "not_between", "in", "not_in"]


@st.composite
def files(draw):
    """(arrow table, container) of a drawn data file and the indexes drawn for its columns."""
    rows = draw(st.integers(0, 24))
    columns = {c: draw(st.lists(st.one_of(st.none(), pool), min_size=rows, max_size=rows))
               for c, pool in VALUES.items() if c != "m[k]"}
    keys = draw(st.lists(st.lists(st.sampled_from(["k", "j"]), unique=True), min_size=rows, max_size=rows))
    values = draw(st.lists(VALUES["m[k]"] | st.none(), min_size=rows, max_size=rows))
    columns["m"] = [None if not row_keys and value is None else {key: value for key in row_keys}
                    for row_keys, value in zip(keys, values, strict=True)]
    indexed = {column: kinds for column, kinds in INDEXES.items() if draw(st.integers(0, 4))}  # a fifth without
    options = index_options(draw, indexed, rows, min_size=1, max_size=2) or {"file-index.bitmap.columns": "a"}
    table = pa.table({c: to_arrow(values, SCHEMA[c]) for c, values in columns.items()})
    container = FileIndexContainer.from_bytes(build_table_index(table, SCHEMA, parse_options(options, SCHEMA)).data)
    return table, container


@st.composite
def leaves(draw):
    column = draw(st.sampled_from(sorted(VALUES)))
    function = draw(st.sampled_from(FUNCTIONS))
    literal = LITERALS[column] | st.none() if draw(st.integers(0, 3)) == 0 else LITERALS[column]
    if function in ("is_null", "is_not_null"):
        return Leaf(function, column)
    if function in ("between", "not_between"):
        return Leaf(function, column, (draw(literal), draw(literal)))
    if function in ("in", "not_in"):
        return Leaf(function, column, tuple(draw(st.lists(literal, min_size=1, max_size=4))))
    return Leaf(function, column, (draw(literal),))


@given(files(), st.lists(trees(leaves()), min_size=1, max_size=8), st.data())
@settings(max_examples=80)
def test_an_exact_answer_is_the_brute_force_filter_and_counts_the_scan(file, drawn, data):
    table, container = file
    row_count = table.num_rows
    deleted = BitMap(data.draw(st.sets(st.integers(0, max(row_count - 1, 0)))) if row_count else ())
    for extended in (False, True):
        evaluator = FileIndexEvaluator(SCHEMA, extended=extended)
        for tree in drawn:
            answer = evaluator.evaluate_exact(container, tree)
            assert answer.result == evaluator.evaluate(container, tree) or answer.result is evaluator.evaluate(
                container, tree)
            truth = {row for row, hit in enumerate(matches(table, tree, SCHEMA)) if hit}
            kept = kept_rows(answer.result, row_count)
            assert truth <= kept, (tree, extended)
            if answer.exact:
                assert kept == truth, (tree, extended, sorted(kept - truth))
            count = exact_count(answer, row_count, deleted)
            assert count is None or count == len(truth - set(deleted)), (tree, extended)
            assert (count is None) == (answer.remain() and not answer.exact)
    assert exact_count(None, row_count, deleted) == row_count - len(deleted)


def answer_of(columns: dict, options: dict, predicate, *, extended: bool = False) -> Answer:
    schema = {name: column_type(SCHEMA, name) for name in columns}
    table = pa.table({name: to_arrow(values, schema[name]) for name, values in columns.items()})
    built = build_table_index(table, schema, parse_options(options, schema))
    return FileIndexEvaluator(schema, extended=extended).evaluate_exact(FileIndexContainer.from_bytes(built.data),
                                                                        predicate)


A = [1, 2, None, 2, 3]
BITMAP, BLOOM, BSI = ({f"file-index.{kind}.columns": "a"} for kind in ("bitmap", "bloom-filter", "bsi"))
BOTH = {"file-index.bitmap.columns": "a", "file-index.bloom-filter.columns": "a"}


@pytest.mark.parametrize("options, predicate, exact, extended", [
    (BITMAP, Leaf("eq", "a", (2,)), True, False),
    (BITMAP, Leaf("in", "a", (2, 3)), True, False),
    (BITMAP, Leaf("is_null", "a"), True, False),
    (BITMAP, Leaf("neq", "a", (2,)), False, False),  # the bitmap's <> keeps the null rows
    (BITMAP, negate(Leaf("eq", "a", (2,))), False, False),
    (BSI, negate(Leaf("eq", "a", (2,))), True, False),  # bsi's <> is the non-null rows not of 2
    (BITMAP, Leaf("eq", "a", (None,)), False, False),  # = NULL: the bitmap answers the null rows
    (BITMAP, Leaf("in", "a", (2, None)), True, False),  # the NULL matches no row: left out, the rows of 2
    (BITMAP, Leaf("lt", "a", (3,)), False, False),  # REMAIN in Java's mode
    (BITMAP, Leaf("lt", "a", (3,)), True, True),  # the sorted dictionary's rows in extended mode
    (BLOOM, Leaf("eq", "a", (2,)), False, False),
    (BLOOM, Leaf("eq", "a", (7,)), True, False),  # SKIP: no row, exactly
    (BOTH, Leaf("eq", "a", (2,)), True, False),  # the bitmap's rows, the bloom filter's REMAIN
    (BOTH, Or((Leaf("eq", "a", (2,)), Leaf("is_null", "a"))), True, False),
    (BITMAP | {"file-index.bloom-filter.columns": "b"}, Or((Leaf("eq", "a", (2,)), Leaf("eq", "b", (2,)))),
     False, False),
    (BITMAP | {"file-index.bloom-filter.columns": "b"}, And((Leaf("eq", "a", (2,)), Leaf("eq", "b", (2,)))),
     False, False),
    (BITMAP, And((Leaf("eq", "a", (2,)), Leaf("eq", "b", (2,)))), False, False),  # b has no index
    (BITMAP, And((Leaf("eq", "a", (7,)), Leaf("eq", "b", (2,)))), True, False),  # nothing, exactly
    (BSI, And((Leaf("gte", "a", (2,)), Leaf("lt", "a", (3,)))), True, False),  # the bounds answered together
    (BSI, Leaf("not_between", "a", (1, 2)), False, False),
])
def test_exactness_of_each_rule(options, predicate, exact, extended):
    columns = {"a": A, "b": [2, 2, 2, 2, 2]}
    assert answer_of(columns, options, predicate, extended=extended).exact is exact


@pytest.mark.parametrize("column, index_type, literal", [
    ("ms", "bsi", Timestamp(5, 500)),  # a TIMESTAMP(3) index keys millis
    ("ms", "range-bitmap", Timestamp(5, 500)),
    ("ms", "bitmap", Timestamp(5, 500)),
    ("t", "bsi", Timestamp(5, 1500)),  # a TIMESTAMP(6) index keys micros
    ("n", "range-bitmap", D("1.005")),  # a DECIMAL(10, 2) index keys hundredths
    ("n", "bsi", D("-1.005")),
])
def test_a_literal_finer_than_the_column_is_answered_at_the_column_s_precision(column, index_type, literal):
    """An index rounds such a literal (``x < 5.0005 ms`` asked as ``x < 5 ms`` drops the rows at 5 ms, as Java's
    does): it is asked the same condition on a literal the column holds, soundly and, where the index is exact
    for it, exactly."""
    values = {"ms": [Timestamp(5), Timestamp(6), None, Timestamp(4)], "t": [Timestamp(5, 1000), Timestamp(6), None],
              "n": [D("1.01"), D("1.00"), None, D("-1.01"), D("-1.00")]}[column]
    schema = {column: SCHEMA[column]}
    table = pa.table({column: to_arrow(values, schema[column])})
    built = build_table_index(table, schema, parse_options({f"file-index.{index_type}.columns": column}, schema))
    container = FileIndexContainer.from_bytes(built.data)
    for extended in (False, True):
        evaluator = FileIndexEvaluator(schema, extended=extended)
        for function in ("eq", "neq", "lt", "lte", "gt", "gte", "between", "in", "not_in"):
            literals = {"between": (literal, literal), "in": (literal, values[0]), "not_in": (literal,)}.get(
                function, (literal,))
            leaf = Leaf(function, column, literals)
            truth = {row for row, hit in enumerate(matches(table, leaf, schema)) if hit}
            answer = evaluator.evaluate_exact(container, leaf)
            kept = kept_rows(answer.result, len(values))
            assert truth <= kept, (leaf, extended)
            if index_type != "bitmap" or function in ("eq", "in") or extended and function not in ("neq", "not_in"):
                assert answer.exact and kept == truth, (leaf, extended)


def test_an_index_recording_other_rows_is_not_the_files():
    """A body whose row count is not the data file's was built over other rows: neither its row sets nor its "no
    row" are the file's (built over fewer rows, it skips a value of the rows it left out): malformed for the
    file, naming the body's row count; in lenient mode no answer."""
    table = pa.table({"a": to_arrow(A, SCHEMA["a"])})
    built = build_table_index(table, {"a": SCHEMA["a"]}, parse_options(BSI, {"a": SCHEMA["a"]}))
    container = FileIndexContainer.from_bytes(built.data)
    evaluator = FileIndexEvaluator({"a": SCHEMA["a"]})
    assert evaluator.evaluate_exact(container, Leaf("eq", "a", (2,)), row_count=len(A)).exact
    for literal in (2, 7):
        with pytest.raises(DecodeError, match=f"records {len(A)} rows, the data file {len(A) + 1}"):
            evaluator.evaluate_exact(container, Leaf("eq", "a", (literal,)), row_count=len(A) + 1)
        with pytest.raises(DecodeError, match="row_count at offset"):
            evaluator.evaluate(container, Leaf("eq", "a", (literal,)), row_count=len(A) + 1)
        lenient = FileIndexEvaluator({"a": SCHEMA["a"]}, lenient=True)
        assert lenient.evaluate_exact(container, Leaf("eq", "a", (literal,)), row_count=len(A) + 1) == \
            Answer(REMAIN, False)


def test_exact_count_of_rows_skip_and_the_whole_file():
    deleted = BitMap([1, 3, 99])
    assert exact_count(Answer(Rows([0, 1, 2, 200]), True), 10, deleted) == 2  # 200 is past the file's end
    assert exact_count(Answer(Rows([0, 1, 2]), False), 10, deleted) is None
    assert exact_count(Answer.of(SKIP, False), 10, deleted) == 0
    assert exact_count(Answer.of(Rows(), False), 10, deleted) == 0
    assert exact_count(Answer(REMAIN, False), 10, deleted) is None
    assert exact_count(Answer(REMAIN, True), 10, deleted) == 8
    assert exact_count(None, 10) == 10
