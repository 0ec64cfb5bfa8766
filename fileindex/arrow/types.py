"""Arrow types ↔ Paimon types, as `fileindex build` reads Parquet files.

int8→TINYINT ... int64→BIGINT, float32→FLOAT, float64→DOUBLE, bool→BOOLEAN, string→STRING,
binary→BYTES, fixed_size_binary(n)→BINARY(n), date32→DATE, time32/64→TIME(p), timestamp[s|ms|us|ns]
→TIMESTAMP(0|3|6|9) (time-zone aware → WITH LOCAL TIME ZONE), decimal128(p,s)→DECIMAL(p,s),
map→MAP, list→ARRAY, struct→ROW; dictionary-encoded columns take their value type.
"""
from __future__ import annotations

import pyarrow as pa

from fileindex.errors import UsageError
from fileindex.types import MAX_LENGTH, DataType

_UNIT_PRECISION = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_SIMPLE = {
    pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INT", pa.int64(): "BIGINT",
    pa.float32(): "FLOAT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN", pa.date32(): "DATE",
}


def paimon_type(arrow_type: pa.DataType, *, nullable: bool = True, column: str = "") -> DataType:
    if pa.types.is_dictionary(arrow_type):
        return paimon_type(arrow_type.value_type, nullable=nullable, column=column)
    if arrow_type in _SIMPLE:
        return DataType(_SIMPLE[arrow_type], nullable=nullable)
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type):
        return DataType("VARCHAR", nullable=nullable, length=MAX_LENGTH)
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return DataType("VARBINARY", nullable=nullable, length=MAX_LENGTH)
    if pa.types.is_fixed_size_binary(arrow_type):
        return DataType("BINARY", nullable=nullable, length=arrow_type.byte_width)
    if pa.types.is_time(arrow_type):
        return DataType("TIME", nullable=nullable, precision=_UNIT_PRECISION[arrow_type.unit])
    if pa.types.is_timestamp(arrow_type):
        root = "TIMESTAMP_LTZ" if arrow_type.tz else "TIMESTAMP"
        return DataType(root, nullable=nullable, precision=_UNIT_PRECISION[arrow_type.unit])
    if pa.types.is_decimal(arrow_type):
        return DataType("DECIMAL", nullable=nullable, precision=arrow_type.precision, scale=arrow_type.scale)
    if pa.types.is_map(arrow_type):
        return DataType("MAP", nullable=nullable, children=(paimon_type(arrow_type.key_type, nullable=False),
                                                            paimon_type(arrow_type.item_type)))
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return DataType("ARRAY", nullable=nullable, children=(paimon_type(arrow_type.value_type),))
    if pa.types.is_struct(arrow_type):
        fields = [arrow_type.field(i) for i in range(arrow_type.num_fields)]
        return DataType("ROW", nullable=nullable, children=tuple(paimon_type(f.type, nullable=f.nullable)
                                                                 for f in fields),
                        field_names=tuple(f.name for f in fields))
    raise UsageError(f"column {column!r}: Arrow type {arrow_type} has no Paimon type (Paimon has no unsigned "
                     "integers or this kind); pass --schema to say which type it holds")


def schema_of(arrow_schema: pa.Schema, *, skip_untyped: bool = False) -> dict[str, DataType]:
    """Paimon types of every column; ``skip_untyped`` leaves out columns with no Paimon type."""
    schema = {}
    for f in arrow_schema:
        try:
            schema[f.name] = paimon_type(f.type, nullable=f.nullable, column=f.name)
        except UsageError:
            if not skip_untyped:
                raise
    return schema


