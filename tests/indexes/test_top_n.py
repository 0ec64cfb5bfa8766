"""ORDER BY a column LIMIT k from its range-bitmap or bsi: ``FileIndexEvaluator.top_n`` against sorting the file's
values (drawn values with duplicates and nulls, k from 0 past the row count, both directions and null orders, with
and without a selection, with and without ties; the Java-written vectors); bsi's ``visit_top_n`` against Java's
TopN semantics as the range-bitmap has them."""
import decimal
import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from conftest import JAVA_VECTORS
from index_answers import top_n_model
from pyroaring import FrozenBitMap
from vector_cases import cases_for

from fileindex.container.file import FileIndexContainer
from fileindex.indexes.bsi import BsiReader
from fileindex.indexes.bsi import build as build_bsi
from fileindex.indexes.range_bitmap.keys import key_kind, key_of, sort_key
from fileindex.indexes.result import Rows
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.reference.vector_format import to_arrow
from fileindex.types import DataType, parse_type
from fileindex.values import Timestamp, long_key
from fileindex.writing.data_file import build_table_index
from fileindex.writing.options import parse_options

D = decimal.Decimal
COLUMNS = {  # type, values (few distinct: ties), the index types that may answer
    "INT": (st.integers(-3, 3) | st.sampled_from([2**31 - 1, -2**31]), ["bsi", "range-bitmap"]),
    "BIGINT": (st.integers(-2, 2) | st.sampled_from([2**62, -2**62, 2**63 - 1]), ["bsi", "range-bitmap"]),
    "DOUBLE": (st.sampled_from([0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan]), ["range-bitmap"]),
    "STRING": (st.sampled_from(["", "a", "b", "é", "zz", "😀"]), ["range-bitmap"]),
    "DECIMAL(10, 2)": (st.sampled_from([D("0.00"), D("1.01"), D("-1.01"), D("-99.99")]), ["bsi", "range-bitmap"]),
    "TIMESTAMP(6)": (st.builds(Timestamp, st.integers(-2, 2), st.sampled_from([0, 1000])), ["bsi", "range-bitmap"]),
    "BOOLEAN": (st.booleans(), ["range-bitmap"]),
}


def ranks(values: list, data_type: DataType) -> list:
    """Each row's place in the column's order (Paimon's comparison), None for a null."""
    kind = key_kind(data_type)
    keys = [None if v is None else sort_key(kind, key_of(v, data_type)) for v in values]
    order = {key: rank for rank, key in enumerate(sorted({k for k in keys if k is not None}))}
    return [None if k is None else order[k] for k in keys]


def order_keys(ranked: list, descending: bool, nulls_first: bool) -> np.ndarray:
    """A number per row (of its ``ranks``) that sorts the rows as ``ORDER BY column [DESC] NULLS FIRST|LAST``
    does, ties equal."""
    null = -math.inf if nulls_first else math.inf
    return np.array([null if r is None else (-r if descending else r) for r in ranked], dtype=np.float64)


def check_top(rows: FrozenBitMap, keys: np.ndarray, selection: list[int], limit: int, with_ties: bool) -> None:
    """``rows`` are a top ``limit`` of ``selection`` by ``keys``: every row kept orders at or before every row
    left out; exactly ``limit`` of them (all if fewer), or with ties every row tied with the ``limit``-th."""
    kept, chosen = np.zeros(len(keys), dtype=bool), np.zeros(len(keys), dtype=bool)
    kept[list(rows)] = True
    chosen[selection] = True
    assert not (kept & ~chosen).any()
    left = chosen & ~kept
    if kept.any() and left.any():
        assert keys[kept].max() <= keys[left].min()
    if not with_ties or limit == 0 or len(selection) <= limit:
        assert kept.sum() == min(limit, len(selection))
    else:
        boundary = np.partition(keys[chosen], limit - 1)[limit - 1]
        assert (kept == (chosen & (keys <= boundary))).all()


@st.composite
def files(draw):
    """(type, values, container) of a drawn column with one or two indexes on it."""
    type_name = draw(st.sampled_from(sorted(COLUMNS)))
    pool, kinds = COLUMNS[type_name]
    data_type = parse_type(type_name)
    values = draw(st.lists(pool | st.none(), max_size=40))
    indexes = draw(st.lists(st.sampled_from(kinds + ["bitmap"] * (type_name != "DECIMAL(10, 2)")), unique=True,
                            min_size=1, max_size=2))
    schema = {"c": data_type}
    options = parse_options({f"file-index.{kind}.columns": "c" for kind in indexes}, schema)
    table = pa.table({"c": to_arrow(values, data_type)})
    return data_type, values, indexes, FileIndexContainer.from_bytes(build_table_index(table, schema, options).data)


