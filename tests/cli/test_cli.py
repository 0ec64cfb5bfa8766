import json
import shlex
import unicodedata
import subprocess
import sys

import pytest
from conftest import JAVA_VECTORS, index_files

from fileindex.cli import main, pad
from fileindex.container.writer import write_entries

ENGINE = JAVA_VECTORS / "multi__engine_layout.index"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_inspect_json_shape_matches_vectors(capsys, vectors_json):
    code, out, _ = run_cli(capsys, "inspect", "--json", str(ENGINE))
    assert code == 0
    (line,) = out.splitlines()
    described = json.loads(line)
    head = vectors_json["multi_column"][0]["head"]
    for key in ("magic", "version", "head_length", "redundant_length"):
        assert described[key] == head[key]
    assert [
        {"column": c["column"], "indexes": [
            {k: i[k] for k in ("index_type", "start", "length")} for i in c["indexes"]]}
        for c in described["columns"]
    ] == head["columns"]


def test_inspect_table(capsys):
    code, out, _ = run_cli(capsys, "inspect", str(ENGINE))
    assert code == 0
    assert "head_length 330" in out
    assert "列名😀" in out
    assert "7 column(s), 12 index(es)" in out


def test_inspect_malformed_reports_field_and_offset(capsys, tmp_path):
    bad = tmp_path / "bad.index"
    bad.write_bytes(ENGINE.read_bytes()[:40])
    code, _, err = run_cli(capsys, "inspect", str(bad))
    assert code == 3
    assert "bad.index" in err and "offset" in err and "file_index_format/head" in err


def test_check_every_vector_is_valid(capsys):
    files = [str(p) for p in index_files()]
    code, out, _ = run_cli(capsys, "check", *files)
    assert code == 0
    assert len(out.splitlines()) == len(files) == 143
    assert all(line.startswith("OK ") for line in out.splitlines())


def test_check_exit_codes(capsys, tmp_path):
    good = tmp_path / "good.index"
    good.write_bytes(write_entries([("c", "bitmap", b"\x01")]))
    unknown = tmp_path / "unknown.index"
    unknown.write_bytes(write_entries([("c", "zorder", b"\x01")]))
    version = tmp_path / "version.index"
    version.write_bytes(good.read_bytes()[:8] + (3).to_bytes(4, "big") + good.read_bytes()[12:])
    truncated = tmp_path / "truncated.index"
    truncated.write_bytes(good.read_bytes()[:-1])

    assert run_cli(capsys, "check", str(good))[0] == 0
    code, out, _ = run_cli(capsys, "check", str(good), str(unknown))
    assert code == 4 and "UNSUPPORTED" in out and "zorder" in out and "index_type" in out
    code, out, _ = run_cli(capsys, "check", str(version))
    assert code == 4 and "file_index_format/version at offset 8" in out
    code, out, _ = run_cli(capsys, "check", str(unknown), str(truncated))
    assert code == 3
    assert "MALFORMED" in out and "truncated.index" in out and "len_body" in out and "offset" in out
    code, out, _ = run_cli(capsys, "check", str(tmp_path / "missing.index"))
    assert code == 2 and "missing.index" in out


def test_usage_error_exit_code():
    with pytest.raises(SystemExit) as info:
        main(["check"])
    assert info.value.code == 2


def test_console_script_runs_demo():
    result = subprocess.run(
        [sys.executable, "-m", "fileindex.cli", "samples", "--json"], capture_output=True, text=True, check=True
    )
    objects = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert {o["head_length"] for o in objects} >= {330, 432}
    assert result.stdout.count("check: OK") == len(objects) == 4
    assert all(o["schema"] for o in objects)


def test_samples_show_each_schema_and_a_query_that_runs(capsys):
    code, out, _ = run_cli(capsys, "samples")
    assert code == 0 and out.count("  schema: ") == 4
    for line in out.splitlines():
        if line.startswith("  check: "):  # the sample's schema types every body: check decoded them all
            assert line.startswith("  check: OK") and "bodies decoded" in line
    tries = [shlex.split(line.split("try:", 1)[1]) for line in out.splitlines() if line.startswith("  try:")]
    assert len(tries) == 4
    for command in tries:
        assert command[0] == "fileindex"
        code, answer, err = run_cli(capsys, *command[1:])
        assert code == 0 and "=>" in answer, err


def test_inspect_diagnoses_bloom_bodies(capsys):
    path = next((JAVA_VECTORS.parent.parent / "tables" / "parquet" / "append_with_bloomfilter.db").rglob("*.index"))
    code, out, _ = run_cli(capsys, "inspect", "--json", str(path))
    assert code == 0
    blooms = [i["bloom"] for c in json.loads(out)["columns"] for i in c["indexes"]]
    assert len(blooms) == 5 and all(b["verdict"] == "oversized" for b in blooms)
    code, out, _ = run_cli(capsys, "inspect", str(path))
    assert "oversized" in out and "holds ~5 distinct value(s)" in out


MULTI_SCHEMA = "id INT, name STRING, ts TIMESTAMP(3), price DOUBLE, `列名😀` STRING, attrs MAP<STRING, STRING>"


