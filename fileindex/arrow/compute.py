"""The few Arrow compute kernels a read filters with, called through ``pyarrow._compute``.

Importing ``pyarrow.compute`` wraps every one of Arrow's kernels in a generated Python function with its
docstring: about a tenth of a cold ``fileindex read --where`` (issue #54), for the handful of kernels a read
calls. ``Table.filter``, ``Array.fill_null`` and ``Array.is_valid`` import it too, so the reader calls the
kernels by name here instead. A numpy mask becomes an Arrow array from its packed bits: ``pa.array`` on a
numpy array imports ``numpy.ma`` to look for a masked array.
"""
from __future__ import annotations

from typing import TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow._compute as _compute

Column: TypeAlias = "pa.Array | pa.ChunkedArray"


def call(name: str, *args, options: _compute.FunctionOptions | None = None):
    """Arrow's kernel ``name`` on ``args`` (arrays, chunked arrays, tables, scalars)."""
    return _compute.call_function(name, list(args), options)


def bool_array(mask: np.ndarray) -> pa.BooleanArray:
    """A numpy bool per row as an Arrow boolean array without nulls."""
    bits = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, pa.py_buffer(bits)])


def int64_array(values: np.ndarray) -> pa.Int64Array:
    """numpy integers as an Arrow int64 array without nulls (sharing the buffer where it is int64 already)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)])


def take_rows(table: pa.Table, positions: np.ndarray) -> pa.Table:
    """The rows of ``table`` at ``positions``, in that order."""
    return call("take", table, int64_array(positions))


def filter_rows(table: pa.Table, mask: np.ndarray | pa.Array | pa.ChunkedArray) -> pa.Table:
    """The rows of ``table`` where ``mask`` is true (a null in an Arrow mask drops its row)."""
    return call("filter", table, bool_array(mask) if isinstance(mask, np.ndarray) else mask)


def cast_table(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table.cast(schema)``: each column cast safely to its field's type (the names are the schema's)."""
    columns = [column if column.type == field.type else
               call("cast", column, options=_compute.CastOptions.safe(field.type))
               for column, field in zip(table.columns, schema, strict=True)]
    return pa.Table.from_arrays(columns, schema=schema)


def is_in(values: Column, value_set: pa.Array) -> Column:
    return call("is_in", values, options=_compute.SetLookupOptions(value_set))


def fill_null(values: Column, fill: bool) -> Column:
    return call("coalesce", values, pa.scalar(fill))


def python_rows(batch: pa.RecordBatch | pa.Table) -> list[dict]:
    """``batch.to_pylist()``, with nanosecond timestamps as their text (``2025-04-25 00:46:42.000123001``):
    Python's datetime holds microseconds, and pyarrow needs pandas for more (the command line does not import it)."""
    nanos = [i for i, field in enumerate(batch.schema) if pa.types.is_timestamp(field.type) and field.type.unit == "ns"]
    for i in nanos:
        text = call("cast", batch.column(i), options=_compute.CastOptions.safe(pa.string()))
        batch = batch.set_column(i, batch.schema.field(i).with_type(pa.string()), text)
    return batch.to_pylist()


def sorted_distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an ascending array and where each first occurs: ``np.unique(values,
    return_index=True)`` without its hash table or sort (a page read's rows are many, their pages few)."""
    if not len(values):
        return values, np.zeros(0, dtype=np.int64)
    firsts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return values[firsts], firsts
