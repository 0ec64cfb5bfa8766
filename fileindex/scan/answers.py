"""Answers a scan gives without reading every row: ``TableScan.count()`` and the top-N rows of ``order_by``.

A count adds, per planned file: 0 where a stage rules it out; its rows read (the index's rows, or every row,
minus the deletion vector) where those are exactly the matching rows (``FileRead.exact``: no predicate, or an
exact index answer to a lossless predicate); else the rows of its matching ones, reading only the predicate's
columns. A table whose rows a merge decides (a primary-key table without deletion vectors) or whose columns
a group of files holds (data evolution) is counted by reading, never from one file's index: as the rows are read
(the limit too), with the columns whose values decide whether a key's merge fails, so that a count fails
exactly where the read fails.

Top-N ranks by one column: per file the range-bitmap's or bsi's top positions within its exact rows
(``FileIndexEvaluator.top_n``), else the file's matching values (the order and predicate columns read); then
the global top k across files, and only those rows' selected columns read. Rows are a valid top-k: every row
returned orders at or before every row left out. Nulls sort as Spark and Flink (Paimon's engines) sort them
by default, as the smallest value: ``ASC`` puts them first, ``DESC`` last (DuckDB puts them last either way);
``NULLS FIRST``/``NULLS LAST`` says otherwise. NaN orders after +Infinity, as Java's ``Float.compare``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import pyarrow as pa
from pyroaring import FrozenBitMap

from fileindex.arrow import scalars
from fileindex.errors import FileIndexError, UsageError
from fileindex.indexes.result import SKIP
from fileindex.parallel import for_each, threads
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.operators import Operator
from fileindex.predicate.parser import closest_column
from fileindex.predicate.tree import Leaf, Predicate, and_, or_
from fileindex.scan.funnel import NO_PREDICATE, FileRead
from fileindex.scan.polars_filters import arrow_values
from fileindex.scan.pushdown import paimon_literal
from fileindex.scan.reader import read_candidates, selection
from fileindex.scan.truth import matches, source_columns
from fileindex.lazy import LazyModule, numpy as np

if TYPE_CHECKING:
    from fileindex.arrow import compute
    from fileindex.types import DataType
    from fileindex.scan.table import PaimonTable
    from fileindex.scan.table_scan import TableScan
else:
    compute = LazyModule("fileindex.arrow.compute")

METADATA, INDEX, READ = "metadata", "index", "read"  # how a file's part of an answer was found
UNORDERED = ("MAP", "ARRAY", "MULTISET", "ROW", "VARIANT")


@dataclass(frozen=True)
class OrderBy:
    """``ORDER BY column [ASC|DESC] [NULLS FIRST|LAST]``; ``nulls_first`` None: the default (nulls smallest)."""

    column: str
    descending: bool = False
    nulls_first: bool | None = None

    @property
    def nulls_come_first(self) -> bool:
        return self.nulls_first if self.nulls_first is not None else not self.descending

    def __str__(self) -> str:
        return f"{self.column}{' DESC' if self.descending else ''}" + \
            ("" if self.nulls_first is None else f" NULLS {'FIRST' if self.nulls_first else 'LAST'}")


_ORDER = re.compile(r"^\s*(?P<column>.+?)(?:\s+(?P<direction>ASC|DESC))?(?:\s+NULLS\s+(?P<nulls>FIRST|LAST))?\s*$",
                    re.IGNORECASE)


def parse_order(order_by: str | OrderBy, types: dict[str, DataType]) -> OrderBy:
    """``"ts"``, ``"ts DESC"``, ``"ts ASC NULLS LAST"``... as an :class:`OrderBy` of a column of ``types``."""
    order = order_by if isinstance(order_by, OrderBy) else _parsed(order_by)
    if order.column not in types:
        raise UsageError(_unknown_order(order.column, types))
    if types[order.column].root in UNORDERED:
        raise UsageError(f"cannot order by {order.column!r}: its type {types[order.column]} has no order; give a "
                         "column of numbers, strings, dates or timestamps")
    return order


_ORDER_WORDS = [f"{direction}{nulls}".strip() for direction in ("", "ASC ", "DESC ")
                for nulls in ("", "NULLS FIRST", "NULLS LAST")][1:]


def _unknown_order(column: str, types: dict[str, DataType]) -> str:
    """A column the table lacks; where it is a column followed by words that are no direction (``f1 DESCC``), what
    those words should be."""
    from fileindex.tokens import closest_name

    named = next((name for name in sorted(types, key=len, reverse=True) if column.startswith(f"{name} ")), None)
    first = column.split(",")[0].strip()
    if named is None and "," in column and first in types:
        return f"cannot order by {column!r}: rows are ordered by one column; give one, as {first!r}"
    if named is None:
        return f"cannot order by unknown column {column!r}{closest_column(column, list(types), as_written=True)}"
    rest = " ".join(column[len(named):].split())
    meant = closest_name(rest.upper(), _ORDER_WORDS) or _abbreviated(rest.upper())
    return (f"cannot order by {column!r}: after column {named}, {rest!r} is not ASC or DESC and NULLS FIRST or LAST"
            f"{f' (did you mean {named} {meant}?)' if meant else ''}")


def _abbreviated(words: str) -> str | None:
    """The shortest of ASC, DESC, ... whose letters ``words`` has in order (DSC: DESC), if one."""
    def abbreviates(word: str) -> bool:
        letters = iter(word)
        return all(letter in letters for letter in words)
    return min((word for word in _ORDER_WORDS if abbreviates(word)), key=len, default=None)


def _parsed(text: str) -> OrderBy:
    found = _ORDER.match(text) if isinstance(text, str) else None
    if found is None or not found["column"].strip():
        raise UsageError(f"order_by={text!r}: give a column, then ASC or DESC and NULLS FIRST or LAST if wanted, "
                         "e.g. 'ts DESC'")
    nulls = found["nulls"]
    return OrderBy(found["column"].strip(), (found["direction"] or "").upper() == "DESC",
                   None if nulls is None else nulls.upper() == "FIRST")


# ---------------------------------------------------------------------------------------------- count

def merged(table: PaimonTable) -> bool:
    """Does a row's value depend on more than one file (a merge by key, or columns spread over a group)?"""
    return bool(table.schema.primary_keys and not table.deletion_vectors_enabled) or table.data_evolution


