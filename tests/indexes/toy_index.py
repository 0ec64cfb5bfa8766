"""A toy index type, ``toy-set``, that lives in the tests only: a package as small as one can be
(writer, reader, deep check, exhaustive check, one option) and its :class:`IndexType`. Registered by
the fixture of ``test_toy_index_type.py``, it shows the rest of the package needs no other edit.

Body: the row count (int32, big-endian), then JSON ``{"values": {"<value>": [rows]}, "nulls": [rows]}``.
"""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from fileindex import errors
from fileindex.indexes.exhaustive import Disagreement, Outcome, wrong_row_count
from fileindex.indexes.index_type import IndexType
from fileindex.indexes.invariants import BodyFacts, violation
from fileindex.indexes.options import check_known, get_int
from fileindex.indexes.reader import FileIndexReader
from fileindex.indexes.result import SKIP, Rows

NAME = "toy-set"
OPTIONS = ("limit",)


def build(values, data_type, options=None) -> bytes:
    """Every distinct integer value with its rows; more than ``limit`` distinct values make an empty map
    (the reader then answers REMAIN)."""
    options = options or {}
    check_known(options, OPTIONS, NAME)
    if data_type.root not in ("INT", "BIGINT"):
        raise errors.UnsupportedTypeError(f"{NAME} indexes INT and BIGINT columns, not {data_type}")
    limit = get_int(options, "limit", 1000)
    rows: dict[str, list[int]] = {}
    nulls = []
    for row, value in enumerate(pa.array(values).to_pylist() if not isinstance(values, list) else values):
        if value is None:
            nulls.append(row)
        else:
            rows.setdefault(str(value), []).append(row)
    body = {"values": rows if len(rows) <= limit else None, "nulls": nulls}
    return len(nulls + [r for rs in rows.values() for r in rs]).to_bytes(4, "big") + json.dumps(body).encode()


class ToyReader(FileIndexReader):
    def __init__(self, payload, data_type, *, base_offset: int = 0):
        data = bytes(payload)
        if len(data) < 4:
            raise errors.TruncatedError(f"a {NAME} body of {len(data)} bytes", offset=base_offset,
                                        field="toy/row_count")
        self.row_count = int.from_bytes(data[:4], "big")
        try:
            body = json.loads(data[4:])
        except ValueError:
            raise errors.DecodeError(f"a {NAME} body is not JSON", offset=base_offset + 4, field="toy/body") from None
        self.values, self.nulls = body["values"], body["nulls"]
        self.base_offset = base_offset

    def validate(self) -> None:
        pass

    def visit_is_null(self):
        return Rows(self.nulls)

    def visit_is_not_null(self):
        return Rows(set(range(self.row_count)) - set(self.nulls))

    def visit_equal(self, literal):
        if self.values is None:
            return super().visit_equal(literal)
        return Rows(self.values.get(str(literal), ())) if str(literal) in self.values else SKIP


def check(payload, data_type, *, base_offset: int = 0, distinct: int | None = None) -> BodyFacts:
    reader = ToyReader(payload, data_type, base_offset=base_offset)
    for rows in [reader.nulls, *(reader.values or {}).values()]:
        if rows and max(rows) >= reader.row_count:
            raise violation(f"row {max(rows)} past the row count {reader.row_count}", offset=base_offset + 4,
                            field="toy/body", java_notices=False)
    return BodyFacts(reader.row_count, None if reader.values is None else len(reader.values))


def exhaustive(reader: ToyReader, values: pa.Array, data_type, row_count: int) -> Outcome:
    found = wrong_row_count(reader.row_count, row_count)
    said = np.full(row_count, None, dtype=object)
    for value, rows in (reader.values or {}).items():
        said[rows] = value
    expected = np.array([None if v is None else str(v) for v in values.to_pylist()], dtype=object)
    wrong = np.flatnonzero(said != expected) if reader.values is not None else np.empty(0, dtype=np.int64)
    if len(wrong):
        found.append(Disagreement("wrong value", "every row's value", wrong, lambda i: f"says {said[wrong[i]]}"))
    return Outcome(row_count, found)


INDEX = IndexType(
    NAME, OPTIONS, build, ToyReader, check,
    row_count_at=(0, "toy/row_count"),
    exact=frozenset({"eq", "in", "is_null", "is_not_null"}),
    exhaustive=exhaustive,
    when_too_large="a toy: use no index",
)
