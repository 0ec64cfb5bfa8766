"""fileindex kit export: the corpus's contents, its schemas, its negative corpus and a reproducible tarball."""
import gzip
import io
import json
import os
import re
import signal
import subprocess
import sys
import tarfile

import jsonschema
import pytest
from conftest import JAVA_VECTORS, ROOT


from fileindex.container.file import FileIndexContainer
from fileindex.errors import UsageError
from fileindex.kit import adapter
from fileindex.kit.corpus import NAME, VERSION, cases, sha256
from fileindex.kit.export import build_corpus, tarball
from fileindex.kit.negative import MAY, MUST
from fileindex.kit.tables import JAVA_TABLES, TABLES, java_answers, table_sources
from fileindex.reference.conformance import load_vectors


def test_the_tarball_is_the_same_bytes_twice_and_carries_no_machine_facts(exported):
    folder, archive, digest = exported
    again = tarball(build_corpus())
    assert again == archive.read_bytes() and sha256(again) == digest
    assert archive.with_name(archive.name + ".sha256").read_text() == f"{digest}  {archive.name}\n"
    assert again[4:8] == b"\0\0\0\0"  # gzip MTIME
    with tarfile.open(fileobj=io.BytesIO(again)) as packed:
        members = packed.getmembers()
    assert all(m.mtime == 0 and m.uid == 0 and m.gid == 0 and not m.uname and not m.gname for m in members)
    files = [m.name for m in members if m.isfile()]
    assert files == sorted(files) and all(name.startswith(f"{NAME}/") for name in files)
    assert len(files) == len(json.loads((folder / "manifest.json").read_text())["files"]) + 1  # + the manifest


def test_the_manifest_lists_every_file_with_its_sha256_and_size_and_counts_every_case(kit_folder):
    manifest = json.loads((kit_folder / "manifest.json").read_text())
    assert manifest["kit_version"] == VERSION == (kit_folder / "VERSION").read_text().strip()
    on_disk = {str(p.relative_to(kit_folder)) for p in kit_folder.rglob("*") if p.is_file()} - {"manifest.json"}
    assert set(manifest["files"]) == on_disk
    assert all(sha256((kit_folder / path).read_bytes()) == digest for path, digest in manifest["files"].items())
    assert manifest["sizes"] == {path: (kit_folder / path).stat().st_size for path in manifest["files"]}
    vectors = load_vectors(JAVA_VECTORS)
    ok = [r for r in vectors["vectors"] if r["status"] == "ok"]
    for version in ("v1", "v2"):
        counted = manifest["cases"][version]
        assert sum(c["containers"] for c in counted.values()) == len(ok)
        # Java's recorded queries, and the cases derived from them by a rule (kit/derived.py: each says its source)
        derived = sum(1 for c in cases(kit_folder, version) for item in c.sidecar["cases"] if "source" in item)
        assert 0 < derived < 400
        assert sum(c["cases"] for c in counted.values()) == sum(len(r["queries"]) for r in ok) + derived
        assert sum(len(c.sidecar["cases"]) for c in cases(kit_folder, version)) == \
            sum(len(r["queries"]) for r in ok) + derived
    assert manifest["cases"]["refusals"] == len(vectors["vectors"]) - len(ok)
    assert manifest["cases"]["multi"] == len(vectors["multi_column"]) + 1  # + the rule cases (kit/rules.py)
    tables = cases(kit_folder, "tables")
    java_cases = sum(len(java_answers(ROOT / "tests/tables/parquet", db)) for _, db, _ in JAVA_TABLES)
    assert manifest["cases"]["tables"] == {"tables": len(TABLES) + len(JAVA_TABLES),
                                           "cases": sum(len(t[3]) for t in TABLES) + java_cases}
    assert [c.name for c in tables] == sorted(name for name, _ in table_sources())
    assert sum(len(c.sidecar["cases"]) for c in tables) == manifest["cases"]["tables"]["cases"]


