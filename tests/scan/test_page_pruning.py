"""A selective read of a kept file decodes its predicate's columns only on the pages their column indexes admit
(``fileindex.scan.page_pruning``): never a matching row left out, whatever the column index claims."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fileindex.arrow import data_files, parquet_pages
from fileindex.arrow.data_files import DataFileReader
from fileindex.predicate.operators import Operator
from fileindex.predicate.tree import Leaf, and_, or_
from fileindex.scan import reader as scan_reader
from fileindex.scan.page_pruning import admitted_rows
from fileindex.scan.task import DataFileTask
from fileindex.scan.truth import matches
from fileindex.types import parse_type

from parquet_forgery import with_column_index

TYPES = {"k": parse_type("BIGINT"), "r": parse_type("INT"), "s": parse_type("STRING"), "d": parse_type("DOUBLE"),
         "b": parse_type("BYTES")}
OPERATORS = [Operator.EQ, Operator.NEQ, Operator.LT, Operator.LTE, Operator.GT, Operator.GTE, Operator.IN,
             Operator.NOT_IN, Operator.BETWEEN, Operator.NOT_BETWEEN, Operator.IS_NULL, Operator.IS_NOT_NULL]
STRINGS = st.text(alphabet="ab\u00e9\u4e2d\U0001f600", max_size=3).map(lambda tail: "x" * 70 + tail) | \
    st.text(alphabet="ab\u00e9", max_size=4)
FLOATS = st.sampled_from([0.0, -0.0, math.nan, 1.5, -2.0, math.inf, -math.inf]) | st.floats(-5, 5)
LITERALS = {"k": st.integers(-5, 120), "r": st.integers(-30, 30), "s": STRINGS, "d": FLOATS,
            "b": STRINGS.map(lambda text: text.encode())}


@pytest.fixture(autouse=True)
def fresh_footers():
    data_files.FOOTERS.clear()
    yield
    data_files.FOOTERS.clear()


@st.composite
def tables(draw) -> pa.Table:
    rows = draw(st.integers(1, 120))
    maybe = lambda values: [None if draw(st.booleans()) and draw(st.booleans()) else v for v in values]  # noqa: E731
    strings = sorted(draw(st.lists(STRINGS, min_size=rows, max_size=rows))) if draw(st.booleans()) else \
        draw(st.lists(STRINGS, min_size=rows, max_size=rows))
    return pa.table({
        "k": pa.array(range(rows), pa.int64()),  # sorted: a page each few keys
        "r": pa.array(maybe(draw(st.lists(st.integers(-30, 30), min_size=rows, max_size=rows))), pa.int32()),
        "s": pa.array(maybe(strings), pa.string()),
        "d": pa.array(maybe(draw(st.lists(FLOATS, min_size=rows, max_size=rows))), pa.float64()),
        "b": pa.array(maybe([text.encode() for text in strings]), pa.binary()),
    })


@st.composite
def leaves(draw) -> Leaf:
    column = draw(st.sampled_from(list(TYPES)))
    function = draw(st.sampled_from(OPERATORS))
    count = draw(st.integers(1, 3)) if function.arity is None else function.arity
    return Leaf(function, column, tuple(draw(st.lists(LITERALS[column], min_size=count, max_size=count))))


PREDICATES = st.recursive(leaves(), lambda inner: st.builds(lambda kind, children: kind(*children),
                                                           st.sampled_from([and_, or_]),
                                                           st.lists(inner, min_size=1, max_size=3)), max_leaves=4)


def write(path: Path, table: pa.Table, **options) -> str:
    pq.write_table(table, path, write_page_index=True, max_rows_per_page=options.pop("rows", 7),
                   row_group_size=options.pop("group", 50), **options)
    return str(path)


def truncated(index, cut: int):
    """A column index's string bounds as parquet-mr truncates them: a minimum cut to ``cut`` bytes (inside a
    character maybe), a maximum cut and its last byte rounded up (kept whole where it cannot be)."""
    def rounded_up(value: bytes) -> bytes:
        if len(value) <= cut or value[cut - 1] == 0xFF:
            return value
        return value[:cut - 1] + bytes([value[cut - 1] + 1])
    index.min_values = [value[:cut] for value in index.min_values]
    index.max_values = [rounded_up(value) for value in index.max_values]
    return index


def truth(table: pa.Table, predicate) -> np.ndarray:
    return np.flatnonzero(matches(table, predicate, TYPES))


def admitted(path: str, predicate, rows=None) -> np.ndarray | None:
    reader = DataFileReader(path)
    found = admitted_rows(reader, {name: (name, TYPES[name]) for name in TYPES}, predicate, rows)
    return None if found is None else found.to_numpy()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=tables(), predicate=PREDICATES, cut=st.none() | st.integers(1, 73), data=st.data())
def test_the_pages_admitted_hold_every_matching_row(tmp_path_factory, table, predicate, cut, data):
    """Whatever the predicate, the rows on the pages admitted include every row the exact filter keeps; with
    string bounds truncated as parquet-mr truncates them (a minimum cut inside a character too) as well."""
    path = tmp_path_factory.mktemp("pages") / "f.parquet"
    write(path, table, data_page_version=data.draw(st.sampled_from(["1.0", "2.0"])))
    if cut is not None:
        for group in range(pq.ParquetFile(path).metadata.num_row_groups):
            for leaf in (2, 4):
                with_column_index(path, group, leaf, lambda index: truncated(index, cut))
    candidates = data.draw(st.none() | st.lists(st.integers(0, table.num_rows - 1), unique=True).map(sorted))
    rows = None if candidates is None else pa.array(candidates, pa.int64())
    found = admitted(str(path), predicate, rows)
    want = truth(table, predicate)
    if candidates is not None:
        want = np.intersect1d(want, candidates)
    if found is not None:
        assert set(want) <= set(found.tolist()), (predicate, want, found)
        assert candidates is None or set(found.tolist()) <= set(candidates)


def test_a_key_of_a_sorted_column_is_probed_on_its_page_alone(tmp_path, monkeypatch):
    """``id = X`` on a sorted column: the probe of the predicate's column reads the rows of the one page whose
    bounds hold X (7 rows of 700), not the whole file; the answer is the file's matching row."""
    table = pa.table({"k": pa.array(range(700), pa.int64()), "v": pa.array([str(i) for i in range(700)])})
    path = write(tmp_path / "sorted.parquet", table, group=700)
    read = []
    original = DataFileReader.read_rows

    def counting(self, rows, columns):
        read.append((columns, self.row_count if rows is None else len(rows)))
        return original(self, rows, columns)

    monkeypatch.setattr(DataFileReader, "read_rows", counting)
    task = DataFileTask(path, "sorted.parquet", Path(path).stat().st_size)
    predicate = Leaf(Operator.EQ, "k", (345,))
    got = scan_reader.read_matching(task, None, table.schema, predicate, TYPES)
    assert got.to_pydict() == {"k": [345], "v": ["345"]}
    probed = [count for columns, count in read if "k" in columns]
    assert probed == [7], read


