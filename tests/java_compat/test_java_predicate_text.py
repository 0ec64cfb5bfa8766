"""Java 0.9.0's own ``Predicate.toString`` against this project's reading of it: Java builds each
random predicate from its structured form (names and literals with ", ", ")", brackets, CR LF,
U+FEFF; map-key fields), and the text it prints is the tests' formatter's text and reads back."""
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from java_oracle import JavaOracle
from java_predicates import leaf_count, predicates, same, schemas
from java_text import java_to_string

from fileindex.predicate.java import java_predicate_readings, parse_java_predicate
from fileindex.predicate.tree import Leaf
from fileindex.reference.predicate_json import predicate_to_json
from fileindex.types import column_type, parse_type

JAVA_09_FUNCTIONS = {"eq", "neq", "lt", "lte", "gt", "gte", "is_null", "is_not_null", "in", "not_in"}  # no Between


@pytest.fixture(scope="module")
def java(tmp_path_factory):
    oracle = JavaOracle(tmp_path_factory.mktemp("oracle"))
    yield oracle
    oracle.close()


def functions(predicate) -> set:
    return {predicate.function} if isinstance(predicate, Leaf) else set().union(*map(functions, predicate.children))


def floating(predicate, schema) -> bool:
    if isinstance(predicate, Leaf):
        return column_type(schema, predicate.column).root in ("FLOAT", "DOUBLE") and bool(predicate.literals)
    return any(floating(c, schema) for c in predicate.children)


@pytest.mark.java
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.data())
def test_java_prints_what_this_project_reads(java, data):
    schema = data.draw(schemas())
    original = data.draw(predicates(schema).filter(lambda p: functions(p) <= JAVA_09_FUNCTIONS))
    form = json.loads(json.dumps(predicate_to_json(original, schema)))
    answer = java.ask({"op": "predicate_text", "predicate": form})
    assert "error" not in answer, answer
    text = answer["text"]
    if not floating(original, schema):  # JDK < 19 prints some doubles with more digits than the shortest
        assert java_to_string(original, schema) == text
    readings, complete = java_predicate_readings(text, schema)
    if complete:
        assert any(same(r, original) for r in readings), (text, readings)
        most = max(leaf_count(r) for r in readings)
        if [same(r, original) for r in readings if leaf_count(r) == most] == [True]:
            assert same(parse_java_predicate(text, schema), original)


@pytest.mark.java
def test_the_texts_of_the_issue(java):
    schema = {"tags🏷": parse_type("MAP<STRING, INT>"), "s": parse_type("STRING")}
    for predicate in [Leaf("gte", "tags🏷[é]", (-231566689,)), Leaf("eq", "s", ("a\r\nb",)),
                      Leaf("eq", "s", ("\ufeffx, y)",)), Leaf("eq", "s", ("",))]:
        text = java.ask({"op": "predicate_text", "predicate": predicate_to_json(predicate, schema)})["text"]
        assert same(parse_java_predicate(text, schema), predicate), text
