"""The plans a ``PaimonTable`` keeps. A table reads one snapshot, and a snapshot's files never change, so the plan
of a predicate is the same each time a scan of that table asks for it: a repeated ``count()``, top-N or read on the
same table plans once. A new ``PaimonTable`` (at the latest snapshot, or another) starts with none.

Bounded: at most ``PLANS`` plans weighing ``PLAN_BYTES`` in all (a file read counted as ``FILE_READ_BYTES`` plus
its verdict's row bitmap; least recently used out); shared by threads under a lock; a table pickled (Spark ships
it) arrives with none. ``FILEINDEX_MEMOS=off`` keeps none.
"""
from __future__ import annotations

import sys
from collections.abc import Hashable

from fileindex.indexes.result import Rows
from fileindex.memo import BoundedMemo
from fileindex.scan.funnel import FileRead, Stage

PLANS = 32  # predicates a table keeps the plan of
PLAN_BYTES = 64 << 20  # what those plans hold, about
FILE_READ_BYTES = 1200  # a file read with its verdict, but for the verdict's rows (measured: 1,100 in the bench table)

Plan = tuple[tuple[FileRead, ...], tuple[Stage, ...]]


class Plans:
    """A table's plans by predicate; a plan that says each verdict's exactness serves a plain plan too."""

    def __init__(self) -> None:
        self._memo: BoundedMemo[Plan] = BoundedMemo(items=PLANS, budget=PLAN_BYTES)

    def __reduce__(self):  # (pickled empty: a lock does not travel)
        return Plans, ()

    def get(self, predicate: Hashable, *, exact: bool) -> tuple[Plan, bool] | None:
        """(the plan kept, whether it says its verdicts' exactness); None: none kept (``exact``: none saying it)."""
        found = self._memo.get((predicate, True))
        if found is not None:
            return found, True
        found = None if exact else self._memo.get((predicate, False))
        return None if found is None else (found, False)

    def put(self, predicate: Hashable, plan: Plan, *, exact: bool) -> None:
        self._memo.put((predicate, exact), plan, sum(map(_weight, plan[0])))

    def __len__(self) -> int:
        return len(self._memo)


def _weight(item: FileRead) -> int:
    rows = item.verdict.result if item.verdict is not None else None
    return FILE_READ_BYTES + (sys.getsizeof(rows.bitmap) if isinstance(rows, Rows) else 0)
