"""Tier 2 result rows: what a full read of a table's latest snapshot returns under a predicate,
computed from the data files (never from an index), in the kit's canonical JSON form.

A read follows the table: its current schema (columns matched by field id, absent ones null),
deletion vectors, the files a primary-key table with deletion vectors reads (level > 0), and for
data evolution the rows of a group of files sharing a first row id stitched column by column, each
field taken from the newest file that wrote it. Values are spelled as the kit's datasets spell them
(:func:`fileindex.reference.vector_format.value_to_json`); rows are lists in the schema's column
order, sorted by their JSON text, so two implementations' answers compare as equal lists.
"""
from __future__ import annotations

from fileindex.types import DataType

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyroaring import BitMap

from fileindex.io.reach import names_a_store
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.scan.task import DataFileTask, Inputs, table_inputs
from fileindex.table.row_ids import row_id_groups
from fileindex.pipeline.probes import python_values
from fileindex.scan.reader import output_schema, read_candidates, scannable
from fileindex.scan.truth import matches
from fileindex.predicate.tree import Predicate
from fileindex.reference.vector_format import value_to_json
from fileindex.scan.table import PaimonTable


def table_columns(table: PaimonTable) -> list[dict]:
    """The columns of a row, in order: ``[{"name", "type"}]`` of the table's current schema."""
    return [{"name": f.name, "type": str(f.type)} for f in table.schema.fields]


def matching_rows(root: str | Path, predicate: Predicate) -> list[list]:
    """The rows of the table's latest snapshot that satisfy ``predicate``, canonical (see the module)."""
    inputs = table_inputs(PaimonTable(str(root))) if names_a_store(root) else resolve_inputs([str(root)])
    table = inputs.table
    assert table is not None  # resolve_inputs of a table root
    schema = output_schema(inputs)
    everything = _data_evolution_rows(inputs, schema) if table.data_evolution else pa.concat_tables(
        [read_candidates(task, _not_deleted(task), schema) for task in scannable(inputs)] or [schema.empty_table()])
    kept = everything.filter(pa.array(matches(everything, predicate, table.schema.types())))
    return canonical_rows(kept, table)


def canonical_rows(rows: pa.Table, table: PaimonTable) -> list[list]:
    columns = [_json_values(rows.column(f.name).combine_chunks(), f.type) for f in table.schema.fields]
    return sort_rows([list(row) for row in zip(*columns, strict=True)] if columns else [])


def sort_rows(rows: list) -> list:
    """Rows in the kit's order (by their JSON text); anything that is not a list of rows is left as it is."""
    if not isinstance(rows, list):
        return rows
    return sorted(rows, key=lambda row: json.dumps(row, ensure_ascii=False, sort_keys=True))


def _json_values(array: pa.Array, data_type: DataType) -> list:
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    present = iter(python_values(array.filter(pa.array(valid)), data_type))
    return [value_to_json(next(present), data_type) if ok else None for ok in valid]


def _not_deleted(task: DataFileTask) -> np.ndarray | None:
    deleted = task.deleted_rows()
    if not deleted:
        return None
    rows = BitMap(range(task.table_entry().row_count)) - deleted
    return np.asarray(rows.to_array(), dtype=np.int64)


def _data_evolution_rows(inputs: Inputs, schema: pa.Schema) -> pa.Table:
    """Each group of files with the same first row id as one set of rows: a field from the newest
    file (highest sequence number) that wrote it, null where none did."""
    table = inputs.table
    assert table is not None
    groups = row_id_groups(inputs.tasks, DataFileTask.table_entry)
    parts = []
    for (_, row_count), members in sorted(groups.items()):
        newest_first = sorted(members, key=lambda t: t.table_entry().max_sequence_number, reverse=True)
        columns: dict[str, pa.ChunkedArray] = {}
        for task in newest_first:
            written = {f.id for f in table.data_schema(task.table_entry()).fields}
            wanted = [f for f in table.schema.fields if f.id in written and f.name not in columns]
            if wanted:
                read = read_candidates(task, _not_deleted(task), schema)
                columns.update({f.name: read.column(f.name) for f in wanted})
        parts.append(pa.Table.from_arrays(
            [columns.get(field.name, pa.chunked_array([pa.nulls(row_count, type=field.type)]))
             for field in schema], schema=schema))
    return pa.concat_tables(parts) if parts else schema.empty_table()
