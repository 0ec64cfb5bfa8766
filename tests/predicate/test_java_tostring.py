"""Java's ``Predicate.toString`` read back against the schema: names and literals that hold ", ",
")", brackets, CR LF or U+FEFF; map-key fields; every reading prints back to the same text."""
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from java_predicates import leaf_count, predicates, same, schemas
from java_text import java_to_string

from fileindex.errors import UsageError
from fileindex.predicate.java import java_predicate_readings, parse_java_predicate
from fileindex.predicate.tree import And, Leaf, Or
from fileindex.reference.predicate_json import predicate_from_json, predicate_to_json
from fileindex.types import parse_type
from fileindex.values import Timestamp


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_java_text_reads_back_to_the_predicate(data):
    schema = data.draw(schemas())
    original = data.draw(predicates(schema))
    text = java_to_string(original, schema)
    readings, complete = java_predicate_readings(text, schema)
    for reading in readings:  # every reading is a predicate Java prints as this text
        assert java_to_string(reading, schema) == text
    if complete:
        assert any(same(r, original) for r in readings), (text, readings)
    most = max(leaf_count(r) for r in readings)
    if complete and [same(r, original) for r in readings if leaf_count(r) == most] == [True]:
        assert same(parse_java_predicate(text, schema), original)


SCHEMA = {"id": parse_type("INT"), "name": parse_type("STRING"), "tags🏷": parse_type("MAP<STRING, BIGINT>"),
          "ts": parse_type("TIMESTAMP(3)"), "p": parse_type("DOUBLE")}


@pytest.mark.parametrize("text, expected", [
    ("GreaterOrEqual(tags🏷[é], -231566689)", Leaf("gte", "tags🏷[é]", (-231566689,))),
    ("Equal(name, a\r\nb)", Leaf("eq", "name", ("a\r\nb",))),
    ("Equal(name, \ufeffx)", Leaf("eq", "name", ("\ufeffx",))),
    ("Equal(name,  x )", Leaf("eq", "name", (" x ",))),
    ("Equal(name)", Leaf("eq", "name", ("",))),
    ("Equal(name, x), Equal(id, 3)", Leaf("eq", "name", ("x), Equal(id, 3",))),
    ("And([Equal(name, x), Equal(id, 3)])", And((Leaf("eq", "name", ("x",)), Leaf("eq", "id", (3,))))),
    ("Or([Equal(name, a, b), Equal(name, c)])", Or((Leaf("eq", "name", ("a, b",)), Leaf("eq", "name", ("c",))))),
    ("In(id, [1, 2, null])", Leaf("in", "id", (1, 2, None))),
    ("Between(ts, [2023-11-14T22:13, 2023-11-14T22:13:40.5])",
     Leaf("between", "ts", (Timestamp(1699999980000), Timestamp(1700000020500)))),
    ("NotEqual(p, -0.0)", Leaf("neq", "p", (-0.0,))),
])
def test_texts_java_wrote(text, expected):
    assert same(parse_java_predicate(text, SCHEMA), expected)


@pytest.mark.parametrize("text, message", [
    ("Equal(nope, 3)", "no column of the schema is named 'nope'"),
    ("Equal(id, x)", "'x' is not a literal of column 'id' (INT)"),
    ("StartsWith(name, x)", "'StartsWith' is not a predicate function this project reads"),
    ("Equal(id, 1", "is not Function(field[, literals])"),
    ("Between(id, [1, 2, 3])", "is not two literals of column 'id'"),
    ("IsNull(id, 3)", "IsNull takes no literal"),
    ("IsNull(id, )", "no column of the schema is named 'id, '"),  # Java prints no ", " before nothing
    ("Equal(name, )", "no column of the schema is named 'name, '"),
    ("Between(name, [a, b, c])", "reads 2 ways against the schema"),
    ("In(name, [a, b, c])", "reads 3 ways against the schema"),
])
def test_texts_that_do_not_read_one_way_say_why(text, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        parse_java_predicate(text, SCHEMA)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_structured_form_reads_back_to_the_predicate(data):
    schema = data.draw(schemas())
    original = data.draw(predicates(schema))
    form = json.loads(json.dumps(predicate_to_json(original, schema)))
    assert same(predicate_from_json(form, schema), original)
