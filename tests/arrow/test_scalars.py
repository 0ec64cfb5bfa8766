"""fileindex.arrow.scalars builds what pa.scalar and pa.array build (values, nulls, types), and refuses what they
refuse, without pyarrow's look for pandas."""
import decimal

import pyarrow as pa
import pytest

from fileindex.arrow import scalars

D = decimal.Decimal
VALUES = [
    ([5, None, -(2**63), 2**63 - 1], pa.int64()), ([-128, 127], pa.int8()), ([0, 2**64 - 1], pa.uint64()),
    ([7, None], pa.int32()), ([19_000], pa.date32()), ([1_700_000_000_123_456], pa.timestamp("us")),
    ([1], pa.timestamp("ms", tz="UTC")), ([3_600], pa.time32("s")), ([1.5, -0.0, float("inf"), None], pa.float64()),
    ([True, None, False, True, True, False, False, True, True], pa.bool_()), (["", "héllo", None, "ü€"], pa.string()),
    ([b"\x00\xff", None], pa.binary()), (["x"], pa.large_string()), ([b"y"], pa.large_binary()),
    ([D("100.00"), D("-1.5"), None, D("1E+2")], pa.decimal128(10, 2)), ([D("-12345.678")], pa.decimal256(40, 3)),
    ([None, None], pa.int16()), ([], pa.int64()), ([], pa.string()),
    ([1.5], pa.float32()), ([3], pa.float64()), ([b"s"], pa.string()),  # (left to pyarrow)
]


@pytest.mark.parametrize("values, arrow_type", VALUES, ids=lambda v: str(v))
def test_built_as_pyarrow_builds_it(values, arrow_type):
    built = scalars.array(values, arrow_type)
    assert built.type == arrow_type and built.equals(pa.array(values, type=arrow_type))
    built.validate(full=True)
    for value in values:
        one = scalars.scalar(value, arrow_type)
        assert one.type == arrow_type and one.equals(pa.scalar(value, type=arrow_type))


@pytest.mark.parametrize("value, arrow_type", [
    (128, pa.int8()), (-1, pa.uint8()), (2**64, pa.uint64()), (D("1.234"), pa.decimal128(10, 2)),
    (D("123456"), pa.decimal128(5, 2)), ("x", pa.int64()),
])
def test_refused_as_pyarrow_refuses_it(value, arrow_type):
    with pytest.raises((pa.ArrowException, OverflowError, TypeError, ValueError)):
        pa.scalar(value, type=arrow_type)
    with pytest.raises((pa.ArrowException, OverflowError, TypeError, ValueError)):
        scalars.scalar(value, arrow_type)


def test_an_empty_table_of_a_schema():
    schema = pa.schema([pa.field("a", pa.int64(), nullable=False), ("d", pa.dictionary(pa.int32(), pa.string())),
                        ("l", pa.list_(pa.struct([("x", pa.int8())]))), ("m", pa.map_(pa.string(), pa.int64()))])
    empty = scalars.empty_table(schema)
    assert empty.schema.equals(schema) and empty.equals(schema.empty_table()) and empty.num_rows == 0
