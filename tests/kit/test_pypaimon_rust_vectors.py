"""``fileindex check`` on containers pypaimon-rust 0.4.0 wrote (tests/vectors/pypaimon-rust/, made by
tools/pypaimon_rust_vectors.py): Java reads them correctly, so they are valid (exit 0); where their bodies are
not the bytes Java writes for the same rows they carry notes, and --canonical fails them with exit 6."""
import json

import pytest
from conftest import ROOT

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.indexes.registry import INDEX_TYPES
from fileindex.kit.corpus import sha256
from fileindex.reference.vector_format import value_from_json
from fileindex.types import parse_type

FOLDER = ROOT / "tests" / "vectors" / "pypaimon-rust"
VECTORS = json.loads((FOLDER / "vectors.json").read_text())["vectors"]


def javas_body(vector) -> bytes:
    """The body Java's writer (this project's byte-identical one) writes for the vector's rows and options."""
    data_type = parse_type(vector["type"])
    dataset = json.loads((ROOT / "tests" / "vectors" / "java" / "datasets" / f"{vector['dataset']}.json").read_text())
    values = [value_from_json(v, data_type) for v in dataset["values"]]
    return INDEX_TYPES[vector["index_type"]].build(values, data_type, vector["options"])


def test_the_vectors_cover_both_kinds():
    assert {v["index_type"] for v in VECTORS} == {"bitmap", "bsi", "bloom-filter", "range-bitmap"}
    assert {v["java_identical"] for v in VECTORS} == {True, False}


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["name"])
def test_a_container_pypaimon_rust_wrote_is_valid_and_canonical_where_its_body_is_javas(vector, capsys):
    path = FOLDER / vector["file"]
    assert sha256(path.read_bytes()) == vector["sha256"]
    with FileIndexContainer.open(path) as container:
        (entry,) = list(container)
        identical = bytes(container.body(entry)) == javas_body(vector)
    assert identical == vector["java_identical"]
    schema = ["--schema", f"c {vector['type']}"]
    assert main(["check", *schema, "--json", str(path)]) == 0  # valid: never malformed
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["status"] == "OK" and outcome["bodies_decoded"] == 1
    assert bool(outcome["notes"]) == (not identical)
    code = main(["check", *schema, "--canonical", str(path)])
    out = capsys.readouterr().out
    if identical:
        assert code == 0 and out.startswith("OK ")
    else:
        assert code == 6 and out.startswith("NON-CANONICAL ") and "note: " in out


def test_index_types_out_of_javas_hashmap_order_are_a_note(tmp_path, capsys):
    from fileindex.container.column_order import index_type_order
    from fileindex.container.writer import write_entries
    from fileindex.indexes import bitmap, bloom_filter

    int_type = parse_type("INT")
    bodies = {"bitmap": bitmap.build([1, 2], int_type), "bloom-filter": bloom_filter.build([1, 2], int_type)}
    javas = index_type_order(list(bodies))
    for order, notes in ((javas, 0), (javas[::-1], 1)):
        path = tmp_path / "c.index"
        path.write_bytes(write_entries([("c", t, bodies[t]) for t in order]))
        assert main(["check", "--schema", "c INT", "--json", str(path)]) == 0
        found = json.loads(capsys.readouterr().out)["notes"]
        assert len(found) == notes and all("HashMap order" in n["message"] for n in found)
