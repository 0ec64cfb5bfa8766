"""`fileindex conformance DIR`: all of the Java vectors pass; a tampered copy fails, and says where."""
import json
import shutil

from conftest import JAVA_VECTORS

from fileindex.cli import main


def test_the_java_vectors_pass(capsys):
    assert main(["conformance", str(JAVA_VECTORS)]) == 0
    out = capsys.readouterr().out
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
