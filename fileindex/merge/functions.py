"""Paimon 0.9.0's merge functions over one key's records, in the order its sort-merge reader hands them over
(ascending sequence: the sequence fields, nulls first, then ``_SEQUENCE_NUMBER``), with the reader's wrappers:

* ``ReducerMergeFunctionWrapper``: a key with one record is that record, unmerged;
* ``DropDeleteReader``: a result that is a retraction (-U, -D) or none is no row.

The engines:

* deduplicate: the last record (``ignore-delete``: the last that is not a retraction);
* first-row: the first record that is not a retraction (a retraction without ``ignore-delete`` fails);
* partial-update: per field the last non-null value; a retraction is skipped (``ignore-delete``), removes the
  row (``partial-update.remove-record-on-delete``, -D only), retracts its sequence groups' fields, or fails;
  with sequence groups each group's fields follow their own sequence fields, and a field with an aggregate
  function is aggregated within its group;
* aggregation: every field folded by its aggregator (retractions by its ``retract``).

A record is ``(kind, values)``: the row kind (0 +I, 1 -U, 2 +U, 3 -D) and the values of the merge's columns,
in order. :class:`KeyMerger` is the reference the vectorised reader (``reader``) falls back to for keys with
several records, and the model the tests hold it to.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fileindex.merge.aggregators import FieldAggregator, make_aggregator
from fileindex.merge.errors import MergeError
from fileindex.merge.spec import AGGREGATION, DEDUPLICATE, FIRST_ROW, PARTIAL_UPDATE, MergeSpec

INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = 0, 1, 2, 3
KINDS = {"+I": INSERT, "-U": UPDATE_BEFORE, "+U": UPDATE_AFTER, "-D": DELETE}

Record = tuple[int, Sequence[Any]]


def is_retract(kind: int) -> bool:
    return kind in (UPDATE_BEFORE, DELETE)


class KeyMerger:
    """The merge of one key's records for a table's merge and the columns read (``layout.read_columns``)."""

    def __init__(self, spec: MergeSpec, columns: Sequence[str]):
        self.spec = spec
        self.columns = list(columns)
        position = {name: i for i, name in enumerate(self.columns)}
        types = spec.types()
        wanted = spec.aggregate_of()
        self.aggregators: dict[int, FieldAggregator] = {
            position[name]: make_aggregator(a.function, types[name], ignore_retract=a.ignore_retract,
                                            delimiter=a.delimiter) for name, a in wanted.items() if name in position}
        # partial-update: a field's group, as the sequence fields' positions
        self.group_of: dict[int, tuple[int, ...]] = {}
        for group in spec.groups:
            sequence = tuple(position[n] for n in group.sequence_fields if n in position)
            if len(sequence) < len(group.sequence_fields):
                if any(n in position for n in group.fields):
                    raise ValueError(f"the columns read lack sequence fields of {group.sequence_fields}")
                continue
            for name in group.fields:
                if name in position:
                    self.group_of[position[name]] = sequence

    def merge(self, records: Sequence[Record]) -> list | None:
        """The key's row (its values in the merge's columns), or None: no row."""
        if len(records) == 1:
            kind, values = records[0]
            return None if is_retract(kind) else list(values)
        engine = self.spec.engine
        if engine == DEDUPLICATE:
            return self._deduplicate(records)
        if engine == FIRST_ROW:
            return self._first_row(records)
        if engine == PARTIAL_UPDATE:
            return self._partial_update(records)
        assert engine == AGGREGATION
        return self._aggregate(records)

    def _deduplicate(self, records: Sequence[Record]) -> list | None:
        latest = None
        for kind, values in records:
            if not (self.spec.ignore_delete and is_retract(kind)):
                latest = (kind, values)
        return None if latest is None or is_retract(latest[0]) else list(latest[1])

    def _first_row(self, records: Sequence[Record]) -> list | None:
        first = None
        for kind, values in records:
            if is_retract(kind):
                if not self.spec.ignore_delete:
                    raise MergeError("a first-row table's key has a retraction (-U/-D) among its records: Java's "
                                     "merge refuses it too unless 'ignore-delete' is set")
            elif first is None:
                first = list(values)
        return first

    def _aggregate(self, records: Sequence[Record]) -> list:
        for aggregator in self.aggregators.values():
            aggregator.reset()
        row: list = [None] * len(self.columns)
        for kind, values in records:
            retract = kind not in (INSERT, UPDATE_AFTER)
            for i, aggregator in self.aggregators.items():
                row[i] = aggregator.retract(row[i], values[i]) if retract else aggregator.agg(row[i], values[i])
        return row

    def _partial_update(self, records: Sequence[Record]) -> list | None:
        for aggregator in self.aggregators.values():
            aggregator.reset()
        row: list | None = [None] * len(self.columns)
        for kind, values in records:
            if is_retract(kind):
                if self.spec.ignore_delete:
                    continue
                if self.spec.groups:  # (the table's, as Java 0.9.0 asks: a read of no grouped field retracts none)
                    assert row is not None  # (remove-record-on-delete never comes with sequence groups)
                    self._retract_groups(row, values)
                    continue
                if self.spec.remove_record_on_delete:
                    if kind == DELETE:
                        row = None
                    continue
                raise MergeError("a partial-update table's key has a retraction (-U/-D) among its records and "
                                 "no option saying what it means: Java's merge refuses it too (set ignore-delete, "
                                 "sequence groups or partial-update.remove-record-on-delete)")
            if row is None:
                raise MergeError("a partial-update table's key is inserted again after a -D removed it "
                                 "(partial-update.remove-record-on-delete): Java 0.9.0's merge fails here "
                                 "(NullPointerException)")
            if self.group_of or self.aggregators:
                self._update_groups(row, values)
            else:
                for i, value in enumerate(values):
                    if value is not None:
                        row[i] = value
        return row

    def _compare(self, values: Sequence[Any], row: Sequence[Any], sequence: tuple[int, ...]) -> int:
        """The sequence fields of ``values`` against ``row``'s, as ``UserDefinedSeqComparator`` (nulls first)."""
        for i in sequence:
            a, b = values[i], row[i]
            if a == b:
                continue
            if a is None or b is None:
                return -1 if a is None else 1
            return -1 if a < b else 1  # (str: code points, the order of UTF-8 bytes; bytes: unsigned)
        return 0

    def _update_groups(self, row: list, values: Sequence[Any]) -> None:
        for i, value in enumerate(values):
            sequence = self.group_of.get(i)
            aggregator = self.aggregators.get(i)
            accumulator = row[i]
            if sequence is None:
                if aggregator is not None:
                    row[i] = aggregator.agg(accumulator, value)
                elif value is not None:
                    row[i] = value
                continue
            if all(values[j] is None for j in sequence):
                continue  # an update that does not touch the group
            if self._compare(values, row, sequence) >= 0:
                if i in sequence:
                    for j in sequence:
                        row[j] = values[j]
                row[i] = value if aggregator is None else aggregator.agg(accumulator, value)
            elif aggregator is not None:
                row[i] = aggregator.agg_reversed(accumulator, value)

    def _retract_groups(self, row: list, values: Sequence[Any]) -> None:
        updated: set[int] = set()
        for i in sorted(self.group_of):  # in field order
            sequence = self.group_of[i]
            aggregator = self.aggregators.get(i)
            if all(values[j] is None for j in sequence):
                continue
            if self._compare(values, row, sequence) >= 0:
                if i in sequence:
                    for j in sequence:
                        if j not in updated:
                            row[j] = values[j]
                            updated.add(j)
                elif aggregator is None:
                    row[i] = None
                else:
                    row[i] = aggregator.retract(row[i], values[i])
            elif aggregator is not None:
                row[i] = aggregator.retract(row[i], values[i])
