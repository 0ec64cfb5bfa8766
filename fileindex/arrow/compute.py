"""The few Arrow compute kernels a read filters with, called through ``pyarrow._compute``.

Importing ``pyarrow.compute`` wraps every one of Arrow's kernels in a generated Python function with its
docstring: about a tenth of a cold ``fileindex read --where`` (issue #54), for the handful of kernels a read
calls. ``Table.filter``, ``Array.fill_null`` and ``Array.is_valid`` import it too, so the reader calls the
kernels by name here instead.

Arrays cross between numpy and Arrow here, through their buffers (``to_numpy``, ``from_numpy``), never by
pyarrow's own conversions: a process's command line runs pyarrow without numpy (``fileindex.cli.unimported``),
where ``Array.to_numpy`` raises and ``pa.array`` does not take numpy arrays; and ``pa.array`` on a numpy array
imports ``numpy.ma`` to look for a masked array.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import pyarrow as pa
from fileindex.arrow import pools, scalars
from fileindex.lazy import import_deferring, numpy as np

if TYPE_CHECKING:
    import pyarrow._compute as _compute
else:  # (inspect, which it imports for its user-defined functions only: about 34 M instructions of a cold read)
    _compute = import_deferring("pyarrow._compute", "inspect")


Column: TypeAlias = "pa.Array | pa.ChunkedArray"
RecordsT = TypeVar("RecordsT", pa.RecordBatch, pa.Table)


def call(name: str, *args, options: _compute.FunctionOptions | None = None):
    """Arrow's kernel ``name`` on ``args`` (arrays, chunked arrays, tables, scalars), its result in the reads' pool
    (``pools``)."""
    return _compute.call_function(name, list(args), options, pools.reads())


def to_numpy(values: Column) -> np.ndarray:
    """A fixed-width column's values as a numpy array read from its buffers: booleans as bool, other types as
    their storage (integers, floats; dates, times and timestamps as their ticks). A null's slot holds what the
    buffer holds there: the callers drop, fill or mask nulls first."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    data, offset, count = array.buffers()[1], array.offset, len(array)
    if pa.types.is_boolean(array.type):
        if data is None:
            return np.zeros(0, dtype=bool)
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), count=offset + count, bitorder="little")
        return bits[offset:].view(bool)
    dtype = np.dtype(f"{'f' if pa.types.is_floating(array.type) else _INTEGER_KIND[array.type.id]}"
                     f"{array.type.bit_width // 8}")
    if data is None:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset * dtype.itemsize)


def from_numpy(values: np.ndarray, arrow_type: pa.DataType, mask: np.ndarray | None = None) -> pa.Array:
    """A numpy array as an Arrow array of the fixed-width ``arrow_type`` (null where ``mask`` is true), sharing
    the buffer where the dtype is the type's already."""
    validity = None if mask is None or not mask.any() else _bits(~np.asarray(mask, dtype=bool))
    if pa.types.is_boolean(arrow_type):
        return pa.Array.from_buffers(arrow_type, len(values), [validity, _bits(values)])
    kind = "f" if pa.types.is_floating(arrow_type) else _INTEGER_KIND[arrow_type.id]
    data = np.ascontiguousarray(values, dtype=f"{kind}{arrow_type.bit_width // 8}")
    return pa.Array.from_buffers(arrow_type, len(data), [validity, pa.py_buffer(data)])


def _bits(mask: np.ndarray) -> pa.Buffer:
    return pa.py_buffer(np.packbits(np.asarray(mask, dtype=bool), bitorder="little"))


# the numpy kind of each integer-backed Arrow type's storage (by type id: Arrow's types are not hashable alike)
_INTEGER_KIND = {pa.int8().id: "i", pa.int16().id: "i", pa.int32().id: "i", pa.int64().id: "i",
                 pa.uint8().id: "u", pa.uint16().id: "u", pa.uint32().id: "u", pa.uint64().id: "u",
                 pa.date32().id: "i", pa.date64().id: "i", pa.time32("s").id: "i", pa.time64("us").id: "i",
                 pa.timestamp("s").id: "i", pa.duration("s").id: "i"}


def bool_array(mask: np.ndarray) -> pa.BooleanArray:
    """A numpy bool per row as an Arrow boolean array without nulls."""
    return from_numpy(mask, pa.bool_())


