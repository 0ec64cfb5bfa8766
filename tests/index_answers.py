"""Helpers of the tests of index answers: index options and predicate trees drawn, the rows a result keeps, and
Java's TopN semantics by sorting."""
from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from fileindex.indexes.result import REMAIN, SKIP, FileIndexResult, Rows
from fileindex.predicate.tree import And, Or, negate


def index_options(draw, indexes: dict[str, list[str]], rows: int, *, min_size: int = 0,
                  max_size: int = 3) -> dict[str, str]:
    """Table options indexing each column with a drawn set of its index types (bitmaps of version 1 or 2)."""
    options: dict[str, str] = {}
    for column, kinds in indexes.items():
        for kind in draw(st.lists(st.sampled_from(kinds), unique=True, min_size=min_size, max_size=max_size)):
            key = f"file-index.{kind}.columns"
            options[key] = options[key] + "," + column if key in options else column
            if kind == "bloom-filter":
                options[f"file-index.bloom-filter.{column}.items"] = str(max(rows, 1))
            if kind == "bitmap" and draw(st.booleans()):
                options[f"file-index.bitmap.{column}.version"] = "1"
    return options


@st.composite
def trees(draw, leaves: st.SearchStrategy, depth: int = 2):
    """A predicate tree of drawn ``leaves`` under AND, OR and NOT (pushed to the leaves, as the parser does)."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(leaves)
    shape = draw(st.sampled_from(["and", "or", "not"]))
    if shape == "not":
        return negate(draw(trees(leaves, depth - 1)))
    children = tuple(draw(st.lists(trees(leaves, depth - 1), min_size=2, max_size=3)))
    return And(children) if shape == "and" else Or(children)


def kept_rows(result: FileIndexResult, row_count: int) -> set[int]:
    """The rows a result keeps of a file of ``row_count`` rows."""
    if result is SKIP:
        return set()
    if result is REMAIN:
        return set(range(row_count))
    assert isinstance(result, Rows)
    return set(result.bitmap)


class Descending:
    """A sort key in reverse (for keys that cannot be negated: bytes)."""

    def __init__(self, value):
        self.value = value

    def __lt__(self, other):
        return self.value > other.value

    def __eq__(self, other):
        return self.value == other.value


def top_n_model(keys: list, k: int, descending: bool, nulls_first: bool, found, strict: bool) -> set[int]:
    """Java's TopN (spec §8.5) by sorting the rows' ``keys`` (None: a null): at the k-th place a tie among values
    keeps the largest row ids and among nulls the smallest (``strict``), or every tied row."""
    allowed: Callable[[int], bool] = (lambda row: row in found) if found is not None else (lambda row: True)
    present = [row for row, key in enumerate(keys) if key is not None and allowed(row)]
    nulls = [row for row, key in enumerate(keys) if key is None and allowed(row)]
    ordered = sorted(present, key=lambda row: (Descending(keys[row]) if descending else keys[row], -row))

    def best(count: int) -> set[int]:
        if count <= 0:
            return set()
        if len(ordered) <= count:
            return set(ordered)
        if strict:
            return set(ordered[:count])
        boundary = keys[ordered[count - 1]]
        return {row for row in present if (keys[row] >= boundary if descending else keys[row] <= boundary)}

    if nulls_first:
        taken = set(nulls[:k]) if strict else set(nulls)
        return taken | best(k - len(taken)) if len(taken) < k else taken
    taken = best(k)
    if len(taken) < k:
        taken |= set(nulls[:k - len(taken)]) if strict else set(nulls)
    return taken