def count_rows(scan: TableScan) -> int:
    """The number of rows ``scan`` returns (its limit applied)."""
    if scan.limit == 0:
        return 0
    if merged(scan.table):  # (read as the rows are, limit included: a read that stops early counts as it stops)
        narrow = scan.narrowed(scan.predicate, count_columns(scan), scan.limit)
        return sum(batch.num_rows for batch in narrow.to_batches())
    files = scan.plan(exact=True)
    to_read = [item for item in files if item.to_read and not item.exact]
    total = sum(item.rows for item in files if item.to_read and item.exact)
    if to_read:
        narrow = scan.narrowed(scan.predicate, count_columns(scan), None)
        total += sum(for_each(lambda item: narrow._read_file(item).num_rows, to_read))
    return total if scan.limit is None else min(total, scan.limit)


def count_columns(scan: TableScan) -> list[str]:
    """What a count reads of a file it cannot answer without reading: the predicate's columns (or one column);
    of a primary-key table that merges, also the columns read whose values decide whether a key's merge fails
    (``merge.spec.deciding_columns``), so that the count fails where the read fails."""
    names = [] if scan.predicate is None else \
        source_columns(scan.predicate, [f.name for f in scan.table.schema.fields])
    if scan.table.schema.primary_keys and merged(scan.table):
        from fileindex.merge.spec import deciding_columns, merge_spec

        read = scan.read_schema.names
        names = [*names, *(n for n in deciding_columns(merge_spec(scan.table.schema)) if n in read and n not in names)]
    return names if names or scan.predicate is not None else list(scan.schema.names[:1])


def answered(item: FileRead, table: PaimonTable, read_columns: list[str]) -> dict:
    """How ``count()`` finds a file's part of the count: ``{"answered_by": "metadata"|"index"|"read"}``, with the
    columns read (``read_columns``) for a file that is read."""
    if item.read == "merged":
        return {"answered_by": READ, "read_columns": read_columns}
    if item.read == "none":
        from_index = item.skipped_by == "file_index" or (item.skipped_by == "deletion_vectors" and item.verdict
                                                         is not None and item.verdict.result.kind == "ROWS")
        return {"answered_by": INDEX if from_index else METADATA}
    if not merged(table) and item.exact:
        return {"answered_by": METADATA if item.why == NO_PREDICATE else INDEX}
    return {"answered_by": READ, "read_columns": read_columns}


# ---------------------------------------------------------------------------------------------- top-N