def zoned_timestamps(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every timestamp that has no time zone (at any depth) in UTC."""
    if pa.types.is_timestamp(arrow_type):
        return arrow_type if arrow_type.tz else pa.timestamp(arrow_type.unit, tz="UTC")
    if pa.types.is_map(arrow_type):
        return pa.map_(arrow_type.key_field.with_type(zoned_timestamps(arrow_type.key_type)),
                       arrow_type.item_field.with_type(zoned_timestamps(arrow_type.item_type)))
    if pa.types.is_list(arrow_type):
        return pa.list_(arrow_type.value_field.with_type(zoned_timestamps(arrow_type.value_type)))
    if pa.types.is_large_list(arrow_type):
        return pa.large_list(arrow_type.value_field.with_type(zoned_timestamps(arrow_type.value_type)))
    if pa.types.is_struct(arrow_type):
        return pa.struct([f.with_type(zoned_timestamps(f.type)) for f in arrow_type])
    return arrow_type


def arrow_type(data_type: DataType) -> pa.DataType:
    """The Arrow type this package writes for a Paimon type (the inverse of :func:`paimon_type`)."""
    root = data_type.root
    for arrow, name in _SIMPLE.items():
        if name == root:
            return arrow
    if data_type.is_string:
        return pa.string()
    if root == "VARBINARY":
        return pa.binary()
    if root == "BINARY":
        return pa.binary(data_type.length)
    if root == "TIME":
        precision = data_type.precision or 0  # Paimon's default TIME precision
        return pa.time32("ms") if precision <= 3 else pa.time64("us" if precision <= 6 else "ns")
    if data_type.is_timestamp:
        units: dict[int | None, str] = {0: "s", 1: "ms", 2: "ms", 3: "ms", 4: "us", 5: "us", 6: "us"}
        unit = units.get(data_type.precision, "ns")
        return pa.timestamp(unit, tz="UTC" if root == "TIMESTAMP_LTZ" else None)
    if root == "DECIMAL":
        return pa.decimal128(data_type.precision, data_type.scale)
    if root == "MAP":
        return pa.map_(arrow_type(data_type.children[0]), arrow_type(data_type.children[1]))
    if root == "ARRAY":
        return pa.list_(arrow_type(data_type.children[0]))
    if root == "MULTISET":  # Paimon stores a multiset as a map of element to count
        return pa.map_(arrow_type(data_type.children[0]), pa.int32())
    if root == "ROW":
        return pa.struct([pa.field(name, arrow_type(child), nullable=child.nullable)
                          for name, child in zip(data_type.field_names, data_type.children, strict=True)])
    raise UsageError(f"no Arrow type for {data_type}")


def conform(column: pa.ChunkedArray, data_type: DataType, name: str) -> pa.ChunkedArray:
    """``column`` as the Arrow type of its declared Paimon type, so that writers see one layout.

    A value the declared type cannot hold (a uint64 above 2^63-1 declared BIGINT, a string that is
    no number) is a UsageError naming the column, the row and the value, never a silent wrap.
    Nested columns (maps, arrays, rows) are read as they are.
    """
    target = arrow_type(data_type)
    present = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if present == target or pa.types.is_nested(target):
        return column
    if _family(present) != _family(target):
        raise UsageError(f"column {name!r} holds Arrow {column.type}, not {data_type}: "
                         "declare the type it holds with --schema")
    try:
        return column.cast(target, safe=True)
    except pa.ArrowNotImplementedError:
        raise UsageError(f"column {name!r} holds Arrow {column.type}, which cannot be read as {data_type}: "
                         "declare the type it holds with --schema") from None
    except (pa.ArrowInvalid, OverflowError) as err:
        row, value = _first_misfit(column, target)
        raise UsageError(f"column {name!r}, row {row}: value {value!r} does not fit {data_type} "
                         f"({str(err).splitlines()[0]}); declare a type that holds it with --schema") from None


_FAMILIES = (("integer", pa.types.is_integer), ("floating", pa.types.is_floating), ("decimal", pa.types.is_decimal),
             ("string", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)),
             ("binary", lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t)
              or pa.types.is_binary_view(t) or pa.types.is_fixed_size_binary(t)),
             ("timestamp", pa.types.is_timestamp), ("time", pa.types.is_time), ("date", pa.types.is_date),
             ("boolean", pa.types.is_boolean))


def _family(arrow: pa.DataType) -> str:
    """Kinds of values a cast may move between (never a string parsed as a number)."""
    return next((name for name, test in _FAMILIES if test(arrow)), str(arrow))


def _first_misfit(column: pa.ChunkedArray, target: pa.DataType) -> tuple[int | None, object]:
    """The row and value of the first element that does not cast to ``target`` (bisection per chunk)."""
    def casts(array: pa.Array) -> bool:
        try:
            array.cast(target, safe=True)
            return True
        except (pa.ArrowInvalid, OverflowError):
            return False

    offset = 0
    for chunk in column.chunks:
        if not casts(chunk):
            low, high = 0, len(chunk)  # the first misfit lies in [low, high)
            while high - low > 1:
                middle = (low + high) // 2
                if casts(chunk.slice(low, middle - low)):
                    low = middle
                else:
                    high = middle
            return offset + low, chunk[low].as_py()
        offset += len(chunk)
    return None, None