def test_no_page_admitted_reads_no_row(tmp_path, monkeypatch):
    table = pa.table({"k": pa.array([*range(0, 100), *range(200, 300)], pa.int64())})
    path = write(tmp_path / "gap.parquet", table, rows=10, group=200)
    task = DataFileTask(path, "gap.parquet", Path(path).stat().st_size)
    got = scan_reader.read_matching(task, None, table.schema, Leaf(Operator.EQ, "k", (150,)), TYPES)
    assert got.num_rows == 0


def swapped(index):
    index.min_values, index.max_values = index.max_values, index.min_values
    return index


def shortened(index):
    index.null_pages = index.null_pages[:-1]
    return index


def more_nulls_than_rows(index):
    index.null_counts = [1000] * len(index.null_pages)
    return index


def lying_null_page(index):
    index.null_pages = [True] * len(index.null_pages)
    index.null_counts = [0] * len(index.null_pages)
    return index


@pytest.mark.parametrize("edit, reason", [(swapped, "minimum is above its maximum"),
                                          (shortened, "not a bound for each"),
                                          (more_nulls_than_rows, "said to hold 1000 nulls"),
                                          (lying_null_page, "said to hold 0 nulls")])
def test_a_column_index_that_contradicts_itself_or_the_pages_is_a_typed_error_and_reads_exact_rows(tmp_path, edit,
                                                                                                   reason):
    table = pa.table({"k": pa.array(range(100), pa.int64())})
    path = write(tmp_path / "hostile.parquet", table, rows=10, group=100)
    with_column_index(tmp_path / "hostile.parquet", 0, 0, edit)
    footer = parquet_pages.PagedFooter.read(path)
    with pytest.raises(parquet_pages.Unreadable, match=reason) as raised:
        parquet_pages.page_bounds(path, footer, 0, 0)
    assert path in str(raised.value) and "column index at" in str(raised.value)
    data_files.FOOTERS.clear()
    task = DataFileTask(path, "hostile.parquet", Path(path).stat().st_size)
    got = scan_reader.read_matching(task, None, table.schema, Leaf(Operator.EQ, "k", (45,)), TYPES)
    assert got.column("k").to_pylist() == [45]


def test_a_column_index_of_wrong_list_lengths_beyond_its_bytes_is_refused(tmp_path):
    table = pa.table({"s": pa.array(["a" * 50 + str(i) for i in range(40)])})
    path = write(tmp_path / "long.parquet", table, rows=10, group=40)

    def padded(index):
        index.min_values = index.min_values + [b"z" * 10] * 5000
        return index

    with_column_index(tmp_path / "long.parquet", 0, 0, padded)
    footer = parquet_pages.PagedFooter.read(path)
    with pytest.raises(parquet_pages.Unreadable):
        parquet_pages.page_bounds(path, footer, 0, 0)