def top_rows(scan: TableScan, order: OrderBy) -> pa.Table:
    """The scan's first ``scan.limit`` rows (all: None) in ``order``, as a table of its columns."""
    limit = scan.limit
    if limit == 0:
        return scalars.empty_table(scan.schema)
    if merged(scan.table) or limit is None:
        wanted = list(dict.fromkeys([*scan.columns, order.column]))
        rows = scan.narrowed(scan.predicate, wanted, None).to_arrow()
        return compute.take_rows(rows, ranked(rows.column(order.column), order)[:limit]).select(scan.columns)
    items = [item for item in scan.plan(exact=True) if item.to_read]
    best = _Best(order, limit)
    read = [n for n, item in enumerate(items) if not item.exact]  # (read first, on threads: they set a bound)
    for n, (positions, values) in zip(read, for_each(lambda n: _file_candidates(scan, items[n], order, limit), read),
                                      strict=True):
        best.add(n, positions, values)
    exact = [n for n, item in enumerate(items) if item.exact]
    for first in range(0, len(exact), threads()):  # a file at a time per thread, each asked only for rows that
        before = best.before(scan.table.schema.types())  # order before the k-th found so far
        chunk = exact[first:first + threads()]
        found = for_each(partial(_nth_candidates, scan, items, order, limit, before), chunk)
        for n, (positions, values) in zip(chunk, found, strict=True):
            best.add(n, positions, values)
    if not len(best.owners):
        return scalars.empty_table(scan.schema)
    parts, starts, where = [], {}, 0
    for owner in sorted(set(best.owners.tolist())):  # (np.unique imports numpy.ma, 0.1 s of a cold top-N)
        kept = np.sort(best.positions[best.owners == owner])
        task = items[owner].task
        assert task is not None
        parts.append(read_candidates(task, kept.astype(np.int64), scan.schema))
        starts[int(owner)] = (where, kept)
        where += len(kept)
    rows = pa.concat_tables(parts)
    take = [starts[int(o)][0] + int(np.searchsorted(starts[int(o)][1], p))
            for o, p in zip(best.owners, best.positions, strict=True)]
    return compute.call("take", rows, scalars.array(take, pa.int64()))


class _Best:
    """The first ``limit`` candidate rows found so far, in order: (file, position, value of the order column)."""

    def __init__(self, order: OrderBy, limit: int):
        self.order, self.limit = order, limit
        self.owners = np.zeros(0, dtype=np.int64)
        self.positions = np.zeros(0, dtype=np.int64)
        self.values: pa.Array | None = None

    def add(self, owner: int, positions: np.ndarray, values: pa.Array) -> None:
        if not len(positions):
            return
        values = values if self.values is None else pa.concat_arrays([self.values, values.cast(self.values.type)])
        owners = np.concatenate([self.owners, np.full(len(positions), owner, dtype=np.int64)])
        positions = np.concatenate([self.positions, positions.astype(np.int64)])
        chosen = ranked(values, self.order)[:self.limit]
        self.owners, self.positions = owners[chosen], positions[chosen]
        self.values = compute.call("take", values, compute.int64_array(chosen))

    def before(self, types: dict) -> Predicate | None:
        """The rows that order strictly before the k-th found (None: any row may; once ``limit`` rows are found,
        a row that orders at or after the k-th may be left out); nothing but comparisons Paimon's predicates make
        as the order does (no floating-point column: NaN and -0.0 order otherwise)."""
        if self.values is None or len(self.values) < self.limit:
            return None
        column, data_type = self.order.column, types[self.order.column]
        last = self.values[self.limit - 1]
        nulls = Leaf(Operator.IS_NULL, column)
        if not last.is_valid:  # (nulls first: no row orders before a null, an OR of nothing)
            return or_() if self.order.nulls_come_first else Leaf(Operator.IS_NOT_NULL, column)
        if data_type.root in ("FLOAT", "DOUBLE"):
            return None
        try:
            value = arrow_values(scalars.array([last.as_py()], last.type))[0]
            literal = paimon_literal(value, data_type, column) if value is not None else None
        except Exception:  # (a type the engines' literals do not carry: no bound, every file asked as planned)
            return None
        if literal is None:
            return None
        strictly = Leaf(Operator.GT if self.order.descending else Operator.LT, column, (literal,))
        return or_(strictly, nulls) if self.order.nulls_come_first else strictly


