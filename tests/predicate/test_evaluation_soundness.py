"""Soundness: for random data, indexes and predicate trees, no true match is ever dropped (both modes)."""
import math

import pyarrow as pa
from hypothesis import given, settings
from index_answers import index_options
from hypothesis import strategies as st

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.range_bitmap.keys import key_kind, key_of, sort_key
from fileindex.indexes.result import REMAIN, SKIP, Rows
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.tree import And, Leaf, Or
from fileindex.reference.vector_format import to_arrow
from fileindex.types import parse_schema
from fileindex.values import Timestamp
from fileindex.writing.data_file import build_table_index
from fileindex.writing.options import parse_options

SCHEMA = parse_schema("a INT, b BIGINT, s STRING, f DOUBLE, d DATE, t TIMESTAMP(6)")
POOLS = {
    "a": st.integers(-3, 3),
    "b": st.one_of(st.integers(-2, 2), st.sampled_from([2**62, -2**62, 2**63 - 1])),
    "s": st.sampled_from(["", "a", "b", "é", "zz", "\u0000", "😀"]),
    "f": st.sampled_from([0.0, -0.0, 1.5, -1.5, math.inf, math.nan]),
    "d": st.integers(-2, 2),
    "t": st.builds(Timestamp, st.integers(-2, 2), st.sampled_from([0, 999000])),
}
INDEXES = {"a": ["bloom-filter", "bitmap", "bsi", "range-bitmap"],
           "b": ["bloom-filter", "bitmap", "bsi", "range-bitmap"],
           "s": ["bloom-filter", "bitmap", "range-bitmap"], "f": ["bloom-filter", "bitmap", "range-bitmap"],
           "d": ["bloom-filter", "bitmap", "bsi", "range-bitmap"],
           "t": ["bloom-filter", "bitmap", "bsi", "range-bitmap"]}


@st.composite
def tables(draw):
    rows = draw(st.integers(0, 40))
    columns = {c: draw(st.lists(st.one_of(st.none(), pool), min_size=rows, max_size=rows)) for c, pool in POOLS.items()}
    return columns, index_options(draw, INDEXES, rows)


@st.composite
def predicates(draw, depth=2):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        column = draw(st.sampled_from(sorted(POOLS)))
        function = draw(st.sampled_from(["eq", "neq", "lt", "lte", "gt", "gte", "is_null", "is_not_null",
                                         "between", "not_between", "in", "not_in"]))
        value = POOLS[column]
        if function in ("is_null", "is_not_null"):
            return Leaf(function, column)
        if function in ("between", "not_between"):
            return Leaf(function, column, (draw(value), draw(value)))
        if function in ("in", "not_in"):
            return Leaf(function, column, tuple(draw(st.lists(st.one_of(value, st.none()), max_size=4))))
        return Leaf(function, column, (draw(value),))
    kind = draw(st.sampled_from([And, Or]))
    return kind(tuple(draw(st.lists(predicates(depth - 1), min_size=2, max_size=3))))


# Whether a non-null row key k satisfies each comparison with the literals' keys.
HOLDS = {"eq": lambda k, literals: k == literals[0], "neq": lambda k, literals: k != literals[0],
         "lt": lambda k, literals: k < literals[0], "lte": lambda k, literals: k <= literals[0],
         "gt": lambda k, literals: k > literals[0], "gte": lambda k, literals: k >= literals[0],
         "between": lambda k, literals: literals[0] <= k <= literals[1],
         "not_between": lambda k, literals: not literals[0] <= k <= literals[1],
         "in": lambda k, literals: k in literals, "not_in": lambda k, literals: k not in literals}


def truly_matching(predicate, columns, rows: int) -> set[int]:
    """Rows where the predicate is TRUE (SQL three-valued logic; values ordered by compareTo)."""
    if isinstance(predicate, And):
        result = set(range(rows))
        for child in predicate.children:
            result &= truly_matching(child, columns, rows)
        return result
    if isinstance(predicate, Or):
        return set().union(*(truly_matching(c, columns, rows) for c in predicate.children))
    data_type = SCHEMA[predicate.column]
    kind = key_kind(data_type)

    def key(value):
        return sort_key(kind, key_of(value, data_type))

    matching = set()
    for row, value in enumerate(columns[predicate.column]):
        function = predicate.function
        if function == "is_null":
            ok = value is None
        elif function == "is_not_null":
            ok = value is not None
        elif value is None or any(v is None for v in predicate.literals):
            ok = False
        else:
            ok = HOLDS[function](key(value), [key(v) for v in predicate.literals])
        if ok:
            matching.add(row)
    return matching


