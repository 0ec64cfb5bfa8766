import pytest
from hypothesis import given
from hypothesis import strategies as st

from fileindex.errors import UsageError
from fileindex.types import MAX_LENGTH, DataType, column_type, parse_schema, parse_type


@pytest.mark.parametrize("text, expected", [
    ("INT", DataType("INT")),
    ("int not null", DataType("INT", nullable=False)),
    ("STRING", DataType("VARCHAR", length=MAX_LENGTH)),
    ("VARCHAR(10)", DataType("VARCHAR", length=10)),
    ("CHAR", DataType("CHAR", length=1)),
    ("BYTES", DataType("VARBINARY", length=MAX_LENGTH)),
    ("BINARY(16)", DataType("BINARY", length=16)),
    ("DECIMAL(20, 2)", DataType("DECIMAL", precision=20, scale=2)),
    ("DECIMAL", DataType("DECIMAL", precision=10, scale=0)),
    ("TIME(3)", DataType("TIME", precision=3)),
    ("TIMESTAMP", DataType("TIMESTAMP", precision=6)),
    ("TIMESTAMP(9) WITHOUT TIME ZONE", DataType("TIMESTAMP", precision=9)),
    ("TIMESTAMP(3) WITH LOCAL TIME ZONE", DataType("TIMESTAMP_LTZ", precision=3)),
    ("TIMESTAMP_LTZ(6)", DataType("TIMESTAMP_LTZ", precision=6)),
    ("ARRAY<INT NOT NULL>", DataType("ARRAY", children=(DataType("INT", nullable=False),))),
    ("MAP<STRING, BIGINT>", DataType("MAP", children=(DataType("VARCHAR", length=MAX_LENGTH), DataType("BIGINT")))),
])
def test_parse_type(text, expected):
    assert parse_type(text) == expected


@pytest.mark.parametrize("text, message", [
    ("FOO", "unknown type 'FOO'"), ("DECIMAL(40, 2)", "precision 40"), ("DECIMAL(5, 6)", "scale 6"),
    ("TIMESTAMP(10)", "precision 10"), ("MAP<STRING>", "expected ','"), ("INT NOT", "expected NULL"),
    ("VARCHAR(0)", "out of range"), ("INT INT", "unexpected 'INT'"),
])
def test_parse_type_errors_say_where(text, message):
    with pytest.raises(UsageError, match="position"):
        parse_type(text)
    with pytest.raises(UsageError, match=message):
        parse_type(text)


TYPES = st.sampled_from(["INT", "BIGINT", "STRING", "VARCHAR(7)", "CHAR(3)", "BYTES", "BINARY(2)", "DECIMAL(18, 4)",
                         "DATE", "TIME(3)", "TIMESTAMP(9)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", "BOOLEAN", "FLOAT",
                         "DOUBLE", "TINYINT", "SMALLINT"])


@st.composite
def types(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        text = draw(TYPES)
    else:
        shape = draw(st.sampled_from(["ARRAY", "MAP", "ROW"]))
        if shape == "ARRAY":
            text = f"ARRAY<{draw(types(depth - 1))}>"
        elif shape == "MAP":
            text = f"MAP<{draw(types(depth - 1))}, {draw(types(depth - 1))}>"
        else:
            names = draw(st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=3, unique=True))
            fields = ", ".join(f"`{n.replace('`', '``')}` {draw(types(depth - 1))}" for n in names)
            text = f"ROW<{fields}>"
    return text + (" NOT NULL" if draw(st.booleans()) else "")


@given(types())
def test_print_then_parse_round_trips(text):
    parsed = parse_type(text)
    assert parse_type(parsed.sql()) == parsed


def test_schema_and_map_key_columns():
    schema = parse_schema("id INT, `my col` STRING, attrs MAP<STRING, BIGINT>")
    assert list(schema) == ["id", "my col", "attrs"]
    assert column_type(schema, "attrs[color]") == DataType("BIGINT")
    assert column_type(schema, "my col") == parse_type("STRING")
    assert column_type(schema, "id[x]") is None and column_type(schema, "nope") is None
    with pytest.raises(UsageError, match="twice"):
        parse_schema("a INT, a INT")
    with pytest.raises(UsageError, match="ends in a comma"):
        parse_schema("c INT, ")


@pytest.mark.parametrize("text, argument", [("DECIMAL(40, 2)", "40"), ("DECIMAL(10, 11)", "11"),
                                            ("VARCHAR(0)", "0"), ("TIMESTAMP(10) WITH LOCAL TIME ZONE", "10")])
def test_an_out_of_range_argument_error_points_at_the_argument(text, argument):
    with pytest.raises(UsageError) as info:
        parse_type(text)
    position = int(str(info.value).split("at position ")[1].split()[0])
    assert text[position:].startswith(argument)


@pytest.mark.parametrize("text, nano", [("TIMESTAMP", False), ("TIMESTAMP(6)", False), ("TIMESTAMP(7)", True),
                                        ("TIMESTAMP(9) WITH LOCAL TIME ZONE", True), ("TIME(9)", False),
                                        ("BIGINT", False), ("DECIMAL(20, 2)", False)])
def test_a_nano_timestamp_is_a_timestamp_of_precision_above_six(text, nano):
    assert parse_type(text).is_nano_timestamp is nano


def test_precision_and_scale_are_given_by_every_parsed_type_and_missing_ones_say_what_to_give():
    decimal = parse_type("DECIMAL(20, 3)")
    assert (decimal.required_precision, decimal.required_scale) == (20, 3)
    assert parse_type("TIMESTAMP").required_precision == 6
    with pytest.raises(UsageError, match=r"DECIMAL\(p, s\)"):
        assert DataType("DECIMAL", precision=10).required_scale
    with pytest.raises(UsageError, match=r"TIMESTAMP\(p\)"):
        assert DataType("TIMESTAMP").is_nano_timestamp


@pytest.mark.parametrize("text, said", [
    ("garbage", "column garbage has no type at position 7 of the schema 'garbage'"),
    ("c INT, d", "column d has no type at position 8 of the schema 'c INT, d'"),
    ("id, name", "column id has no type at position 2 of the schema 'id, name'"),
    ("INT", "INT is a type: name its column first at position 0 of the schema 'INT'"),
    ("c INT d STRING", "expected ',' after column c's type, found 'd' at position 6 of the schema 'c INT d STRING'"),
    ("c INT, d STRNG", "column d: unknown type 'STRNG'; did you mean STRING? at position 9 of the schema "
                       "'c INT, d STRNG'"),
    ("`my col` LONG", "column `my col`: unknown type 'LONG'; did you mean BIGINT? at position 9 of the schema "
                      "'`my col` LONG'"),
    ("m MAP<STRING", "column m: expected ',' at position 12 of the schema 'm MAP<STRING'")])
def test_a_schema_error_says_which_part_does_not_parse_and_what_a_schema_looks_like(text, said):
    with pytest.raises(UsageError) as raised:
        parse_schema(text)
    assert str(raised.value) == f"{said}: a schema is \"name TYPE, ...\", e.g. \"id INT, name STRING, attrs " \
                                "MAP<STRING, INT>\""
