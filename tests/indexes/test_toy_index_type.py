"""Adding an index type is a spec, a package and one registry line (issue #32 item 2): a toy type
registered by a fixture, and nothing else edited, is built, read, checked, explained and verified,
and its options parsed, by the same code paths as Paimon's four."""
import json
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import toy_index

from fileindex.cli import main
from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError
from fileindex.indexes import registry
from fileindex.indexes.result import SKIP, Rows
from fileindex.pipeline.inputs import resolve_inputs
from fileindex.pipeline.verify import verify_file
from fileindex.predicate.evaluation import FileIndexEvaluator
from fileindex.predicate.parser import parse_predicate
from fileindex.types import parse_type
from fileindex.writing.data_file import build_data_file_index
from fileindex.writing.options import IgnoredOptionWarning, parse_options

IDS = [3, None, 7, 3, 11, None, 7, 3]
OPTIONS = {"file-index.toy-set.columns": "id", "file-index.toy-set.id.limit": "10",
           "file-index.bloom-filter.columns": "id"}
SCHEMA = {"id": parse_type("BIGINT")}


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(registry.INDEX_TYPES, toy_index.NAME, toy_index.INDEX)
    return toy_index.INDEX


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "part-0.parquet"
    pq.write_table(pa.table({"id": pa.array(IDS, pa.int64())}), path)
    return path


def build(data, options=OPTIONS):
    built = build_data_file_index(data, options)
    sidecar = data.with_name(data.name + ".index")
    sidecar.write_bytes(built.data)
    return sidecar


def toy_entry(container):
    (entry,) = [e for e in container if e.index_type == toy_index.NAME]
    return entry


def test_unregistered_the_type_is_unknown(data):
    with pytest.raises(UsageError, match="unknown index type 'toy-set'"):
        parse_options(OPTIONS, SCHEMA)


def test_options_are_parsed_and_checked_against_its_declaration(toy, data):
    (request,) = [r for r in parse_options(OPTIONS, SCHEMA).requests if r.index_type == toy.name]
    assert (request.column, request.options) == ("id", {"limit": "10"})
    with pytest.raises(UsageError, match="unknown toy-set option"):
        build_data_file_index(data, {**OPTIONS, "file-index.toy-set.id.size": "3"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parse_options({**OPTIONS, "file-index.toy-set.limit": "4"}, SCHEMA)
    assert [str(w.message) for w in caught if w.category is IgnoredOptionWarning] == [
        "option file-index.toy-set.limit is ignored by Paimon (and here); did you mean file-index.toy-set.id.limit?"]


def test_built_and_read_as_a_container_entry(toy, data):
    container = FileIndexContainer.open(str(build(data)))
    assert {e.index_type for e in container} == {toy.name, "bloom-filter"}
    evaluator = FileIndexEvaluator(SCHEMA)
    assert evaluator.evaluate(container, parse_predicate("id = 3", SCHEMA)) == Rows([0, 3, 7])
    assert evaluator.evaluate(container, parse_predicate("id IS NULL", SCHEMA)) == Rows([1, 5])
    assert evaluator.evaluate(container, parse_predicate("id = 4", SCHEMA)) is SKIP


def test_checked_in_full_and_a_broken_body_named(toy, data, capsys):
    sidecar = build(data)
    assert main(["check", "--schema", "id BIGINT", "--json", str(sidecar)]) == 0
    assert json.loads(capsys.readouterr().out)["bodies_decoded"] == 2
    container = FileIndexContainer.open(str(sidecar))
    entry = toy_entry(container)
    raw = bytearray(sidecar.read_bytes())
    raw[entry.start:entry.start + 4] = (2).to_bytes(4, "big")  # the null row 5 is past a row count of 2
    sidecar.write_bytes(bytes(raw))
    assert main(["check", "--schema", "id BIGINT", "--json", str(sidecar)]) == 3
    outcome = json.loads(capsys.readouterr().out)
    assert "column 'id', toy-set index: row 5 past the row count 2" in outcome["error"]
    assert (outcome["offset"], outcome["field"]) == (entry.start + 4, "toy/body")
    # its row count, where the type declares it is recorded, against the other bodies' (none here)
    raw[entry.start:entry.start + 4] = (9).to_bytes(4, "big")
    sidecar.write_bytes(bytes(raw))
    assert main(["check", "--schema", "id BIGINT", "--json", str(sidecar)]) == 0
    capsys.readouterr()


def test_row_counts_are_compared_with_the_other_bodies(toy, data, capsys):
    sidecar = build(data, {**OPTIONS, "file-index.bitmap.columns": "id"})
    entry = toy_entry(FileIndexContainer.open(str(sidecar)))
    raw = bytearray(sidecar.read_bytes())
    raw[entry.start:entry.start + 4] = (9).to_bytes(4, "big")
    sidecar.write_bytes(bytes(raw))
    assert main(["check", "--schema", "id BIGINT", "--json", str(sidecar)]) == 3
    outcome = json.loads(capsys.readouterr().out)
    assert "counts 9 rows" in outcome["error"] and outcome["field"] == "toy/row_count"
    assert outcome["offset"] == entry.start


def test_explained_as_its_bytes(toy, data, capsys):
    """No Kaitai spec declared: its body is one field of raw bytes beside the bloom filter's decoded fields."""
    sidecar = build(data)
    container = FileIndexContainer.open(str(sidecar))
    entry, (bloom,) = toy_entry(container), [e for e in container if e.index_type == "bloom-filter"]
    assert main(["explain", "--schema", "id BIGINT", "--json", str(sidecar)]) == 0
    fields = json.loads(capsys.readouterr().out)
    inside = [f for f in fields if entry.start <= f["offset"] < entry.start + entry.length]
    assert [(f["offset"], f["length"]) for f in inside] == [(entry.start, entry.length)]
    assert inside[0]["path"].endswith("/body")
    assert len([f for f in fields if bloom.start <= f["offset"] < bloom.start + bloom.length]) > 1


def test_verified_by_sampled_predicates_and_every_row(toy, data):
    build(data)
    (task,) = resolve_inputs([str(data)]).tasks
    report = verify_file(task)
    assert report.status == "ok", report.as_row()
    assert report.tallies[(toy.name, "eq")].checks > 0
    assert report.tallies[(toy.name, "is_null")].checks > 0
    exhaustive = verify_file(task, exhaustive=True)
    assert exhaustive.status == "ok" and exhaustive.tallies[(toy.name, "every row")].checks == len(IDS)


def test_verify_names_a_toy_body_that_lies(toy, data):
    sidecar = build(data)
    entry = toy_entry(FileIndexContainer.open(str(sidecar)))
    raw = sidecar.read_bytes()
    body = raw[entry.start:entry.start + entry.length].replace(b'"11": [4]', b'"11": [0]')
    assert len(body) == entry.length
    sidecar.write_bytes(raw[:entry.start] + body + raw[entry.start + entry.length:])
    (task,) = resolve_inputs([str(data)]).tasks
    report = verify_file(task, exhaustive=True)
    assert report.status == "violations"
    assert {v["index_type"] for v in report.violations} == {toy.name}
