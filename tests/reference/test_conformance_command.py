"""`fileindex conformance DIR`: all of the Java vectors pass; a tampered copy fails, and says where."""
import contextlib
import functools
import io
import json
import shutil
import subprocess
import sys

import pytest

from conftest import JAVA_VECTORS, ROOT

from fileindex.cli import main
from fileindex.reference.conformance import check_directory


@functools.cache
def intact_run() -> tuple[int, str]:
    """(exit code, stdout) of ``fileindex conformance`` over the intact vectors: run once, read by two tests."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["conformance", str(JAVA_VECTORS)])
    return code, out.getvalue()


def test_the_java_vectors_pass():
    code, out = intact_run()
    assert code == 0
    assert out.rstrip().endswith("PASS")
    total = next(line for line in out.splitlines() if line.startswith("total"))
    passed, failed = (int(x) for x in total.split()[-2:])
    assert passed > 5000 and failed == 0
    for layout in ("bitmap v1", "bitmap v2", "bloom-filter", "bsi", "range-bitmap"):
        assert f"{layout:<16} write" in out


def test_a_tampered_vector_fails(tmp_path, capsys):
    folder = tmp_path / "vectors"
    shutil.copytree(JAVA_VECTORS, folder)
    vectors = json.loads((folder / "vectors.json").read_text())
    target = next(v for v in vectors["vectors"] if v["name"] == "int_nulls__bitmap_v2")
    data = bytearray((folder / target["file"]).read_bytes())
    data[-3] ^= 0x55  # inside the last bitmap of the body
    (folder / target["file"]).write_bytes(bytes(data))
    query = next(q for q in target["queries"] if isinstance(q["result"], dict))
    query["result"] = "SKIP"
    (folder / "vectors.json").write_text(json.dumps(vectors))
    assert main(["conformance", str(folder), "--failures", "50"]) == 1
    out = capsys.readouterr().out
    assert "FAIL bitmap v2 write: int_nulls__bitmap_v2: bytes differ" in out
    assert f"FAIL bitmap v2 {query['op']['name']}: int_nulls__bitmap_v2" in out


def test_a_folder_in_another_layout(tmp_path, capsys):
    (tmp_path / "vectors.json").write_text(json.dumps({"something": []}))
    assert main(["conformance", str(tmp_path)]) == 2
    assert main(["conformance", str(tmp_path / "missing")]) == 2


def test_the_folder_above_a_corpus_is_answered_with_the_subfolder_that_holds_it(tmp_path, capsys):
    (tmp_path / "java").mkdir()
    (tmp_path / "java" / "vectors.json").write_text(json.dumps({"vectors": [], "manifest": {}}))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "vectors.json").write_text(json.dumps({"vectors": []}))  # no manifest: no corpus
    assert main(["conformance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    corpus = tmp_path / "java"
    assert err.strip() == (f"fileindex conformance: {tmp_path} holds no vectors.json; its subfolder {corpus} holds a "
                           f"corpus (vectors.json with a manifest): fileindex conformance {corpus}")
    (tmp_path / "java" / "vectors.json").unlink()
    assert main(["conformance", str(tmp_path)]) == 2  # no corpus below: the file it lacks is named
    assert f"cannot read {tmp_path / 'vectors.json'}" in capsys.readouterr().err


def tampered_copy(tmp_path, change) -> tuple:
    folder = tmp_path / "vectors"
    shutil.copytree(JAVA_VECTORS, folder)
    vectors = json.loads((folder / "vectors.json").read_text())
    change(vectors, folder)
    (folder / "vectors.json").write_text(json.dumps(vectors))
    return folder, vectors


def flip(result):
    """An answer that is wrong whatever the right one was."""
    empty = result == "SKIP" or (isinstance(result, dict) and result["cardinality"] == 0)
    return {"cardinality": 1, "ranges": [[999, 999]]} if empty else "SKIP"


def test_every_whole_file_answer_of_a_multi_column_record_is_checked(tmp_path, capsys):
    def change(vectors, folder):
        for case in vectors["multi_column"][0]["predicates"]:
            case["result"] = flip(case["result"])

    folder, vectors = tampered_copy(tmp_path, change)
    assert main(["conformance", str(folder), "--failures", "100"]) == 1
    out = capsys.readouterr().out
    assert out.count("FAIL multi-column predicate: multi__engine_layout") == 25
    assert "multi-column     predicate         0     25" in out


def test_a_multi_column_head_and_bytes_are_checked(tmp_path, capsys):
    def change(vectors, folder):
        record = vectors["multi_column"][1]
        record["head"]["columns"][0]["indexes"][0]["length"] += 1
        data = bytearray((folder / record["file"]).read_bytes())
        data[-1] ^= 1  # inside the bloom-filter body: the HEAD still parses
        (folder / record["file"]).write_bytes(bytes(data))
        engine = vectors["multi_column"][0]
        data = bytearray((folder / engine["file"]).read_bytes())
        data[-1] ^= 1
        (folder / engine["file"]).write_bytes(bytes(data))

    folder, _ = tampered_copy(tmp_path, change)
    assert main(["conformance", str(folder), "--failures", "100"]) == 1
    out = capsys.readouterr().out
    assert "FAIL multi-column head: multi__explicit_empty_entry" in out
    assert "FAIL multi-column bytes: multi__explicit_empty_entry" in out
    assert "FAIL multi-column write: multi__engine_layout: bytes differ" in out


def per_layout(out: str) -> dict[str, tuple[int, int]]:
    """The "checks per layout" block: layout -> (passed, failed)."""
    block = out.split("checks per layout", 1)[1].splitlines()[1:]
    rows = {}
    for line in block:
        parts = line.rsplit(None, 2)
        if len(parts) != 3 or not parts[1].isdigit():
            break
        rows[parts[0].strip()] = (int(parts[1]), int(parts[2]))
    return rows


@functools.cache
def intact_counts() -> dict[str, tuple[int, int]]:
    return check_directory(JAVA_VECTORS).per_layout()


def test_the_report_counts_checks_per_layout():
    code, out = intact_run()
    assert code == 0
    counts = per_layout(out)
    assert counts == intact_counts()
    assert set(counts) == {"bitmap v1", "bitmap v2", "bloom-filter", "bsi", "range-bitmap", "multi-column", "corpus"}
    assert all(passed > 0 and failed == 0 for passed, failed in counts.values())


def remove_dataset(vectors, folder):
    (folder / "datasets" / "int_nulls.json").unlink()


def corrupt_dataset(vectors, folder):
    (folder / "datasets" / "int_nulls.json").write_text('{"values": [1, 2,')


def remove_vector_file(vectors, folder):
    (folder / "int_nulls__bitmap_v2.index").unlink()


def corrupt_record(vectors, folder):
    del next(v for v in vectors["vectors"] if v["name"] == "int_nulls__bitmap_v2")["index_type"]


def remove_multi_dataset(vectors, folder):
    (folder / "datasets" / "multi.json").unlink()


# What each damage must say; every one fails with a non-zero exit, and the checks it starves
# count as failed so no layout's total shrinks.
DAMAGE = {
    "a dataset deleted": (remove_dataset, "FAIL corpus dataset: datasets/int_nulls.json is missing"),
    "a dataset unreadable": (corrupt_dataset, "FAIL corpus dataset: datasets/int_nulls.json is unreadable"),
    "a vector file deleted": (remove_vector_file,
                              "FAIL corpus file: int_nulls__bitmap_v2: cannot read int_nulls__bitmap_v2.index"),
    "the multi-column dataset deleted": (remove_multi_dataset, "FAIL corpus dataset: datasets/multi.json is missing"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_missing_or_unreadable_input_fails_with_its_name(damage, tmp_path, capsys):
    intact = intact_counts()
    change, message = DAMAGE[damage]
    folder, _ = tampered_copy(tmp_path, change)
    assert main(["conformance", str(folder), "--failures", "500"]) == 1
    out = capsys.readouterr().out
    assert message in out
    counts = per_layout(out)
    for layout, (passed, failed) in intact.items():
        if layout != "corpus":
            assert sum(counts[layout]) == passed + failed, layout  # the same number of checks, some now failed


def test_an_unreadable_record_fails_with_its_name_and_the_rest_is_checked(tmp_path, capsys):
    folder, vectors = tampered_copy(tmp_path, corrupt_record)
    position = next(i for i, v in enumerate(vectors["vectors"]) if v["name"] == "int_nulls__bitmap_v2")
    assert main(["conformance", str(folder)]) == 1
    out = capsys.readouterr().out
    assert (f"FAIL corpus record: vectors[{position}] (int_nulls__bitmap_v2): "
            "not a readable record (KeyError('index_type'))") in out
    assert "FAIL corpus manifest: bitmap: the folder holds 69 records" in out  # one record fewer was read
    assert per_layout(out)["bitmap v1"][0] > 700  # the other records were checked


SHRINK = {
    "a record removed": (lambda v, f: v["vectors"].pop(0),
                         "bloom-filter: the folder holds 24 records, 758 queries; the manifest declares 25 records"),
    "a query removed": (lambda v, f: v["vectors"][5]["queries"].pop(),
                        "range-bitmap: the folder holds 46 records, 1403 queries; "
                        "the manifest declares 46 records, 1404"),
    "a multi-column predicate removed": (lambda v, f: v["multi_column"][0]["predicates"].pop(),
                                         "multi-column: the folder holds 2 records, 24 predicates"),
    "the manifest removed": (lambda v, f: v.pop("manifest"), "vectors.json declares no manifest"),
}


@pytest.mark.parametrize("shrink", list(SHRINK))
def test_a_folder_that_holds_less_than_its_manifest_declares_fails(shrink, tmp_path, capsys):
    change, message = SHRINK[shrink]
    folder, _ = tampered_copy(tmp_path, change)
    assert main(["conformance", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "FAIL corpus manifest: " in out and message in out


def test_a_folder_without_a_manifest_passes_only_when_told(tmp_path, capsys):
    folder, _ = tampered_copy(tmp_path, lambda v, f: v.pop("manifest"))
    assert main(["conformance", str(folder), "--no-manifest"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("PASS")


def test_the_structured_predicate_is_read_before_the_text(tmp_path, capsys):
    def change(vectors, folder):
        cases = vectors["multi_column"][0]["predicates"]
        cases[0]["java_toString"] = "not Java at all"  # the structured form decides
        cases[1]["java_predicate"]["column"] = "nope"

    folder, _ = tampered_copy(tmp_path, change)
    assert main(["conformance", str(folder)]) == 1
    out = capsys.readouterr().out
    assert out.count("FAIL multi-column predicate") == 1
    assert "predicates[1].java_predicate: column 'nope' is not in the schema" in out


def test_a_case_added_with_the_tool_is_checked_and_counted(tmp_path, capsys):
    """Map-key fields in Java's text; the answer is the truth of the dataset (the bitmap indexes
    on attrs[color] and attrs[size] are exact), and the manifest counts the new case."""
    attrs = next(c for c in json.loads((JAVA_VECTORS / "datasets" / "multi.json").read_text())["columns"]
                 if c["name"] == "attrs")["values"]
    rows = [i for i, v in enumerate(attrs) if v and (v.get("color") == "red" or v.get("size") == "L")]

    def change(vectors, folder):
        vectors["multi_column"][0]["predicates"].append({
            "predicate": "attrs['color'] = 'red' OR attrs['size'] = 'L'",
            "java_toString": "Or([Equal(attrs[color], red), Equal(attrs[size], L)])",
            "result": {"cardinality": len(rows), "ranges": [[r, r] for r in rows]}})

    folder, _ = tampered_copy(tmp_path, change)
    assert main(["conformance", str(folder)]) == 1  # the manifest still says 25 predicates
    assert "multi-column: the folder holds 2 records, 26 predicates" in capsys.readouterr().out
    subprocess.run([sys.executable, str(ROOT / "tools" / "derive_vector_fields.py"), str(folder)], check=True,
                   capture_output=True)
    assert main(["conformance", str(folder)]) == 0
    assert "multi-column     predicate        26      0" in capsys.readouterr().out
    case = json.loads((folder / "vectors.json").read_text())["multi_column"][0]["predicates"][-1]
    assert [c["column"] for c in case["java_predicate"]["children"]] == ["attrs[color]", "attrs[size]"]
