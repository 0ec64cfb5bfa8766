"""Predicates drawn over a table's real values (and values absent from it), for the differential suites
(the Spark usage suite, the Python table reader) and the shared Java-written tables they run on."""
from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field

import pyarrow as pa
from conftest import ROOT
from hypothesis import strategies as st

from fileindex.types import column_type

TABLES = ROOT / "tests" / "tables"
SHARED_TABLES = [TABLES / fmt / f"{name}.db" / name for fmt in ("parquet", "orc") for name in (
    "append_with_bitmap", "append_with_bitmap_v1", "append_with_bitmap_no_embedding", "append_with_bitmap_alter_table",
    "append_with_bloomfilter", "append_with_bsi", "append_with_bsi_bitmap_bloomfilter", "pk_with_bitmap_dv")]
SHARED_TABLES += [TABLES / "orc" / "timestamp_index.db" / "timestamp_index",
                  TABLES / "append_with_bitmap_multi_stripes.db" / "append_with_bitmap_multi_stripes"]


@dataclass
class Subject:
    """A table or a folder of data files, with its live rows as pyarrow reads them."""
    path: str
    types: dict = field(repr=False)
    rows: pa.Table = field(repr=False)


def literal(value, data_type) -> str:
    root = data_type.root
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if root == "DATE":
        return f"DATE '{value.isoformat()}'"
    if data_type.is_timestamp:
        return f"TIMESTAMP '{naive_utc(value).isoformat(sep=' ')}'"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value).replace("e", "E")
    return str(value)


def naive_utc(value: dt.datetime) -> dt.datetime:
    """A LOCAL TIME ZONE value as its UTC wall clock, the form the predicate syntax takes."""
    return value if value.tzinfo is None else value.astimezone(dt.UTC).replace(tzinfo=None)


def quoted(column: str) -> str:
    if "[" in column:
        base, key = column[:-1].split("[", 1)
        return f"`{base}`['{key}']"
    return f"`{column}`"


FILTERABLE = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DOUBLE", "STRING", "VARCHAR", "CHAR", "DATE", "BOOLEAN")


def candidate_columns(subject: Subject) -> list[str]:
    names = [n for n, t in subject.types.items() if t.root in FILTERABLE and n in subject.rows.column_names]
    names += [n for n, t in subject.types.items() if t.is_timestamp and t.precision <= 6
              and n in subject.rows.column_names]
    names += [f"{n}[k]" for n, t in subject.types.items() if t.root == "MAP" and n in subject.rows.column_names]
    return sorted(names)


def column_literals(subject: Subject, column: str) -> list:
    from fileindex.scan.truth import column_values

    values = [v for v in column_values(subject.rows, column).to_pylist() if v is not None]
    return [naive_utc(v) if isinstance(v, dt.datetime) else v for v in values]


@st.composite
def leaves(draw, subject: Subject):
    column = draw(st.sampled_from(candidate_columns(subject)))
    data_type = column_type(subject.types, column)
    present = column_literals(subject, column)
    absent = {"STRING": ["zz-absent", "é"], "VARCHAR": ["zz-absent"], "CHAR": ["zz"], "DOUBLE": [-0.0, 0.0, 1e300,
              float("nan"), float("-inf")], "DATE": [dt.date(1999, 1, 1)], "BOOLEAN": [True, False]}.get(
        data_type.root, [100, -7, 0] if not data_type.is_timestamp else [dt.datetime(2000, 1, 1)])
    pool = present + absent if present else absent
    pick = lambda: draw(st.sampled_from(pool))  # noqa: E731
    name = quoted(column)
    kind = draw(st.sampled_from(["eq", "neq", "cmp", "in", "not_in", "null", "not_null", "between"]))
    if kind == "null":
        return f"{name} IS NULL"
    if kind == "not_null":
        return f"{name} IS NOT NULL"
    if kind == "in":
        return f"{name} IN ({', '.join(literal(pick(), data_type) for _ in range(draw(st.integers(1, 4))))})"
    if kind == "not_in":
        return f"{name} NOT IN ({', '.join(literal(pick(), data_type) for _ in range(draw(st.integers(1, 3))))})"
    if kind == "between" and data_type.root != "BOOLEAN":
        low, high = sorted([pick(), pick()], key=lambda v: (isinstance(v, float) and math.isnan(v), v))
        return f"{name} BETWEEN {literal(low, data_type)} AND {literal(high, data_type)}"
    operator = {"eq": "=", "neq": "<>"}.get(kind) or draw(st.sampled_from(["<", "<=", ">", ">="]))
    return f"{name} {operator} {literal(pick(), data_type)}"


@st.composite
def predicates(draw, subject: Subject, depth: int = 2):
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(leaves(subject))
    shape = draw(st.sampled_from(["and", "or", "not"]))
    if shape == "not":
        return f"NOT ({draw(predicates(subject, depth - 1))})"
    parts = [draw(predicates(subject, depth - 1)) for _ in range(draw(st.integers(2, 3)))]
    return f" {shape.upper()} ".join(f"({p})" for p in parts)


def row_key(row: dict) -> str:
    return json.dumps(row, default=str, sort_keys=True)


def plain_rows(path) -> tuple[dict, pa.Table]:
    """Every live row of the table (deleted rows left out), read without any index."""
    from fileindex.indexes.result import REMAIN
    from fileindex.pipeline.inputs import resolve_inputs
    from fileindex.scan.reader import output_schema, read_candidates, scannable, selection
    from fileindex.table.verdict import FileVerdict

    inputs = resolve_inputs([str(path)])
    schema = output_schema(inputs)
    parts = [read_candidates(t, selection(FileVerdict(t.name, t.open().row_count, "", REMAIN), t.deleted_rows()),
                             schema) for t in scannable(inputs)]
    return inputs.table.schema.types(), pa.concat_tables(parts)
