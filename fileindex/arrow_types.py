"""Arrow types ↔ Paimon types, as `fileindex build` reads Parquet files.

int8→TINYINT ... int64→BIGINT, float32→FLOAT, float64→DOUBLE, bool→BOOLEAN, string→STRING,
binary→BYTES, fixed_size_binary(n)→BINARY(n), date32→DATE, time32/64→TIME(p), timestamp[s|ms|us|ns]
→TIMESTAMP(0|3|6|9) (time-zone aware → WITH LOCAL TIME ZONE), decimal128(p,s)→DECIMAL(p,s),
map→MAP, list→ARRAY, struct→ROW; dictionary-encoded columns take their value type.
"""
from __future__ import annotations

import pyarrow as pa

from .errors import UsageError
from .types import MAX_LENGTH, DataType

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


def schema_of(arrow_schema: pa.Schema) -> dict[str, DataType]:
    return {f.name: paimon_type(f.type, nullable=f.nullable, column=f.name) for f in arrow_schema}


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
        return pa.time32("ms") if data_type.precision <= 3 else pa.time64("us" if data_type.precision <= 6 else "ns")
    if data_type.is_timestamp:
        unit = {0: "s", 1: "ms", 2: "ms", 3: "ms", 4: "us", 5: "us", 6: "us"}.get(data_type.precision, "ns")
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
                          for name, child in zip(data_type.field_names, data_type.children)])
    raise UsageError(f"no Arrow type for {data_type}")
