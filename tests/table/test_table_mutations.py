"""Paimon table metadata under bad input: every metadata file of every shared table truncated,
flipped, emptied, swapped for another metadata file, deleted, and (JSON) given wrong types.
`fileindex table` either answers, soundly, or exits 3 naming the broken file: never a traceback,
never an untyped exception, never more than a few seconds.

Soundness is asserted for every mutation but byte flips: a flip inside an embedded index or a
manifest value can make well-formed metadata that says something else, which no reader can detect.
"""
import json
import random
import shutil
import re
import warnings
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from fileindex.arrow.data_files import DataFileReader
from fileindex.table.store import TableStore
from fileindex.cli.app import _one_line_warning, main
from fileindex.scan.truth import matches
from fileindex.frozen import replace
from fileindex.table.metadata import Schema, TableError, TableHintWarning, read_rows
from fileindex import PaimonTable

TABLES = ROOT / "tests" / "tables"
ROOTS = sorted(p for p in TABLES.glob("*/*.db/*") if (p / "snapshot").is_dir()) + \
    sorted(p for p in TABLES.glob("*.db/*") if (p / "snapshot").is_dir())
PREDICATES = {"append_with_bitmap_alter_table": "f4 = 'Alice'", "data_evolution_with_index": "f2 = 14",
              "timestamp_index": "ts_milli IS NULL", "append_with_bsi": "f1 > 100"}


def metadata_files(root: Path) -> list[Path]:
    return sorted(p for folder in ("snapshot", "schema", "manifest", "index") for p in (root / folder).glob("*")
                  if p.is_file())


