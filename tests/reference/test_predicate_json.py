"""The vectors' structured predicates: derived by the tool (never by hand), and in agreement with
Java's text on every vector; a malformed structured form says which part is wrong."""
import json
import shutil
import subprocess
import sys

import pytest
from conftest import JAVA_VECTORS, ROOT
from java_text import java_to_string

from fileindex.errors import UsageError
from fileindex.predicate.java import parse_java_predicate
from fileindex.reference.predicate_json import predicate_from_json
from fileindex.types import parse_type


def multi_cases():
    vectors = json.loads((JAVA_VECTORS / "vectors.json").read_text())
    for record in vectors["multi_column"]:
        if "dataset" not in record:
            continue
        raw = json.loads((JAVA_VECTORS / "datasets" / f"{record['dataset']}.json").read_text())
        schema = {column["name"]: parse_type(column["type"]) for column in raw["columns"]}
        for case in record["predicates"]:
            yield schema, case


def test_every_vector_has_a_structured_form_that_agrees_with_its_text():
    cases = list(multi_cases())
    assert len(cases) == 25
    for schema, case in cases:
        structured = predicate_from_json(case["java_predicate"], schema)
        assert repr(parse_java_predicate(case["java_toString"], schema)) == repr(structured), case
        assert java_to_string(structured, schema) == case["java_toString"]


def test_the_structured_forms_and_the_manifest_are_what_the_tool_derives(tmp_path):
    folder = tmp_path / "java"
    shutil.copytree(JAVA_VECTORS, folder)
    vectors = json.loads((folder / "vectors.json").read_text())
    del vectors["manifest"]
    for record in vectors["multi_column"]:
        for case in record.get("predicates", ()):
            del case["java_predicate"]
    (folder / "vectors.json").write_text(json.dumps(vectors))
    subprocess.run([sys.executable, str(ROOT / "tools" / "derive_vector_fields.py"), str(folder)], check=True,
                   capture_output=True)
    assert (folder / "vectors.json").read_bytes() == (JAVA_VECTORS / "vectors.json").read_bytes()


SCHEMA = {"id": parse_type("INT"), "attrs": parse_type("MAP<STRING, STRING>")}


@pytest.mark.parametrize("form, message", [
    ({"function": "Equal", "column": "id", "type": "INT", "literals": [1, 2]},
     "java_predicate: Equal takes one literal in a list, found"),
    ({"function": "Equal", "column": "id", "type": "BIGINT", "literals": [1]},
     "java_predicate: type 'BIGINT' is not the type of column 'id', INT"),
    ({"function": "Equal", "column": "id", "type": "INT", "literals": ["x"]}, r"java_predicate.literals\[0\]: 'x'"),
    ({"function": "Like", "column": "id", "type": "INT", "literals": [1]}, "unknown function 'Like'"),
    ({"function": "And", "children": [{"function": "IsNull", "column": "id", "type": "INT"}]},
     "And takes a list of two or more"),
    ({"function": "Or", "children": [{"function": "IsNull", "column": "id", "type": "INT"},
                                     {"function": "Equal", "column": "attrs[k]", "type": "STRING", "literals": [3]}]},
     r"java_predicate.children\[1\].literals\[0\]"),
    ([], "expected an object"),
])
def test_a_malformed_structured_form_names_its_part(form, message):
    with pytest.raises(UsageError, match=message):
        predicate_from_json(form, SCHEMA)
