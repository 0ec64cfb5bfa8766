"""Exact answers of the Java-written vectors, whose inputs are known: every recorded query of every single-column
container, and drawn predicate trees (NULLs, NOT, OR across bloom-filter, bitmap, bsi, range-bitmap and map-key
bitmaps) over the multi-column container, in both modes: wherever ``evaluate_exact`` calls its rows exact they are
the rows a brute-force filter of the dataset keeps."""
import json
from collections import Counter

import numpy as np
import pyarrow as pa
from conftest import JAVA_VECTORS
from hypothesis import given, settings
from hypothesis import strategies as st
from index_answers import trees
from pyroaring import BitMap
from vector_cases import all_cases

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.result import REMAIN, SKIP
from fileindex.scan.truth import ColumnTruth, column_values, matches
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.tree import Leaf, negate
from fileindex.reference.predicate_json import predicate_from_json
from fileindex.reference.vector_format import recorded_query, to_arrow, value_from_json
from fileindex.types import column_type, parse_schema
from fileindex.values import Timestamp

MULTI_SCHEMA = parse_schema("id INT, name STRING, ts TIMESTAMP(3), price DOUBLE, `列名😀` STRING, "
                            "attrs MAP<STRING, STRING>")
MULTI_COLUMNS = ["id", "name", "ts", "price", "列名😀", "attrs[color]", "attrs[size]"]
ABSENT = {"id": [-1, 1000], "name": ["zed"], "ts": [Timestamp(1700000001000, 500), Timestamp(0)],
          "price": [-0.0, 1.3, float("nan")], "列名😀": ["z"], "attrs[color]": ["green"], "attrs[size]": ["S"]}


def judged(mask: np.ndarray, container: FileIndexContainer, schema: dict, predicate, extended: bool) -> bool:
    """Check ``evaluate_exact`` against the rows the brute-force filter keeps (``mask``); whether it called its
    answer exact."""
    answer = FileIndexEvaluator(schema, extended=extended).evaluate_exact(container, predicate, row_count=len(mask))
    truth = BitMap(np.flatnonzero(mask).tolist())
    result = answer.result
    kept = BitMap() if result is SKIP else BitMap(range(len(mask))) if result is REMAIN else BitMap(result.bitmap)
    assert truth <= kept, (predicate, extended)
    if answer.exact:
        assert kept == truth, (predicate, extended, list(kept - truth)[:10])
    return answer.exact and answer.remain()


def judged_tree(table: pa.Table, container: FileIndexContainer, schema: dict, predicate, extended: bool) -> bool:
    return judged(matches(table, predicate, schema), container, schema, predicate, extended)


def test_every_recorded_query_s_exact_answer_is_the_filter_of_its_dataset():
    """Every single-column container (extended mode on those of at most 10,000 rows: a bitmap's range over 100,000
    distinct strings unions their bitmaps, seconds each); exact row sets met of every type that has them, and none
    of a bloom filter (its exact answers keep no row)."""
    exact: Counter = Counter()
    for case in (c for c in all_cases() if c.ok):
        data_type = case.data_type
        column = ColumnTruth(to_arrow(case.values(), data_type), data_type)
        container = FileIndexContainer.open(JAVA_VECTORS / case.record["file"])
        for query in case.record["queries"]:
            operator, literals = recorded_query(query["op"], data_type)
            leaf = Leaf(operator, "c", literals)
            mask = column.matches(leaf)
            for extended in (False, True) if len(mask) <= 10_000 else (False,):
                if judged(mask, container, {"c": data_type}, leaf, extended):
                    exact[case.record["index_type"]] += 1
    assert {"bitmap", "bsi", "range-bitmap"} <= set(exact) and "bloom-filter" not in exact, exact


def multi() -> tuple[pa.Table, FileIndexContainer, dict]:
    record = json.loads((JAVA_VECTORS / "vectors.json").read_text())["multi_column"][0]
    dataset = json.loads((JAVA_VECTORS / "datasets" / "multi.json").read_text())
    columns = {}
    for column in dataset["columns"]:
        data_type = MULTI_SCHEMA[column["name"]]
        columns[column["name"]] = to_arrow([value_from_json(v, data_type) for v in column["values"]], data_type)
    return pa.table(columns), FileIndexContainer.open(JAVA_VECTORS / record["file"]), record


TABLE, CONTAINER, RECORD = multi()


def test_the_recorded_whole_file_predicates():
    exact = 0
    for recorded in RECORD["predicates"]:
        predicate = predicate_from_json(recorded["java_predicate"], MULTI_SCHEMA)
        for extended in (False, True):
            exact += judged_tree(TABLE, CONTAINER, MULTI_SCHEMA, predicate, extended)
            exact += judged_tree(TABLE, CONTAINER, MULTI_SCHEMA, negate(predicate), extended)
    assert exact >= 20


@st.composite
def leaves(draw):
    column = draw(st.sampled_from(MULTI_COLUMNS))
    data_type = column_type(MULTI_SCHEMA, column)
    present = [v for v in column_values(TABLE, column).to_pylist() if v is not None]
    if data_type.is_timestamp:
        present = [Timestamp.from_datetime(v) for v in present]
    literal = st.sampled_from(present + ABSENT[column]) | st.none() if draw(st.integers(0, 4)) == 0 else \
        st.sampled_from(present + ABSENT[column])
    function = draw(st.sampled_from(["eq", "neq", "lt", "lte", "gt", "gte", "is_null", "is_not_null", "between",
                                     "in", "not_in"]))
    if function in ("is_null", "is_not_null"):
        return Leaf(function, column)
    if function == "between":
        return Leaf(function, column, (draw(literal), draw(literal)))
    if function in ("in", "not_in"):
        return Leaf(function, column, tuple(draw(st.lists(literal, min_size=1, max_size=3))))
    return Leaf(function, column, (draw(literal),))


@given(st.lists(trees(leaves()), min_size=1, max_size=6))
@settings(max_examples=100)
def test_drawn_predicates_over_the_multi_column_container(drawn):
    for tree in drawn:
        for extended in (False, True):
            judged_tree(TABLE, CONTAINER, MULTI_SCHEMA, tree, extended)
