"""Java's number semantics, in one place: the casts, ``Math.round``, float bits and ``Float.compare``.

The package's Python code takes these facts from here (the compiled kernels repeat a few in C, held
to the numpy paths by tests/test_kernels.py):

* :func:`int32` / :func:`int32_array`: ``(int)`` of a long, the low 32 bits as a signed int;
  :func:`int64`: a long's wrap-around arithmetic (the low 64 bits of a Python int, signed).
* :func:`double_to_int` / :func:`double_to_long` (and ``_array`` forms): ``(int) d`` / ``(long) d``,
  truncating toward zero, saturating at the type's bounds, NaN to 0.
* :func:`math_round` / :func:`math_round_array`: ``Math.round(double)``, the closest long with ties
  toward positive infinity (exact: not ``floor(x + 0.5)``, which is wrong for 0.49999999999999994),
  saturating, NaN to 0.
* :data:`FLOAT` / :data:`DOUBLE`: the IEEE bits of ``float`` / ``double`` held as signed integers
  (a float's 32 bits sign-extended in int64 arrays): ``floatToIntBits`` / ``doubleToLongBits``
  (every NaN as the canonical one), the raw bits, and the integer order of ``Float.compare`` /
  ``Double.compare`` (-0.0 below 0.0, NaN above +Infinity).

The bit-level operations take a Python int or a numpy int64 array alike.
"""
from __future__ import annotations

import math
import struct
from fileindex.frozen import field, frozen
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np  # the array forms import it when they run: `fileindex --help` loads no numpy

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
Bits = Any  # a Python int, or a numpy int64 array (the keys' containers hold either, typed as object)


def int32(value: int) -> int:
    """``(int)`` of a long: the low 32 bits, signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


def int64(value: int) -> int:
    """The low 64 bits, signed: what Java's long arithmetic leaves of an exact result."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >> 63 else value


def int32_array(values: np.ndarray) -> np.ndarray:
    """:func:`int32` of each integer, as an int64 array."""
    import numpy as np
    values = np.asarray(values)
    narrowed = values.view(np.int32) if values.dtype == np.uint32 else values.astype(np.int32)  # wraps
    return narrowed.astype(np.int64)


def _saturate(value: float, low: int, high: int) -> int:
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return high if value > 0 else low
    return max(low, min(high, int(value)))


def double_to_int(value: float) -> int:
    """``(int) d``: truncate toward zero, saturate at the int bounds, NaN to 0."""
    return _saturate(value, INT_MIN, INT_MAX)


def double_to_long(value: float) -> int:
    """``(long) d``: truncate toward zero, saturate at the long bounds, NaN to 0."""
    return _saturate(value, LONG_MIN, LONG_MAX)