@given(files(), st.integers(0, 45), st.booleans(), st.booleans(), st.booleans(), st.data())
@settings(max_examples=100)
def test_top_n_is_a_top_n_of_the_sorted_values(file, limit, descending, nulls_first, with_ties, data):
    data_type, values, indexes, container = file
    selection = None
    if values and data.draw(st.booleans()):
        selection = FrozenBitMap(data.draw(st.sets(st.integers(0, len(values) - 1))))
    answer = FileIndexEvaluator({"c": data_type}).top_n(container, "c", limit, descending=descending,
                                                        nulls_first=nulls_first, selection=selection,
                                                        with_ties=with_ties)
    if indexes == ["bitmap"] and limit and (selection is None or len(selection) > limit):
        assert answer is None  # no index that orders the column: read it
        return
    assert isinstance(answer, Rows)
    rows = list(range(len(values))) if selection is None else list(selection)
    check_top(answer.bitmap, order_keys(ranks(values, data_type), descending, nulls_first), rows, limit, with_ties)


def test_top_n_within_a_selection_of_an_all_null_range_bitmap_keeps_the_selection():
    """Java's range bitmap answers every row where no row has a value; within a selection, the first k of it."""
    data_type = parse_type("INT")
    table = pa.table({"c": pa.array([None] * 6, pa.int32())})
    container = FileIndexContainer.from_bytes(build_table_index(
        table, {"c": data_type}, parse_options({"file-index.range-bitmap.columns": "c"}, {"c": data_type})).data)
    evaluator = FileIndexEvaluator({"c": data_type})
    top = evaluator.top_n(container, "c", 2, descending=True, nulls_first=False, selection=FrozenBitMap([1, 3, 4]))
    assert top == Rows([1, 3])
    assert evaluator.top_n(container, "c", 2, descending=True, nulls_first=False) == Rows([0, 1])
    assert evaluator.top_n(container, "c", 2, descending=True, nulls_first=False, with_ties=True) == Rows(range(6))
    assert evaluator.top_n(container, "c", 0, descending=True, nulls_first=True, with_ties=True) == Rows()


def test_top_n_of_a_nanosecond_timestamp_is_left_to_the_values():
    """A bsi keys TIMESTAMP(9) by micros: rows a nanosecond apart would look tied."""
    data_type = parse_type("TIMESTAMP(9)")
    values = [Timestamp(1, 1), Timestamp(1, 2), None]
    reader = BsiReader(build_bsi(values, data_type), data_type)
    assert reader.visit_top_n(1, descending=True).kind == "REMAIN"


BSI_TYPES = ["INT", "BIGINT", "DECIMAL(10, 2)", "TIMESTAMP(6)"]


@given(st.sampled_from(BSI_TYPES), st.data(), st.integers(0, 45), st.booleans(), st.booleans(), st.booleans())
@settings(max_examples=150)
def test_bsi_top_n_is_java_s_top_n(type_name, data, k, descending, nulls_first, strict):
    data_type = parse_type(type_name)
    values = data.draw(st.lists(COLUMNS[type_name][0] | st.none(), max_size=40))
    found = None
    if values and data.draw(st.booleans()):
        found = FrozenBitMap(data.draw(st.sets(st.integers(0, len(values) - 1))))
    reader = BsiReader(build_bsi(values, data_type), data_type)
    result = reader.visit_top_n(k, descending=descending, nulls_first=nulls_first, found=found, strict=strict)
    keys = [None if v is None else long_key(v, data_type) for v in values]
    assert set(result.bitmap) == top_n_model(keys, k, descending, nulls_first, found, strict)


@pytest.mark.parametrize("case", [c for c in cases_for("range-bitmap", ok=True) + cases_for("bsi", ok=True)
                                  if not c.data_type.is_nano_timestamp], ids=lambda c: c.name)
def test_top_n_of_the_java_vectors_is_a_top_n_of_their_inputs(case):
    """Java's range-bitmap and bsi bodies rank their datasets' rows as sorting the values does."""
    values, data_type = case.values(), case.data_type
    container = FileIndexContainer.open(JAVA_VECTORS / case.record["file"])
    evaluator = FileIndexEvaluator({"c": data_type})
    limits = [0, 1, 3, len(values), len(values) + 2] if len(values) <= 50 else [10, 1000]
    every = list(range(len(values)))
    some = FrozenBitMap(every[::3])
    ranked = ranks(values, data_type)
    for limit in limits:
        for descending in (False, True):
            for nulls_first in (False, True):
                keys = order_keys(ranked, descending, nulls_first)
                for selection in (None, some):
                    for with_ties in (False, True):
                        answer = evaluator.top_n(container, "c", limit, descending=descending, nulls_first=nulls_first,
                                                 selection=selection, with_ties=with_ties)
                        assert isinstance(answer, Rows)
                        check_top(answer.bitmap, keys, every if selection is None else list(selection), limit,
                                  with_ties)
