"""Arrow arrays and scalars of Python values, built from their bytes (``Array.from_buffers``).

``pa.array`` and ``pa.scalar`` ask pyarrow's pandas shim whether a value is one of pandas' arrays wherever numpy is
imported, and the shim imports pandas, where it is installed, to find out: about 0.4 s of CPU in a program's cold
read (issue #54) for a literal compared with a column or an empty table. The values a read builds (integers,
strings, bytes, booleans, doubles, no value) are laid out here instead; any other value or type goes to pyarrow as
it is.
"""
from __future__ import annotations

import decimal
import struct
from collections.abc import Sequence

import pyarrow as pa

# Arrow type id -> struct format of one value: the fixed-width types whose values are Python ints
_INTEGER_FORMATS = {pa.int8().id: "b", pa.int16().id: "h", pa.int32().id: "i", pa.int64().id: "q",
                    pa.uint8().id: "B", pa.uint16().id: "H", pa.uint32().id: "I", pa.uint64().id: "Q",
                    pa.date32().id: "i", pa.time32("s").id: "i", pa.time64("us").id: "q",
                    pa.timestamp("us").id: "q", pa.duration("us").id: "q", pa.date64().id: "q"}
_TEXT_TYPES = {pa.string().id: str, pa.large_string().id: str, pa.binary().id: bytes, pa.large_binary().id: bytes}
_LARGE_OFFSETS = {pa.large_string().id, pa.large_binary().id}
_DECIMAL_BYTES = {pa.decimal128(1).id: 16, pa.decimal256(1).id: 32}
_EXACT = decimal.Context(prec=100, traps=[decimal.Inexact, decimal.InvalidOperation])  # (a DECIMAL: 76 digits at most)


def empty_table(schema: pa.Schema) -> pa.Table:
    """``schema.empty_table()`` (which calls ``pa.array([])`` for each column)."""
    return pa.Table.from_arrays([pa.nulls(0, field.type) for field in schema], schema=schema)


def scalar(value, arrow_type: pa.DataType) -> pa.Scalar:
    """``pa.scalar(value, type=arrow_type)``."""
    return array([value], arrow_type)[0]


def array(values: Sequence, arrow_type: pa.DataType) -> pa.Array:
    """``pa.array(values, type=arrow_type)`` (a list of Python values; ``None`` for a null)."""
    built = _laid_out(values, arrow_type)
    return pa.array(values, type=arrow_type) if built is None else built


def _laid_out(values: Sequence, arrow_type: pa.DataType) -> pa.Array | None:
    """The array built from its buffers, or None where this module does not lay out the type or a value."""
    present = [value for value in values if value is not None]
    validity = _validity(values) if len(present) < len(values) else None
    type_id = arrow_type.id
    if type_id in _INTEGER_FORMATS:
        if any(type(value) is not int for value in present):
            return None
        code = _INTEGER_FORMATS[type_id]
        low, high = _range(code)
        for value in present:
            if not low <= value <= high:
                raise pa.ArrowInvalid(f"Value {value} too large to fit in C integer type")
        data = struct.pack(f"<{len(values)}{code}", *(0 if value is None else value for value in values))
        return pa.Array.from_buffers(arrow_type, len(values), [validity, pa.py_buffer(data)])
    if type_id == pa.float64().id:
        if any(type(value) is not float for value in present):
            return None
        data = struct.pack(f"<{len(values)}d", *(0.0 if value is None else value for value in values))
        return pa.Array.from_buffers(arrow_type, len(values), [validity, pa.py_buffer(data)])
    if type_id in _DECIMAL_BYTES:
        if any(type(value) is not decimal.Decimal or not value.is_finite() for value in present):
            return None
        data = b"".join(_unscaled(value, arrow_type).to_bytes(_DECIMAL_BYTES[type_id], "little", signed=True)
                        for value in values)
        return pa.Array.from_buffers(arrow_type, len(values), [validity, pa.py_buffer(data)])
    if type_id == pa.bool_().id:
        if any(type(value) is not bool for value in present):
            return None
        return pa.Array.from_buffers(arrow_type, len(values), [validity, _bits([v is True for v in values])])
    if type_id in _TEXT_TYPES:
        kind = _TEXT_TYPES[type_id]
        if any(type(value) is not kind for value in present):
            return None
        encoded = [b"" if value is None else value.encode() if kind is str else value for value in values]
        ends = [0]
        for item in encoded:
            ends.append(ends[-1] + len(item))
        offsets = struct.pack(f"<{len(ends)}{'q' if type_id in _LARGE_OFFSETS else 'i'}", *ends)
        return pa.Array.from_buffers(arrow_type, len(values),
                                     [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])
    return None


def _unscaled(value: decimal.Decimal | None, arrow_type: pa.Decimal128Type) -> int:
    """The decimal's digits at the type's scale, as an integer (refused, as pyarrow refuses it, where that would
    drop a digit or need more than the type's precision)."""
    if value is None:
        return 0
    try:
        unscaled = value.scaleb(arrow_type.scale, _EXACT)
        digits = int(unscaled.to_integral_exact(context=_EXACT))
    except decimal.DecimalException:
        raise pa.ArrowInvalid(f"Rescaling Decimal value {value} to scale {arrow_type.scale} would cause data loss") \
            from None
    if abs(digits) >= 10 ** arrow_type.precision:
        raise pa.ArrowInvalid(f"Decimal value {value} does not fit in precision {arrow_type.precision}")
    return digits


def _range(code: str) -> tuple[int, int]:
    bits = struct.calcsize(code) * 8
    return (0, (1 << bits) - 1) if code.isupper() else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _validity(values: Sequence) -> pa.Buffer:
    return _bits([value is not None for value in values])


def _bits(flags: list[bool]) -> pa.Buffer:
    """Arrow's bitmap of ``flags``: least significant bit first."""
    packed = bytearray((len(flags) + 7) // 8)
    for at, flag in enumerate(flags):
        if flag:
            packed[at >> 3] |= 1 << (at & 7)
    return pa.py_buffer(bytes(packed))