def int64_array(values: np.ndarray | Column) -> pa.Int64Array:
    """Integers (numpy or Arrow, without nulls) as an Arrow int64 array (sharing the buffer where they are int64
    already)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return values if values.type == pa.int64() else call("cast", values, options=_compute.CastOptions.safe(
            pa.int64()))
    return from_numpy(values, pa.int64())


def int64_view(values: pa.Int64Array) -> memoryview:
    """An int64 array without nulls as a memoryview of Python ints, without a copy: what ``bisect`` searches."""
    data = values.buffers()[1]
    if data is None:
        return memoryview(b"").cast("q")
    return memoryview(data).cast("q")[values.offset:values.offset + len(values)]


def shifted(values: pa.Int64Array, by: int) -> pa.Int64Array:
    """``values + by``."""
    return values if by == 0 else call("add", values, scalars.scalar(by, pa.int64()))


def take_rows(table: pa.Table, positions: np.ndarray) -> pa.Table:
    """The rows of ``table`` at ``positions``, in that order. A column of views (``string_view``, ``binary_view``,
    at any depth) is taken as large strings or bytes and cast back: pyarrow (26 too) has no take kernel for
    views."""
    viewless = pa.schema([field.with_type(_viewless(field.type)) for field in table.schema])
    if viewless == table.schema:
        return call("take", table, int64_array(positions))
    return cast_table(call("take", cast_table(table, viewless), int64_array(positions)), table.schema)


def _viewless(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every view type in it replaced by the large type of its values."""
    if pa.types.is_string_view(arrow_type):
        return pa.large_string()
    if pa.types.is_binary_view(arrow_type):
        return pa.large_binary()
    if pa.types.is_map(arrow_type):
        return pa.map_(_viewless(arrow_type.key_type), arrow_type.item_field.with_type(
            _viewless(arrow_type.item_type)), arrow_type.keys_sorted)
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        field = arrow_type.value_field.with_type(_viewless(arrow_type.value_type))
        return (pa.list_(field) if pa.types.is_list(arrow_type) else pa.large_list(field)
                if pa.types.is_large_list(arrow_type) else pa.list_(field, arrow_type.list_size))
    if pa.types.is_struct(arrow_type):
        return pa.struct([field.with_type(_viewless(field.type)) for field in arrow_type])
    return arrow_type


def filter_rows(table: pa.Table, mask: np.ndarray | pa.Array | pa.ChunkedArray) -> pa.Table:
    """The rows of ``table`` where ``mask`` is true (a null in an Arrow mask drops its row)."""
    return call("filter", table, mask if isinstance(mask, (pa.Array, pa.ChunkedArray)) else bool_array(mask))


def cast(values: Column, arrow_type: pa.DataType) -> Column:
    """``values.cast(arrow_type)``, safely (``Array.cast`` imports ``pyarrow.compute``)."""
    return call("cast", values, options=_compute.CastOptions.safe(arrow_type))


def cast_table(table: RecordsT, schema: pa.Schema) -> RecordsT:
    """``table.cast(schema)`` (a table or a record batch): each column cast safely to its field's type (the names
    are the schema's)."""
    columns = [column if column.type == field.type else cast(column, field.type)
               for column, field in zip(table.columns, schema, strict=True)]
    return type(table).from_arrays(columns, schema=schema)


def is_in(values: Column, value_set: pa.Array) -> Column:
    return call("is_in", values, options=_compute.SetLookupOptions(value_set))


def fill_null(values: Column, fill: bool) -> Column:
    # (typed: inferring a Python value's Arrow type imports dateutil, to look for its relativedelta)
    return call("coalesce", values, scalars.scalar(fill, pa.bool_()))


def python_rows(batch: pa.RecordBatch | pa.Table, precisions: Mapping[str, int] | None = None) -> list[dict]:
    """``batch.to_pylist()``, with each timestamp and time column as its text (:func:`temporal_columns_text`):
    Python's datetime holds microseconds, and pyarrow needs pandas for more (the command line does not import
    it)."""
    return temporal_columns_text(batch, precisions).to_pylist()


def temporal_columns_text(batch: RecordsT, precisions: Mapping[str, int] | None = None) -> RecordsT:
    """``batch`` with each timestamp and time column as its text (:func:`temporal_text`), ``precisions[name]``
    digits after the second: what ``fileindex read`` prints, and writes to a CSV file."""
    for i, field in enumerate(batch.schema):
        if pa.types.is_timestamp(field.type) or pa.types.is_time(field.type):
            text = temporal_text(batch.column(i), (precisions or {}).get(field.name))
            batch = batch.set_column(i, field.with_type(pa.string()), text)
    return batch


def temporal_text(values: Column, precision: int | None = None) -> Column:
    """Timestamps or times as Paimon's cast to a string writes them (``2025-04-25 01:00:02.001`` for a
    TIMESTAMP(3)): ``precision`` digits after the second (none for 0; trailing zeros beyond it dropped, as
    Paimon's ``DateTimeUtils.formatTimestamp``), else as many as the Arrow unit holds. A timestamp with a time zone
    (Paimon's WITH LOCAL TIME ZONE) is shown in UTC, ending in ``+00:00``."""
    text = call("cast", values, options=_compute.CastOptions.safe(pa.string()))
    if precision is not None and precision < _UNIT_DIGITS[values.type.unit]:
        pattern, replacement = (r"\.0+(Z?)$", r"\1") if precision == 0 else (rf"\.(\d{{{precision}}}\d*?)0+(Z?)$",
                                                                          r".\1\2")
        text = call("replace_substring_regex", text, options=_compute.ReplaceSubstringOptions(pattern, replacement))
    if pa.types.is_timestamp(values.type) and values.type.tz:
        text = call("replace_substring_regex", text, options=_compute.ReplaceSubstringOptions("Z$", "+00:00"))
    return text


_UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
