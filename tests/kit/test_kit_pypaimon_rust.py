"""The kit on pypaimon-rust 0.4.0 (tools/kit_pypaimon_rust_adapter.py, the peer in .venv-peer, which the fixture
makes from the package registry when it is missing): what it declares is asked, Tier 2 scans and full reads
pass, and its failures are the known divergences of docs/divergences.md only: bitmap and bsi bodies it writes
other than Java does (valid, non-canonical), tables whose manifests are ORC, and file indexes applied when a
file is read rather than when the table is planned."""
import json

import pytest
from conftest import ROOT
from kit_fixtures import among

from fileindex.cli import main
from fileindex.cli.exits import EXIT_NON_CANONICAL
from fileindex.kit.corpus import cases
from fileindex.kit.runner import CORPUS, FAIL, PASS, UNSUPPORTED

pytestmark = pytest.mark.peer
# docs/divergences.md: the writes whose bodies are not Java's (same rows, other bytes)
NON_CANONICAL_WRITES = {"int_nulls__bitmap_v2", "int_nulls__bitmap_v2_block32b", "str_low_card_70k__bitmap_v2",
                        "str_low_card_70k__bitmap_v2_block1kb", "int_medium_card_50k__bsi", "int_nulls__bsi"}


@pytest.fixture(scope="module")
def peer_results(kit_matrix):
    """The peer's own, from the session's one run of the three (kit_fixtures.kit_matrix)."""
    return among(kit_matrix, "pypaimon-rust")


@pytest.fixture(scope="module")
def adapter(peer_python):
    import kit_pypaimon_rust_adapter

    yield kit_pypaimon_rust_adapter
    kit_pypaimon_rust_adapter.PEER.close()


def outcomes(results, **where):
    return [o for o in results.outcomes if all(getattr(o, k) == v for k, v in where.items())]


def test_tables_scan_and_read_as_recorded(kit_folder, peer_results):
    tables = cases(kit_folder, "tables")
    rows = outcomes(peer_results, check="rows")
    assert len(rows) == sum(len(c.sidecar["cases"]) for c in tables) and all(o.status == PASS for o in rows)
    scans = outcomes(peer_results, check="scan")
    assert len(scans) == sum("files" in item["expected"] for c in tables for item in c.sidecar["cases"])
    # the renamed-column table's two files lie in one split, as do drop_column_rewritten's three: which of them
    # kept the rows cannot be told (the one scan that keeps no file passes)
    assert {(o.case, o.status) for o in scans if o.status != PASS} == {("append_with_bitmap_alter_table", UNSUPPORTED),
                                                                         ("drop_column_rewritten", UNSUPPORTED)}
    assert [o.status for o in scans if o.case == "drop_column_rewritten"].count(PASS) == 1


def test_lone_containers_are_unsupported_never_failed(peer_results):
    for check in ("head", "read", "reject", "fail-open"):
        asked = outcomes(peer_results, producer=CORPUS, check=check)
        assert asked and all(o.status == UNSUPPORTED for o in asked), check


def test_it_fails_only_the_writes_whose_bodies_are_not_javas(peer_results, tmp_path):
    failed = outcomes(peer_results, status=FAIL)
    assert {o.case for o in failed} == NON_CANONICAL_WRITES
    assert all(o.check == "write" and "payload SHA-256" in o.detail for o in failed)
    writes = outcomes(peer_results, check="write")
    assert {o.layout for o in writes} == {"bloom-filter", "bitmap-v1", "bitmap-v2", "bsi", "range-bitmap"}
    assert all(o.status == UNSUPPORTED for o in writes if o.layout == "bitmap-v1")  # its writer refuses V1
    assert sum(o.status == PASS for o in writes) == len(writes) - len(failed) - sum(
        o.layout == "bitmap-v1" for o in writes)
    refusals = outcomes(peer_results, check="refuse")
    assert refusals and all(o.status in (PASS, UNSUPPORTED) for o in refusals)