def mutations(path: Path, others: list[Path], rng: random.Random):
    data = path.read_bytes()
    yield "empty", b""
    for cut in sorted({0, 1, len(data) // 2, max(len(data) - 1, 0), rng.randrange(max(len(data), 1))}):
        yield f"truncated at {cut}", data[:cut]
    for _ in range(3):
        if data:
            flipped = bytearray(data)
            flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            yield "flipped", bytes(flipped)
    other = rng.choice([o for o in others if o != path] or [path])
    yield f"replaced by {other.name}", other.read_bytes()
    yield "deleted", None
    if path.parent.name in ("snapshot", "schema") and path.name != "LATEST" and data.startswith(b"{"):
        document = json.loads(data)
        for key in list(document)[:6]:
            for wrong in ([], "x", -1, {"a": 1}):
                yield f"{key} = {wrong!r}", json.dumps({**document, key: wrong}).encode()


def check_sound(root: Path, lines: list[dict], where: str) -> None:
    table = PaimonTable(root)
    predicate = table.parse(where)
    deleted = {table.relative(entry): set(vector.rows) for entry, vector in table.live()
               if vector is not None and vector.rows is not None}
    for line in lines:
        if "file" not in line or line["result"] == "REMAIN":
            continue
        path = root / line["file"]
        if not path.is_file():
            continue
        data = DataFileReader(path).read(list(DataFileReader(path).arrow_schema.names))
        truth = set(map(int, matches(data, predicate, table.schema.types()).nonzero()[0]))
        truth -= deleted.get(line["file"], set())
        kept = set() if line["result"] == "SKIP" else {r for a, b in line["ranges"] for r in range(a, b + 1)}
        assert truth <= kept, (line, truth)


@pytest.mark.parametrize("source", ROOTS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_metadata_mutation_is_answered_or_reported(source, tmp_path, capsys):
    root = tmp_path / source.name
    shutil.copytree(source, root)
    where = PREDICATES.get(root.name, "f0 = 'Alice'")
    files = metadata_files(root)
    rng = random.Random(root.name)
    evolved = root.name in ("append_with_bitmap_alter_table", "data_evolution_with_index")
    count = 0
    for path in files:
        original = path.read_bytes()
        for kind, content in list(mutations(path, files, rng)):
            if content is None:
                path.unlink()
            else:
                path.write_bytes(content)
            code = main(["table", str(root), "--where", where, "--json"])
            out, err = capsys.readouterr()
            label = f"{path.relative_to(root)} {kind}"
            assert "Traceback" not in err, label
            if code == 0:
                lines = [json.loads(line) for line in out.splitlines()]
                if kind != "flipped" and not evolved:
                    check_sound(root, lines, where)
            else:
                assert code in (2, 3), (label, code, err)
                assert err.count("\n") <= (1 if code == 3 else 4), (label, err)  # 2: a predicate with a caret
                if code == 3 and path.parent.name != "index":
                    assert path.name in err or "schema" in err or "snapshot" in err, (label, err)
            path.write_bytes(original)
            count += 1
    assert count > 8 * len(files) - 1


@pytest.mark.parametrize("damage", ["missing", "points past the end", "garbage", "a digit int() refuses",
                                    "a 1,000-digit id", "1,000 bytes of text"])
def test_a_bad_latest_hint_falls_back_to_listing(tmp_path, capsys, damage):
    source = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    root = tmp_path / "t"
    shutil.copytree(source, root)
    hint = root / "snapshot" / "LATEST"
    {"missing": hint.unlink, "points past the end": lambda: hint.write_text("9"),
     "garbage": lambda: hint.write_text("{"), "a digit int() refuses": lambda: hint.write_text("4\u00b2"),
     "a 1,000-digit id": lambda: hint.write_text("9" * 1000),
     "1,000 bytes of text": lambda: hint.write_text("x" * 1000)}[damage]()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert main(["table", str(root), "--where", "f1 = 20", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out.splitlines()[-1])["summary"]["files"] == 1 and "Traceback" not in err
    assert PaimonTable(root).snapshot.id == 4
    hints = [str(w.message) for w in said if issubclass(w.category, TableHintWarning)]
    assert (hints == []) if damage == "missing" else ("LATEST" in hints[0] and "snapshot-4" in hints[0])
    assert all(len(said) < 200 for said in hints)  # (a long id or text is cut, as every value a message shows)
    shown = _one_line_warning(hints[0] if hints else "", TableHintWarning, "", 0)
    assert shown.startswith("fileindex: warning: ") and shown.count("\n") == 1


def test_a_corrupt_deletion_vector_keeps_its_file_and_the_table(tmp_path, capsys):
    source = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    root = tmp_path / "t"
    shutil.copytree(source, root)
    (vector_file,) = (root / "index").glob("*")
    data = bytearray(vector_file.read_bytes())
    data[-1] ^= 0xFF  # the CRC
    vector_file.write_bytes(bytes(data))
    assert main(["table", str(root), "--where", "f1 = 30", "--json"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert line["result"] == "REMAIN" and "deletion vector" in line["note"] and "CRC" in line["note"]


def test_a_deletion_vector_file_cut_short_is_said_so_once(tmp_path, capsys):
    """It said "length 24 at offset 1 does not match 24", and named the vector file twice."""
    source = TABLES / "parquet" / "pk_with_bitmap_dv.db" / "pk_with_bitmap_dv"
    root = tmp_path / "t"
    shutil.copytree(source, root)
    (vector_file,) = (root / "index").glob("*")
    vector_file.write_bytes(vector_file.read_bytes()[:12])
    assert main(["table", str(root), "--where", "f1 = 30", "--json"]) == 0
    note = json.loads(capsys.readouterr().out.splitlines()[0])["note"]
    assert "deletion vector of 24 bytes at offset 1 runs past the end of the 12-byte file" in note, note
    assert note.count(vector_file.name) == 1, note


def test_a_missing_data_file_is_reported_on_its_line(tmp_path, capsys):
    source = TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table"
    root = tmp_path / "t"
    shutil.copytree(source, root)
    first = sorted((root / "bucket-0").glob("*.parquet"))[0]
    first.unlink()
    assert main(["table", str(root), "--where", "f4 = 'Alice'", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    missing = [line for line in lines[:-1] if line["file"].endswith(first.name)]
    assert missing[0]["result"] == "REMAIN" and missing[0]["note"] == "data file is missing"
    assert lines[-1]["summary"]["problems"] == 1 and lines[-1]["summary"]["files"] == 2


def test_wrong_shapes_inside_valid_files_are_named(tmp_path):
    with pytest.raises(TableError, match=r"missing.avro \(manifest\): the file is missing"):
        read_rows(TableStore(tmp_path), tmp_path / "manifest" / "missing.avro", "manifest")
    source = TABLES / "parquet" / "append_with_bitmap.db" / "append_with_bitmap"
    root = tmp_path / "t"
    shutil.copytree(source, root)
    schema = root / "schema" / "schema-0"
    document = json.loads(schema.read_text())
    document["fields"][1]["id"] = document["fields"][0]["id"]
    schema.write_text(json.dumps(document))
    with pytest.raises(TableError, match=r"schema/schema-0 \(schema\): field ids repeat"):
        PaimonTable(root)
    document["fields"][1]["id"] = 99
    document["fields"][1]["name"] = document["fields"][2]["name"]  # (was "a column is selected twice")
    schema.write_text(json.dumps(document))
    with pytest.raises(TableError, match=r"schema/schema-0 \(schema\): field names repeat \(\['f2'\]\)"):
        PaimonTable(root)
    document["fields"][1]["name"] = "f1"
    document["fields"][3]["type"] = {"type": "VECTOR"}  # (was named neither the file nor the field)
    schema.write_text(json.dumps(document))
    with pytest.raises(TableError, match=r"schema/schema-0 \(schema\) fields\[3\]: type: unknown complex type "
                                         r"'VECTOR'$"):
        PaimonTable(root)



@pytest.mark.parametrize("schema_file, edit, message", [
    ("schema-1", {"id": 0}, r"schema/schema-1 \(schema\): its id is 0, not 1 as its file name says"),
    ("schema-0", {"id": 1}, r"schema/schema-0 \(schema\): its id is 1, not 0 as its file name says"),
    ("schema-1", {"partitionKeys": ["nope"]}, r"schema/schema-1 \(schema\): partitionKeys names no field 'nope'"),
    ("schema-1", {"primaryKeys": ["f4", "nope"]}, r"schema/schema-1 \(schema\): primaryKeys names no field 'nope'"),
])
def test_a_schema_naming_what_it_is_not_is_refused(tmp_path, schema_file, edit, message):
    """A schema whose id is not its file's (the table's schema was taken for an older file's, whose fields it read
    by name: a file lacking the renamed column, or rows read by the wrong fields), or whose keys name no field (a
    KeyError planning the partition folders)."""
    root = tmp_path / "t"
    shutil.copytree(TABLES / "parquet" / "append_with_bitmap_alter_table.db" / "append_with_bitmap_alter_table", root)
    path = root / "schema" / schema_file
    path.write_text(json.dumps({**json.loads(path.read_text()), **edit}))
    with pytest.raises(TableError, match=message):
        PaimonTable(root).scan("f4 = 'Alice'").to_arrow()


MANIFESTS = sorted(p for root in ROOTS for p in (root / "manifest").glob("*"))


@settings(max_examples=150)
@given(st.data())
def test_the_metadata_boundary_lets_only_table_errors_out(tmp_path_factory, data):
    """Random bytes, and real manifests (Avro, ORC) cut and flipped at random: read_rows returns rows
    or raises TableError; any other exception fails the test."""
    source = data.draw(st.sampled_from(MANIFESTS))
    original = source.read_bytes()
    content = data.draw(st.one_of(
        st.binary(max_size=64),
        st.builds(lambda cut: original[:cut], st.integers(0, len(original))),
        st.builds(lambda at, bit: original[:at] + bytes([original[at] ^ (1 << bit)]) + original[at + 1:],
                  st.integers(0, len(original) - 1), st.integers(0, 7))))
    path = tmp_path_factory.mktemp("boundary") / "manifest" / "m"
    path.parent.mkdir()
    path.write_bytes(content)
    try:
        rows = read_rows(TableStore(path.parent.parent), path, "manifest")
    except TableError as err:
        assert "manifest/m (manifest)" in str(err)
    else:
        assert all(isinstance(row, dict) for row in rows)


# Paimon 0.9.0's Options.get of a boolean ConfigOption (checked with its jar in jshell): case-insensitive true or
# false, through Java's toUpperCase (which takes the long s for s); no blank, no 1/yes
JAVA_BOOLEANS = {"true": True, "FALSE": False, "TrUe": True, "fal\u017fe": False}
JAVA_REFUSES = [" true", "true ", "nope", "", "1", "yes", "0"]


def test_a_boolean_option_is_read_as_java_reads_it():
    schema = Schema(0, (), (), (), {}, "schema/schema-0")
    assert schema.flag("partition.legacy-name", True) and not schema.flag("deletion-vectors.enabled", False)
    for text, value in JAVA_BOOLEANS.items():
        assert replace(schema, options={"partition.legacy-name": text}).flag("partition.legacy-name", True) is value
    for text in JAVA_REFUSES:
        with pytest.raises(TableError, match=re.escape(f"schema/schema-0 (schema): option partition.legacy-name="
                                                       f"{text!r} is not a boolean")):
            replace(schema, options={"partition.legacy-name": text}).flag("partition.legacy-name", True)