def test_tier2_tables_are_copied_whole_with_a_verdict_for_every_live_file(kit_folder):
    from fileindex import PaimonTable

    for case in cases(kit_folder, "tables"):
        source = next(ROOT / "tests/tables/parquet" / folder for name, folder in table_sources() if name == case.name)
        copied = sorted(p.relative_to(case.file) for p in case.file.rglob("*") if p.is_file())
        assert copied == sorted(p.relative_to(source) for p in source.rglob("*") if p.is_file())
        live = {PaimonTable(case.file).relative(entry) for entry, _ in PaimonTable(case.file).live()}
        assert all(set(item["expected"]["files"]) == live for item in case.sidecar["cases"]
                   if "files" in item["expected"]), case.name
        assert all("rows" in item["expected"] for item in case.sidecar["cases"]), case.name


def readme_bitmap_rows():
    """Rows 0..7 of the bitmap tables as tests/tables/README.md lists them, in the kit's spelling."""
    text = (ROOT / "tests/tables/README.md").read_text()
    listed = text.split("Bitmap tables (f0 STRING, f1 INT, f2 INT, f3 DOUBLE), rows 0..7:", 1)[1].split("`")[1]
    return [[f0, int(f1), None if f2 == "null" else int(f2), f3]
            for f0, f1, f2, f3 in (row.split(",") for row in re.split(r"\s*/\s*", listed.strip()))]


def test_tier2_rows_are_the_rows_tests_tables_readme_lists(kit_folder):
    """Where the README's bitmap facts name exact rows, a full read returns those rows of its listing."""
    from fileindex.kit.tables import BITMAP_FACTS

    listed = readme_bitmap_rows()
    bitmap = {c.name: c for c in cases(kit_folder, "tables")}
    for name in ("append_with_bitmap", "append_with_bitmap_v1", "append_with_bitmap_sidecar"):
        expected = {item["sql"]: item["expected"]["rows"] for item in bitmap[name].sidecar["cases"]}
        exact = {sql: fact for sql, fact in BITMAP_FACTS.items() if isinstance(fact, list)}
        assert len(exact) == 10
        for sql, positions in exact.items():
            assert sorted(expected[sql], key=json.dumps) == sorted((listed[p] for p in positions), key=json.dumps), sql
        assert expected["f1 = 30"] == [] and len(expected["f1 > 10"]) == 3
    evolved = {item["sql"]: item["expected"]["rows"] for item in bitmap["data_evolution_with_index"].sidecar["cases"]}
    # the table's README: f0, f1 written once (rows 0-3), f2 rewritten by the second commit, two rows added later
    assert evolved["f0 = 'Alice'"] == [["Alice", 4, 104, "3.1"]] and evolved["f2 = 14"] == []
    assert evolved["f0 IS NULL"] == [[None, None, 202, "6.1"], [None, None, 204, "7.1"]]
    assert evolved["f1 = 2 OR f2 = 204"] == [["Lily", 2, 102, "2.1"], [None, None, 204, "7.1"]]
    dv = {item["sql"]: item["expected"]["rows"] for item in bitmap["pk_with_bitmap_dv"].sidecar["cases"]}
    assert [row[:2] for row in dv["f0 = 'Alice'"]] == [[7, "Alice"]]  # key 0 (also Alice) deleted


def test_every_json_file_validates_against_its_schema(kit_folder):
    schemas = {p.name.removesuffix(".schema.json"): json.loads(p.read_text())
               for p in (kit_folder / "schemas").glob("*.schema.json")}
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    which = {"containers/v1": "container-case", "containers/v2": "container-case", "containers/multi": "multi-case",
             "bad": "bad-case", "datasets": "dataset"}
    checked = 0
    for prefix, name in which.items():
        for path in sorted((kit_folder / prefix).rglob("*.json")):
            jsonschema.validate(json.loads(path.read_text()), schemas[name])
            checked += 1
    for path in sorted(kit_folder.glob("tables/*/case.json")):
        jsonschema.validate(json.loads(path.read_text()), schemas["table-case"])
        checked += 1
    jsonschema.validate(json.loads((kit_folder / "refusals.json").read_text()), schemas["refusals"])
    jsonschema.validate(json.loads((kit_folder / "hashes.json").read_text()), schemas["hashes"])
    jsonschema.validate(json.loads((kit_folder / "manifest.json").read_text()), schemas["manifest"])
    jsonschema.validate(adapter.capabilities(), schemas["capabilities"])
    table = next(c for c in cases(kit_folder, "tables") if c.name == "data_evolution_with_index")
    rows = adapter.handle({"op": "rows", "table": str(table.file), "where": table.sidecar["cases"][0]["where"]})
    assert rows["rows"]
    jsonschema.validate(rows, schemas["answer"])
    assert checked > 300
    with pytest.raises(jsonschema.ValidationError):  # the schemas say something
        jsonschema.validate({"name": "x", "rule": "SHOULD reject", "file": "x", "request": {"op": "head"},
                             "why": "", "accepted": []}, schemas["bad-case"])