@given(tables(), st.lists(predicates(), min_size=1, max_size=5))
@settings(max_examples=150)
def test_results_always_contain_every_true_match(table, trees):
    columns, options = table
    rows = len(columns["a"])
    arrow = pa.table({c: to_arrow(values, SCHEMA[c]) for c, values in columns.items()})
    if not options:
        return
    built = build_table_index(arrow, SCHEMA, parse_options(options, SCHEMA))
    container = FileIndexContainer.from_bytes(built.data)
    for extended in (False, True):
        evaluator = FileIndexEvaluator(SCHEMA, extended=extended)
        for tree in trees:
            result = evaluator.evaluate(container, tree)
            truth = truly_matching(tree, columns, rows)
            if result is SKIP:
                assert not truth, (tree, truth)
            elif result is not REMAIN:
                assert isinstance(result, Rows)
                assert truth <= set(result.bitmap), (tree, truth, set(result.bitmap), extended)


@st.composite
def range_pairs(draw):
    """``c > / >= x AND c < / <= y`` on one column, in either order, maybe beside another conjunct."""
    column = draw(st.sampled_from(sorted(POOLS)))
    lower = Leaf(draw(st.sampled_from(["gt", "gte"])), column, (draw(POOLS[column]),))
    upper = Leaf(draw(st.sampled_from(["lt", "lte"])), column, (draw(POOLS[column]),))
    pair = [lower, upper] if draw(st.booleans()) else [upper, lower]
    return And(tuple(pair + draw(st.lists(predicates(0), max_size=1))))


@given(tables(), st.lists(range_pairs(), min_size=1, max_size=4))
@settings(max_examples=100)
def test_bounds_answered_together_equal_java_s_fold_leaf_by_leaf(table, trees):
    """A lower and an upper bound on one column are answered at once (FileIndexReader.visit_range): exactly
    what folding the conjuncts' answers one by one, as Java does, gives, for every index type."""
    columns, options = table
    if not options:
        return
    arrow = pa.table({c: to_arrow(values, SCHEMA[c]) for c, values in columns.items()})
    container = FileIndexContainer.from_bytes(build_table_index(arrow, SCHEMA, parse_options(options, SCHEMA)).data)
    for extended in (False, True):
        evaluator = FileIndexEvaluator(SCHEMA, extended=extended)
        for tree in trees:
            folded = REMAIN
            for child in tree.children:
                folded = folded.and_(evaluator.evaluate(container, child))
                if not folded.remain():
                    break
            assert evaluator.evaluate(container, tree) == folded, tree


def test_a_window_without_keys_reads_no_slice_of_a_range_bitmap():
    """A window between two keys of the dictionary is empty from the codes alone (the pairing at work)."""
    columns = {"t": [Timestamp(day * 86_400_000, 0) for day in range(64)]}
    arrow = pa.table({"t": to_arrow(columns["t"], SCHEMA["t"])})
    schema = parse_schema("t TIMESTAMP(6)")
    built = build_table_index(arrow, schema, parse_options({"file-index.range-bitmap.columns": "t"}, schema))
    container = FileIndexContainer.from_bytes(built.data)
    container.readers = {}  # shared readers: the test looks at what the range bitmap decoded
    window = And((Leaf("gte", "t", (Timestamp(10 * 86_400_000 + 1000, 0),)),
                  Leaf("lt", "t", (Timestamp(10 * 86_400_000 + 2000, 0),))))
    result = FileIndexEvaluator(schema).evaluate(container, window)
    assert isinstance(result, Rows) and not result.bitmap
    [reader] = next(iter(container.readers.values()))
    assert not reader._slices
    one_day = And((Leaf("gte", "t", (Timestamp(10 * 86_400_000, 0),)),
                   Leaf("lt", "t", (Timestamp(11 * 86_400_000, 0),))))
    assert set(FileIndexEvaluator(schema).evaluate(container, one_day).bitmap) == {10}