def _nth_candidates(scan: TableScan, items: list[FileRead], order: OrderBy, limit: int, before: Predicate | None,
                    n: int) -> tuple[np.ndarray, pa.Array]:
    return _file_candidates(scan, items[n], order, limit, before)


def _file_candidates(scan: TableScan, item: FileRead, order: OrderBy, limit: int,
                     before: Predicate | None = None) -> tuple[np.ndarray, pa.Array]:
    """The positions of a file's first ``limit`` matching rows in ``order`` and their values of the order column:
    from its index where that answers, else from the file's order and predicate columns. ``before``: only rows
    that satisfy it are wanted (where the index answers it exactly with the scan's predicate)."""
    task, verdict = item.task, item.verdict
    assert task is not None and verdict is not None
    order_field = pa.schema([scan.read_schema.field(order.column)]) if order.column in scan.read_schema.names \
        else pa.schema([_table_field(scan, order.column)])
    if before is not None:
        narrowed = scan.table.verdict(task.table_entry(), and_(*([scan.predicate] if scan.predicate else []), before),
                                      task.vector, exact=True)
        if narrowed.exact:
            verdict = narrowed
            if verdict.result is SKIP:
                return np.zeros(0, dtype=np.int64), scalars.array([], order_field[0].type)
    rows = selection(verdict, task.deleted_rows())
    if item.exact:
        positions = index_top(scan.table, item, order, limit, rows)
        if positions is not None:
            return positions, read_candidates(task, positions, order_field).column(0).combine_chunks()
    wanted = list(dict.fromkeys([order.column, *(source_columns(scan.predicate, scan.read_schema.names)
                                                 if scan.predicate is not None else [])]))
    probe = read_candidates(task, rows, pa.schema([*order_field, *(scan.read_schema.field(n) for n in wanted[1:])]))
    candidates = np.arange(probe.num_rows, dtype=np.int64) if rows is None else rows
    values = probe.column(order.column).combine_chunks()
    if scan.predicate is not None:
        mask = matches(probe, scan.predicate, scan.types)
        candidates, values = candidates[mask], compute.call("filter", values, compute.bool_array(mask))
    best = ranked(values, order)[:limit]
    return candidates[best], compute.call("take", values, compute.int64_array(best))


def index_top(table: PaimonTable, item: FileRead, order: OrderBy, limit: int,
              rows: np.ndarray | None) -> np.ndarray | None:
    """The positions of the first ``limit`` of ``rows`` (exactly the file's matching rows; None: every row) in
    ``order`` from the file's range-bitmap or bsi on the order column, ascending; None where none answers (no
    such index, a column retyped since the file was written, an index that cannot be read)."""
    task = item.task
    assert task is not None
    entry = task.table_entry()
    field = table.schema.by_name()[order.column]
    written = table.data_schema(entry).by_id().get(field.id)
    if written is None or written.type != field.type:
        return None
    try:
        _, container, _ = task.container()
        if container is None:
            return None
        with container:
            answer = FileIndexEvaluator(table.data_schema(entry).types()).top_n(
                container, written.name, limit, descending=order.descending, nulls_first=order.nulls_come_first,
                selection=None if rows is None else FrozenBitMap(rows.astype(np.uint32)))
    except (FileIndexError, OSError):
        return None
    return None if answer is None else np.asarray(answer.bitmap.to_array(), dtype=np.int64)


def ranked(values: pa.Array | pa.ChunkedArray, order: OrderBy) -> np.ndarray:
    """The positions of ``values`` in ``order`` (stable: ties keep their positions)."""
    import pyarrow.compute as pc

    values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    direction = "descending" if order.descending else "ascending"
    nulls_first = order.nulls_come_first
    keys = {"null": pc.is_null(values), "value": values}
    sort_keys = [("null", "descending" if nulls_first else "ascending")]
    if pa.types.is_floating(values.type):  # NaN after +Infinity (Float.compare), whichever way the order goes
        keys["nan"] = pc.fill_null(pc.is_nan(values), False)
        sort_keys.append(("nan", direction))
    sort_keys.append(("value", direction))
    return compute.to_numpy(pc.sort_indices(pa.table(keys), sort_keys=sort_keys))


def _table_field(scan: TableScan, name: str) -> pa.Field:
    from fileindex.arrow.types import arrow_type

    field = scan.table.schema.by_name()[name]
    return pa.field(name, arrow_type(field.type))