def test_v2_containers_are_the_bytes_javas_proposal_writes_and_marked_proposed(kit_folder):
    v2 = cases(kit_folder, "v2")
    assert v2 and all(c.sidecar["writer"]["implementation"] == "java" for c in v2)
    assert all("proposed" in c.sidecar["status"] for c in v2)
    assert all(FileIndexContainer.from_bytes(c.file.read_bytes()).head.version == 2 for c in v2)


def test_timestamp_answers_say_since_when_they_hold(kit_folder):
    changed = [(c.name, item) for c in cases(kit_folder, "v1") for item in c.sidecar["cases"] if "since" in item]
    assert changed and all(name.startswith("timestamp9__") for name, _ in changed)
    assert all(item["expected"] == {"result": "REMAIN"} and item["before"]["expected"] != item["expected"]
               for _, item in changed)


def test_every_must_reject_case_is_rejected_here_with_a_typed_error(kit_folder):
    bad = cases(kit_folder, "bad")
    assert {c.sidecar["rule"] for c in bad} == {MUST, MAY}
    for case in bad:
        answer = adapter.handle({**case.sidecar["request"], "file": str(case.file)})
        if case.sidecar["rule"] == MUST:
            assert answer.get("error", "").split(":")[0].endswith("Error"), (case.name, answer)
        else:
            assert "error" in answer or answer in case.sidecar["accepted"] or answer == {"result": "ROWS", "ranges": []}


def test_an_export_needs_a_vectors_folder(tmp_path):
    with pytest.raises(UsageError, match="vectors.json"):
        build_corpus(tmp_path)


def test_a_corpus_tarball_unpacks_to_the_folder(exported, tmp_path):
    folder, archive, _ = exported
    with tarfile.open(archive) as packed:
        packed.extractall(tmp_path, filter="data")
    unpacked = tmp_path / NAME
    assert sorted(p.relative_to(unpacked) for p in unpacked.rglob("*")) == \
        sorted(p.relative_to(folder) for p in folder.rglob("*"))
    assert gzip.decompress(archive.read_bytes())  # a plain gzip stream


# kit export, paused (its readiness line on stderr) once it has written part of the corpus's files
PAUSED_MID_EXPORT = """
import pathlib, sys, time
from fileindex.cli import main
write_bytes = pathlib.Path.write_bytes
written = []
def paused(self, data):
    written.append(self)
    if len(written) == 50:
        print("writing", file=sys.stderr, flush=True)
        time.sleep(600)
    return write_bytes(self, data)
pathlib.Path.write_bytes = paused
raise SystemExit(main(["kit", "export", sys.argv[1]]))
"""


def test_ctrl_c_during_an_export_leaves_nothing_under_its_names(tmp_path):
    """trial18: a Ctrl-C left paimon-fileindex-kit-<version>/ with part of its files and no manifest.json, and the
    next export refused it ("exists and is not empty")."""
    out = tmp_path / "kx"
    command = subprocess.Popen([sys.executable, "-c", PAUSED_MID_EXPORT, str(out)], stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    assert command.stderr is not None
    line = command.stderr.readline()
    assert line == "writing\n", line + command.communicate()[1]
    os.killpg(command.pid, signal.SIGINT)  # as a Ctrl-C at the terminal: the whole process group
    assert command.communicate(timeout=60)[1] == "fileindex: interrupted\n" and command.returncode == 130
    assert list(out.iterdir()) == []