def test_check_with_schema_decodes_bodies(capsys):
    code, out, _ = run_cli(capsys, "check", "--schema", MULTI_SCHEMA, str(ENGINE))
    assert code == 0 and "bodies decoded" in out
    from fileindex.container.file import FileIndexContainer
    from fileindex.indexes.registry import INDEX_TYPES

    decoded = int(out.split(", ")[-1].split()[0])
    implemented = [e for e in FileIndexContainer.open(ENGINE) if e.index_type in INDEX_TYPES]
    assert decoded == len(implemented) >= 10  # map-key columns included


def test_check_with_schema_finds_a_corrupt_body(capsys, tmp_path):
    from fileindex.container.file import FileIndexContainer

    data = bytearray(ENGINE.read_bytes())
    entry = FileIndexContainer.from_bytes(bytes(data)).entry("name", "bitmap")
    data[entry.start + 1:entry.start + 5] = (-7).to_bytes(4, "big", signed=True)  # row_count
    bad = tmp_path / "corrupt.index"
    bad.write_bytes(bytes(data))
    assert run_cli(capsys, "check", str(bad))[0] == 0  # the layout alone is fine
    code, out, _ = run_cli(capsys, "check", "--schema", MULTI_SCHEMA, str(bad))
    assert code == 3
    assert "bitmap/header/row_count" in out and f"offset {entry.start + 1}" in out


def test_check_schema_usage_errors(capsys):
    code, out, _ = run_cli(capsys, "check", "--schema", "c FOO", str(ENGINE))
    assert code == 2 and "unknown type 'FOO'" in out
    code, out, _ = run_cli(capsys, "check", "--schema", "", str(ENGINE))
    assert code == 2


def test_query_on_a_corrupt_body_fails_or_answers_remain_when_lenient(capsys, tmp_path):
    from fileindex.container.file import FileIndexContainer

    data = bytearray(ENGINE.read_bytes())
    entry = FileIndexContainer.from_bytes(bytes(data)).entry("name", "bitmap")
    data[entry.start + 1:entry.start + 5] = (-7).to_bytes(4, "big", signed=True)
    bad = tmp_path / "corrupt.index"
    bad.write_bytes(bytes(data))
    argv = ["query", str(bad), "--schema", MULTI_SCHEMA, "--where", "name = 'bob'", "--json"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 3 and "bitmap/header/row_count" in err and not out
    code, out, err = run_cli(capsys, *argv, "--lenient")
    assert code == 0 and json.loads(out)["result"] in ("REMAIN", "SKIP")  # the bloom filter may still skip
    assert "answered REMAIN for a malformed body" in err and "bitmap/header/row_count" in err
    code, out, _ = run_cli(capsys, "query", str(bad), "--schema", MULTI_SCHEMA, "--where", "id = 5", "--json")
    assert code == 0 and json.loads(out)["cardinality"] == 1  # other columns are unaffected
    # several --where share the readers; the malformed body is reported with each predicate that reads it
    code, out, err = run_cli(capsys, "query", str(bad), "--schema", MULTI_SCHEMA, "--lenient", "--json",
                             "--where", "id = 5", "--where", "name = 'bob'", "--where", "name IN ('bob', 'x')")
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and answers[0]["cardinality"] == 1 and len(answers) == 3
    assert err.count("answered REMAIN for a malformed body") == 2
    # and without --lenient, the answers before the failing predicate are printed first
    code, out, err = run_cli(capsys, "query", str(bad), "--schema", MULTI_SCHEMA, "--json",
                             "--where", "id = 5", "--where", "name = 'bob'")
    assert code == 3 and json.loads(out)["cardinality"] == 1 and "bitmap/header/row_count" in err


def test_query_exit_codes(capsys, tmp_path):
    version = tmp_path / "v2.index"
    good = ENGINE.read_bytes()
    version.write_bytes(good[:8] + (3).to_bytes(4, "big") + good[12:])
    assert run_cli(capsys, "query", str(version), "--schema", "id INT", "--where", "id = 1")[0] == 4
    assert run_cli(capsys, "query", str(tmp_path / "none.index"), "--schema", "id INT", "--where", "id = 1")[0] == 2
    assert run_cli(capsys, "query", str(ENGINE), "--schema", "id INT", "--where", "id = 'x'")[0] == 2


def test_inspect_aligns_columns_whose_names_hold_wide_characters(capsys):
    code, out, _ = run_cli(capsys, "inspect", str(ENGINE))
    rows = [line for line in out.splitlines() if " bitmap " in line]
    assert code == 0 and any("列名😀" in row for row in rows)
    assert pad("列名😀", 8) == "列名😀  " and pad("e\u0301", 3) == "e\u0301  " and pad("toolong", 3) == "toolong"
    starts = {cells(row[: row.index(" bitmap ")]) for row in rows}
    assert len(starts) == 1  # the index type starts in the same terminal cell on every row


def cells(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def test_build_advice_names_the_configured_fpp_and_the_observed_one(capsys, tmp_path):
    """Where build knows the options a bloom filter was sized with (its --option, a table's), an overfull one's
    advice says the fpp they configured and the rate it answers with at what it holds."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "part-0.parquet"
    pq.write_table(pa.table({"id": pa.array(range(5000), pa.int64())}), data)
    code, _, err = run_cli(capsys, "build", str(data), "--option", "file-index.bloom-filter.columns=id",
                           "--option", "file-index.bloom-filter.id.items=1000",
                           "--option", "file-index.bloom-filter.id.fpp=0.01")
    assert code == 0 and "id:bloom-filter overfull" in err and "the configured fpp=0.01" in err, err
    assert "its rate is about 0." in err, err