def test_what_it_writes_is_valid_and_non_canonical_where_it_differs(kit_folder, adapter, tmp_path, capsys):
    """The same writes through the adapter: `check` passes every container, and --canonical fails exactly
    those whose body differs from Java's."""
    sidecars = {c.name: c.sidecar for c in cases(kit_folder, "v1")}
    for name in sorted(NON_CANONICAL_WRITES) + ["int_nulls__bloom", "int_nulls__range_bitmap"]:
        sidecar = sidecars[name]
        out = tmp_path / f"{name}.index"
        answer = adapter.handle({"op": "write", "dataset": str(kit_folder / sidecar["dataset"]), "column": "c",
                                 "type": sidecar["type"], "index_type": sidecar["index_type"],
                                 "options": sidecar["options"], "container_version": 1, "out": str(out)})
        assert answer == {"written": str(out)}
        schema = ["--schema", f"c {sidecar['type']}"]
        assert main(["check", *schema, str(out)]) == 0, capsys.readouterr().out
        expected = EXIT_NON_CANONICAL if name in NON_CANONICAL_WRITES else 0
        assert main(["check", "--canonical", *schema, str(out)]) == expected
        capsys.readouterr()


def test_its_plan_keeps_files_the_index_rules_out(kit_folder, adapter):
    """pypaimon-rust applies a file index when it reads the file, not when it plans: its plan keeps every file
    statistics keep, and the read of a file the index rules out returns no row (Java drops it from the plan)."""
    skipped = 0
    for case in cases(kit_folder, "tables"):
        for item in case.sidecar["cases"]:
            for path, verdict in item["expected"].get("files", {}).items():
                if verdict["result"] != "SKIP":
                    continue
                answer = adapter.handle({"op": "scan", "table": str(case.file), "where": item["where"]})
                if "unsupported" in answer:  # drop_column_rewritten's files share a split that returned rows
                    assert case.name == "drop_column_rewritten" and "a split of 3 data files" in answer["unsupported"]
                    continue
                assert answer["files"][path] == {"result": "SKIP"}, (case.name, item["sql"])
                skipped += path in answer["planned"]
    assert skipped >= 5


def test_tables_with_orc_manifests_do_not_open_and_the_adapter_goes_on(adapter, kit_folder):
    where = {"function": "Equal", "column": "f0", "type": "STRING", "literals": ["Alice"]}
    for folder in ("append_with_bitmap.db/append_with_bitmap", "append_with_bloomfilter.db/append_with_bloomfilter"):
        answer = adapter.handle({"op": "scan", "table": str(ROOT / "tests" / "tables" / "orc" / folder),
                                 "where": where})
        assert "avro ocf: invalid magic bytes" in answer["error"]
    table = kit_folder / "tables" / "append_with_bitmap" / "table"
    assert adapter.handle({"op": "rows", "table": str(table), "where": where})["rows"][0][0] == "Alice"


def test_a_peer_that_died_is_started_again(adapter):
    """The peer's process ending (a panic that aborts it) costs the request it was answering; the next request
    starts a new one."""
    panic = {"panic": "PanicException: boom"}
    assert adapter._failure(panic) == {"error": "pypaimon-rust panicked: PanicException: boom"}
    table = str(ROOT / "tests" / "tables" / "parquet" / "append_with_bitmap.db" / "append_with_bitmap")
    where = {"function": "Equal", "column": "f1", "type": "INT", "literals": [30]}
    assert list(adapter.handle({"op": "scan", "table": table, "where": where})["files"].values()) == [
        {"result": "SKIP"}]
    process = adapter.PEER.process
    process.kill()
    process.wait()
    assert list(adapter.handle({"op": "scan", "table": table, "where": where})["files"].values()) == [
        {"result": "SKIP"}]
    assert adapter.PEER.process is not process


@pytest.mark.java
def test_the_matrix_page_of_the_docs_is_a_live_run(kit_matrix):
    from fileindex.kit.report import markdown

    three = kit_matrix
    page = (ROOT / "docs" / "kit-matrix.md").read_text(encoding="utf-8")
    begin, end = "<!-- kit-matrix: begin (tools/kit_matrix.py) -->\n", "\n<!-- kit-matrix: end -->"
    assert page.split(begin, 1)[1].split(end, 1)[0] == markdown(three), "python tools/kit_matrix.py rewrites it"
    assert json.dumps(three.implementations["pypaimon-rust"]["version"]) == '"0.4.0"'
