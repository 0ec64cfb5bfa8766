"""What an exhaustive check of one index body yields (``fileindex verify --exhaustive``): each index
package's ``exhaustive`` module checks every row of a data file against what its body says about that
row; :mod:`fileindex.pipeline.exhaustive` runs them."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

import numpy as np


@dataclass
class Disagreement:
    kind: str  # false negative, wrong rows, wrong value, out of range, row count
    check: str  # what was checked, for the report
    rows: np.ndarray  # the rows that differ, ascending
    says: Callable[[int], str]  # what the index says about the i-th of ``rows``


@dataclass
class Outcome:
    checks: int  # rows (or values) checked
    disagreements: list[Disagreement]


def wrong_row_count(index_rows: int, data_rows: int) -> list[Disagreement]:
    if index_rows == data_rows:
        return []
    return [Disagreement("row count", f"row count: the index has {index_rows} rows, the data file {data_rows}",
                         np.empty(0, dtype=np.int64), lambda i: "")]


def past_the_end(count: int, row_count: int) -> list[Disagreement]:
    if not count:
        return []
    return [Disagreement("out of range", f"rows in [0, {row_count}): the index holds {count} rows past the end",
                         np.empty(0, dtype=np.int64), lambda i: "")]


def show(value) -> str:
    if isinstance(value, (bytes, bytearray)):
        return repr(bytes(value).decode("utf-8", "replace"))
    return repr(value) if isinstance(value, str) else str(value)