def math_round(value: float) -> int:
    """``Math.round(double)``: the closest long, ties toward positive infinity, saturating, NaN to 0."""
    if not math.isfinite(value):
        return double_to_long(value)
    numerator, denominator = value.as_integer_ratio()  # floor(value + 1/2) in exact arithmetic
    return max(LONG_MIN, min(LONG_MAX, (2 * numerator + denominator) // (2 * denominator)))


def _saturate_array(integral: np.ndarray, bits: int) -> np.ndarray:
    """Doubles already integral (or NaN, infinite) narrowed as Java narrows them, as int64."""
    import numpy as np
    low, high = -(2.0 ** (bits - 1)), 2.0 ** (bits - 1)  # both exact doubles
    inside = (integral >= low) & (integral < high)  # False for NaN
    out = np.where(inside, integral, 0.0).astype(np.int64)
    out[integral >= high] = (1 << (bits - 1)) - 1
    out[integral < low] = -(1 << (bits - 1))
    return out


def double_to_int_array(values: np.ndarray) -> np.ndarray:
    """:func:`double_to_int` of each double, as an int64 array."""
    import numpy as np
    return _saturate_array(np.trunc(np.asarray(values, dtype=np.float64)), 32)


def double_to_long_array(values: np.ndarray) -> np.ndarray:
    """:func:`double_to_long` of each double, as an int64 array."""
    import numpy as np
    return _saturate_array(np.trunc(np.asarray(values, dtype=np.float64)), 64)


def math_round_array(values: np.ndarray) -> np.ndarray:
    """:func:`math_round` of each double, as an int64 array."""
    import numpy as np
    values = np.asarray(values, dtype=np.float64)
    # values - floor is exact when |value| >= 0.5; below, the one inexact case (-0.5 < value < 0)
    # rounds to no less than 0.5, which gives floor + 1 = 0 as it must
    with np.errstate(invalid="ignore"):  # a signalling NaN
        floor = np.floor(values)
        rounded = floor + (values - floor >= 0.5)
    return _saturate_array(rounded, 64)


@frozen
class FloatingBits:
    """Java's ``float`` (32 bits) or ``double`` (64 bits) as its IEEE bits in a signed integer."""

    width: int
    canonical_nan: int  # floatToIntBits / doubleToLongBits of every NaN
    infinity: int  # +Infinity's bits: a NaN is any magnitude above them
    numpy_float: str  # numpy dtype names
    numpy_int: str
    float_format: str  # struct formats of the float and of the signed integer of the same width
    int_format: str
    magnitude: int = field(init=False)  # the mask of every bit but the sign

    def __post_init__(self):
        object.__setattr__(self, "magnitude", (1 << (self.width - 1)) - 1)

    def to_bits(self, value: float) -> int:
        """``floatToIntBits`` / ``doubleToLongBits``: NaN canonical (a FLOAT value: one binary32 holds)."""
        if math.isnan(value):
            return self.canonical_nan
        return struct.unpack(self.int_format, struct.pack(self.float_format, value))[0]

    def to_raw_bits(self, value: float) -> int:
        """``floatToRawIntBits`` / ``doubleToRawLongBits``: a NaN keeps its payload."""
        import numpy as np
        return int(np.array([value], dtype=self.numpy_float).view(self.numpy_int)[0])

    def from_bits(self, bits: int) -> float:
        """``Float.intBitsToFloat`` / ``Double.longBitsToDouble`` of signed bits."""
        return struct.unpack(self.float_format, struct.pack(self.int_format, bits))[0]

    def bits_array(self, values: np.ndarray, *, canonical_nan: bool = True) -> np.ndarray:
        """:meth:`to_bits` (or :meth:`to_raw_bits`) of each value, as an int64 array."""
        import numpy as np
        values = np.asarray(values, dtype=self.numpy_float)
        bits = values.view(self.numpy_int).astype(np.int64, copy=False)  # a double's: a view
        return np.where(np.isnan(values), self.canonical_nan, bits) if canonical_nan else bits

    def is_nan(self, bits: Bits) -> Any:  # a bool, or a bool array
        """Whether the bits are a NaN's (any payload)."""
        return (bits & self.magnitude) > self.infinity

    def canonical(self, bits: int) -> int:
        """The bits with any NaN made the canonical one (what ``floatToIntBits`` would have given)."""
        return self.canonical_nan if self.is_nan(bits) else bits

    def canonical_array(self, bits: np.ndarray) -> np.ndarray:
        import numpy as np
        return np.where(self.is_nan(bits), self.canonical_nan, bits)

    def compare_order(self, bits: Bits) -> Bits:
        """Signed integers ordered as ``Float.compare`` / ``Double.compare`` order the values of
        canonical bits: negative values' magnitude bits flipped. The transform is its own inverse."""
        return bits ^ ((bits >> (self.width - 1)) & self.magnitude)


FLOAT = FloatingBits(32, 0x7FC00000, 0x7F800000, "float32", "int32", ">f", ">i")
DOUBLE = FloatingBits(64, 0x7FF8000000000000, 0x7FF0000000000000, "float64", "int64", ">d", ">q")


def float_to_int_bits(value: float) -> int:
    """``Float.floatToIntBits``: NaN canonical (0x7fc00000), signed int32."""
    return FLOAT.to_bits(value)


def double_to_long_bits(value: float) -> int:
    """``Double.doubleToLongBits``: NaN canonical (0x7ff8000000000000), signed int64."""
    return DOUBLE.to_bits(value)
